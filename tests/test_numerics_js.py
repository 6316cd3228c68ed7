"""The widgets' numerics.js against the package, run by Node on a grid (no build)."""

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from posenc_docs import alibi, rope, scaling, sinusoidal
from posenc_docs.figures import part2_extension as extension_figures
from posenc_docs.pages import part2_extension

WIDGETS = Path(__file__).resolve().parents[1] / "docs/javascripts/widgets"
NUMERICS, PLOT = WIDGETS / "numerics.js", WIDGETS / "plot.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs node")

WIDTHS, BASES, FACTORS = (2, 8, 64, 128), (100.0, 10000.0, 500000.0), (1.5, 4.0, 32.0)
LENGTHS, HEADS = (256, 4096), (1, 3, 8, 12, 32)
STARTS, TOPS = (0, 20, 70, 5000), (1.0, 1.3, 2.0, 4.0, 5.0, 8.0, 38.0, 40.0, 48.0, 64.0)

SCRIPT = """
import * as n from %s;
import * as plot from %s;
const list = (a) => Array.from(a);
const out = { freq: {}, table: {}, similarity: {}, rotate: {}, slopes: {}, scaled: {},
  curves: {}, ticks: {}, labels: {} };
const x = (d) => Array.from({ length: d }, (_, j) => Math.sin(j + 1));
for (const d of %s) for (const b of %s) {
  const key = `${d},${b}`, w = n.pairFrequencies(d, b);
  out.freq[key] = list(w);
  out.table[key] = list(n.encodingTable(7, d, w));
  out.similarity[key] = [0, 1, 5, 1000].map((k) => n.offsetSimilarity(k, w));
  out.rotate[key] = [0, 3, 1000].map((m) => list(n.rotate(x(d), m, w)));
  out.curves[key] = %s.map((start) => [
    list(n.similarityCurve(n.encodingTable(start + 40, d, w), d, start, 40)),
    list(n.similarityCurve(n.encodingTable(40, d, w, start), d, 0, 40)),
  ]);
}
for (const top of %s) out.ticks[top] = plot.powerOfTwoTicks(top);
for (const v of [0.1, 1, 10, 100, 1000, 1e6, 2, 2.5, -17.5, 4096]) {
  out.labels[v] = [plot.tickLabel(v, true), plot.tickLabel(v, false)];
}
for (const h of %s) out.slopes[h] = n.alibiSlopes(h);
for (const d of [64, 128]) for (const b of %s) for (const s of %s) for (const L of %s) {
  const y = n.yarn(d, b, s, L), bounds = n.yarnRampBounds(d, b, L);
  out.scaled[`${d},${b},${s},${L}`] = {
    linear: list(n.linear(d, b, s).invFreq), ntk: list(n.ntk(d, b, s).invFreq),
    ntkBase: n.ntkBase(d, b, s), llama3: list(n.llama3(d, b, s, L).invFreq),
    wavelength: list(n.wavelengths(n.pairFrequencies(d, b))),
    slowDown: list(n.scalePerPair(n.ntk(d, b, s).invFreq, n.pairFrequencies(d, b))),
    unturned: n.unturnedPairs(n.wavelengths(n.pairFrequencies(d, b)), L),
    yarn: y && [list(y.invFreq), y.attentionFactor],
    bounds: bounds && [bounds.low, bounds.high],
    mscale: n.yarnMscale(s),
  };
}
console.log(JSON.stringify(out));
"""


def run_grid(numerics: Path, plot: Path) -> dict:
    """What the modules ``numerics`` and ``plot`` compute on the grid, run by Node."""
    values = (numerics.as_uri(), plot.as_uri(), WIDTHS, BASES, STARTS, TOPS, HEADS)
    script = SCRIPT % tuple(json.dumps(v) for v in (*values, BASES, FACTORS, LENGTHS))
    run = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def js():
    return run_grid(NUMERICS, PLOT)


@pytest.mark.build
def test_the_shipped_minified_modules_compute_what_the_sources_do(js, site_dir):
    """The site ships numerics.js and plot.js as terser writes them (two compress
    passes, hooks/minify.mjs): on the whole grid they give the sources' numbers,
    bit for bit, so the grid tests here hold for what readers run."""
    shipped = site_dir / "javascripts" / "widgets"
    assert (shipped / "numerics.js").read_text() != NUMERICS.read_text()  # minified
    assert run_grid(shipped / "numerics.js", shipped / "plot.js") == js


def grid():
    return [(d, b, f"{d},{b:g}") for d in WIDTHS for b in BASES]


def test_sinusoidal_frequencies_table_and_offset_similarity(js):
    for d, b, key in grid():
        np.testing.assert_allclose(js["freq"][key], rope.inv_freq(d, b), rtol=1e-15)
        table = np.reshape(js["table"][key], (7, d))
        np.testing.assert_allclose(table, sinusoidal.table(7, d, b), atol=1e-15)
        expected = sinusoidal.offset_similarity(np.array([0, 1, 5, 1000]), d, b)
        np.testing.assert_allclose(js["similarity"][key], expected, rtol=1e-13)


def test_similarity_curves_from_the_vectors(js):
    """The explorer's PE(A)·PE(A + k), from table rows and from a shifted table."""
    offsets = np.arange(40)
    for d, b, key in grid():
        curves = zip(STARTS, js["curves"][key], strict=True)
        for start, (from_rows, from_shifted) in curves:
            rows = sinusoidal.encode(start + offsets, d, b)  # (40, d)
            expected = rows @ sinusoidal.encode(start, d, b)  # (40,)
            np.testing.assert_allclose(from_rows, expected, rtol=1e-12, atol=1e-9)
            np.testing.assert_allclose(from_shifted, expected, rtol=1e-12, atol=1e-9)


def test_slow_down_ticks_are_the_static_figures(js):
    """The widget's slow-down ticks are matplotlib's in the static figure."""
    for top in TOPS:
        fig, ax = plt.subplots()
        ax.plot([10, 1000], [1, top], label="x")
        extension_figures._scale_axes(ax, "t", top)
        assert js["ticks"][f"{top:g}"] == pytest.approx(list(ax.get_yticks())), top
        plt.close(fig)


def test_slow_down_ticks_leave_room_between_labels(js):
    """No two slow-down ticks closer than 1.5 times apart on the log axis (at factor
    38 the widget labelled 32 and 38 on top of each other); the top one is the
    factor, or a power of two within 10 % of it."""
    for top in TOPS:
        ticks = js["ticks"][f"{top:g}"]
        assert ticks == sorted(ticks) and (ticks[0] == 1 or len(ticks) == 1), ticks
        assert all(b / a >= 1.5 for a, b in itertools.pairwise(ticks)), (top, ticks)
        assert abs(np.log2(ticks[-1] / top)) < np.log2(1.1) + 1e-9, (top, ticks)


def test_tick_labels_decades_as_powers_of_ten(js):
    sup = {0.1: "10⁻¹", 1: "10⁰", 10: "10¹", 100: "10²", 1000: "10³", 1e6: "10⁶"}
    for v, (log, plain) in js["labels"].items():
        v = float(v)
        if v in sup:
            assert log == sup[v], v
        else:  # not a decade: a plain number, with a true minus sign
            assert log == plain == f"{v:g}".replace("-", "\N{MINUS SIGN}"), v


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
    theta = rope.inv_freq(d, b)
    np.testing.assert_allclose(shown["wavelength"], scaling.wavelengths(theta), **close)
    slow_down = scaling.scale_per_pair(scaling.ntk(d, b, factor=s)[0], theta)
    np.testing.assert_allclose(shown["slowDown"], slow_down, **close)
    try:
        assert shown["unturned"] == part2_extension.turn_census(d, b, L).unfinished
    except ValueError:  # every pair turns within L: the census has no boundary
        assert shown["unturned"] == 0
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
