"""Tests for posenc_docs.pages.part3_nope, the no_rope_layers pitfall and examples."""

import math
import runpy
from pathlib import Path

import numpy as np
import pytest

from posenc_docs.pages import part2_basics, part3_nope, pitfalls

EXAMPLES = Path(__file__).resolve().parents[1] / "posenc_docs" / "examples"


def test_llama4_constants_are_hugging_face_defaults():
    transformers = pytest.importorskip("transformers")
    config = transformers.Llama4TextConfig()
    for name, value in part3_nope.LLAMA4.items():
        assert getattr(config, name) == value, name


def test_llama4_rope_layers_are_chunked_and_nope_layers_global():
    transformers = pytest.importorskip("transformers")
    config = transformers.Llama4TextConfig()
    for uses_rope, kind in zip(config.no_rope_layers, config.layer_types, strict=True):
        assert kind == ("chunked_attention" if uses_rope else "full_attention")


def test_qwen_training_length_from_the_published_config():
    assert part3_nope.qwen_seq_length() == 8192


def test_log_n_rate_is_one_over_ln_of_qwens_training_length():
    assert part3_nope.log_n_rate() == pytest.approx(1 / (13 * math.log(2)))  # 2**13


def test_scale_table_matches_the_formulas():
    n = 131072  # 16 L for L = 8192
    values = part3_nope.scales([n - 1])
    assert values["Llama 4 (NoPE layers)"][0] == pytest.approx(1 + 0.1 * math.log(17))
    assert values["Qwen log-n"][0] == pytest.approx(math.log(n) / math.log(8192))
    assert values["YaRN, s = n / L"][0] == pytest.approx((0.1 * math.log(16) + 1) ** 2)
    table = part3_nope.scale_table()
    assert "| 8,192 | 1.069 | 1.000 | 1.000 |" in table
    rows = {line.split(" | ")[0].strip("| "): line for line in table.splitlines()}
    assert "formula only" not in rows["16,384"]  # last query at 16,383 <= 32,766
    for n in ("32,768", "131,072", "1,048,576"):  # past the end of Qwen's logn_list
        assert "formula only" in rows[n], rows[n]


def test_qwen_logn_table_ends_where_the_page_says():
    logn_list = [math.log(i, 8192) if i > 8192 else 1 for i in range(1, 32768)]
    assert len(logn_list) - 1 == part3_nope.QWEN_LOGN_LAST_POSITION


def test_causal_mask_alone_gives_a_position_code():
    out = [part2_basics.uniform_causal_weight(i, length=50) for i in range(50)]
    np.testing.assert_allclose(out, 1 / np.arange(1, 51), rtol=1e-12)


def test_misreading_no_rope_layers_swaps_the_layers():
    result = pitfalls.misread_no_rope_layers(48, 4)
    assert result["nope_as_hf"] == list(range(3, 48, 4))
    assert sorted(result["nope_as_hf"] + result["nope_as_named"]) == list(range(48))


def run(path, capsys):
    runpy.run_path(str(EXAMPLES / path))
    return capsys.readouterr().out


def test_examples_print_what_the_page_says(capsys):
    out = run("part3_nope/causal_position.py", capsys)
    assert "1 / output - 1       : [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]" in out
    out = run("part3_nope/irope_layers.py", capsys)
    assert "NoPE layers (12 of 48):\n  [3, 7, 11" in out
    assert "queries scaled by, at query position:\n      8,190: 1.0000" in out
    out = run("pitfalls/no_rope_layers.py", capsys)
    assert "as HF reads it  : 12" in out and "as the name says: 36" in out


def test_lab_growth_is_the_ratio_of_the_committed_perplexities():
    from posenc_docs import lab

    for name in ("none", "rope"):
        ratio = lab.perplexity(name, 16) / lab.perplexity(name, 1)
        assert part3_nope.lab_growth(name) == pytest.approx(ratio)
    assert part3_nope.lab_growth("none") < part3_nope.lab_growth("rope")  # the prose
