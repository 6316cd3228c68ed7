"""The widgets' numerics.js against the package, run by Node on a grid (no build)."""

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from posenc_docs import alibi, rope, scaling, sinusoidal

NUMERICS = Path(__file__).resolve().parents[1] / "docs/javascripts/widgets/numerics.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs node")

WIDTHS, BASES, FACTORS = (2, 8, 64, 128), (100.0, 10000.0, 500000.0), (1.5, 4.0, 32.0)
LENGTHS, HEADS = (256, 4096), (1, 3, 8, 12, 32)

SCRIPT = """
import * as n from %s;
const list = (a) => Array.from(a);
const out = { freq: {}, table: {}, similarity: {}, rotate: {}, slopes: {}, scaled: {} };
const x = (d) => Array.from({ length: d }, (_, j) => Math.sin(j + 1));
for (const d of %s) for (const b of %s) {
  const key = `${d},${b}`, w = n.pairFrequencies(d, b);
  out.freq[key] = list(w);
  out.table[key] = list(n.encodingTable(7, d, w));
  out.similarity[key] = [0, 1, 5, 1000].map((k) => n.offsetSimilarity(k, w));
  out.rotate[key] = [0, 3, 1000].map((m) => list(n.rotate(x(d), m, w)));
}
for (const h of %s) out.slopes[h] = n.alibiSlopes(h);
for (const d of [64, 128]) for (const b of %s) for (const s of %s) for (const L of %s) {
  const y = n.yarn(d, b, s, L), bounds = n.yarnRampBounds(d, b, L);
  out.scaled[`${d},${b},${s},${L}`] = {
    linear: list(n.linear(d, b, s).invFreq), ntk: list(n.ntk(d, b, s).invFreq),
    ntkBase: n.ntkBase(d, b, s), llama3: list(n.llama3(d, b, s, L).invFreq),
    yarn: y && [list(y.invFreq), y.attentionFactor],
    bounds: bounds && [bounds.low, bounds.high],
    mscale: n.yarnMscale(s),
  };
}
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def js():
    script = SCRIPT % tuple(
        json.dumps(v)
        for v in (NUMERICS.as_uri(), WIDTHS, BASES, HEADS, BASES, FACTORS, LENGTHS)
    )
    run = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return json.loads(run.stdout)


def grid():
    return [(d, b, f"{d},{b:g}") for d in WIDTHS for b in BASES]


def test_sinusoidal_frequencies_table_and_offset_similarity(js):
    for d, b, key in grid():
        np.testing.assert_allclose(js["freq"][key], rope.inv_freq(d, b), rtol=1e-15)
        table = np.reshape(js["table"][key], (7, d))
        np.testing.assert_allclose(table, sinusoidal.table(7, d, b), atol=1e-15)
        expected = sinusoidal.offset_similarity(np.array([0, 1, 5, 1000]), d, b)
        np.testing.assert_allclose(js["similarity"][key], expected, rtol=1e-13)


def test_rotate_is_apply_rope_interleaved(js):
    for d, b, key in grid():
        x = np.sin(np.arange(1, d + 1))  # (d,), the script's vector
        for m, shown in zip((0, 3, 1000), js["rotate"][key], strict=True):
            expected = rope.apply_rope(x[None], [m], base=b)[0]
            np.testing.assert_allclose(shown, expected, atol=1e-13)


def test_alibi_slopes(js):
    for h in HEADS:
        np.testing.assert_allclose(js["slopes"][str(h)], alibi.alibi_slopes(h))


@pytest.mark.parametrize("d", [64, 128])
def test_scaling_methods(js, d):
    for b in BASES:
        for s in FACTORS:
            for L in LENGTHS:
                check_scaling(js["scaled"][f"{d},{b:g},{s:g},{L}"], d, b, s, L)


def check_scaling(shown, d, b, s, L):
    close = {"rtol": 1e-13}
    np.testing.assert_allclose(shown["linear"], scaling.linear(d, b, factor=s)[0])
    np.testing.assert_allclose(shown["ntk"], scaling.ntk(d, b, factor=s)[0], **close)
    assert shown["ntkBase"] == pytest.approx(scaling.ntk_base(d, b, s), rel=1e-14)
    bands = {"low_freq_factor": 1.0, "high_freq_factor": 4.0}  # the widget's defaults
    llama3, _ = scaling.llama3(
        d, b, factor=s, original_max_position_embeddings=L, **bands
    )
    np.testing.assert_allclose(shown["llama3"], llama3, **close)
    assert shown["mscale"] == pytest.approx(scaling.yarn_mscale(s), rel=1e-15)
    try:
        bounds = scaling.yarn_ramp_bounds(d, b, original_max_position_embeddings=L)
        inv_freq, factor = scaling.yarn(
            d, b, factor=s, original_max_position_embeddings=L
        )
    except ValueError:  # an empty ramp: Python raises, the widget returns null
        assert shown["bounds"] is None and shown["yarn"] is None
        return
    assert shown["bounds"] == list(bounds)
    np.testing.assert_allclose(shown["yarn"][0], inv_freq, **close)
    assert shown["yarn"][1] == pytest.approx(factor, rel=1e-15)
