"""The pitfall demonstrations show what the Pitfalls page says they show.

Golden values are re-derived here from the papers' formulas (Vaswani et al. 3.5,
the ALiBi reference ``get_slopes``, YaRN section 3.4), not read from the package.
"""

import math
import runpy
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs.pages import pitfalls

ROOT = Path(__file__).resolve().parents[1]
even_dims = st.integers(2, 48).map(lambda h: 2 * h)


@settings(max_examples=15, deadline=None)
@given(d=even_dims, seed=st.integers(0, 10_000))
def test_permuting_qk_rows_is_the_only_fix_for_a_layout_switch(d, seed):
    gap = pitfalls.layout_mismatch(d=d, n_tokens=12, seed=seed)
    assert gap["permuted"] < 1e-9 * max(1.0, gap["reference"])
    assert gap["unpermuted"] > 0.05 * gap["reference"]


def paper_encoding(pos: int, d: int) -> list[float]:
    """Vaswani et al. (2017) 3.5, one scalar at a time."""
    out = []
    for j in range(d):
        i = j // 2
        angle = pos / 10000 ** (2 * i / d)
        out.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
    return out


@pytest.mark.parametrize("d", [2, 8, 64])
def test_paper_variant_is_the_paper(d):
    for pos in (0, 1, 37, 1000):
        expected = paper_encoding(pos, d)
        assert np.allclose(pitfalls.sinusoid_table(pos, d, "paper"), expected)


def test_bug_variants_use_the_dimension_index():
    j = np.arange(16)
    assert np.allclose(pitfalls.sinusoid_exponents(16, "dimension"), j / 16)
    assert np.allclose(pitfalls.sinusoid_exponents(16, "doubled"), 2 * j / 16)
    with pytest.raises(ValueError, match="variant"):
        pitfalls.sinusoid_exponents(16, "pair")


@pytest.mark.parametrize("variant", ["dimension", "doubled"])
def test_only_the_paper_keeps_similarity_a_function_of_the_offset(variant):
    for k in (1, 5):
        assert pitfalls.offset_similarity_spread(k, 64, "paper", 512) < 1e-9
        assert pitfalls.offset_similarity_spread(k, 64, variant, 512) > 0.5


def test_doubled_exponent_freezes_the_dimensions_the_algebra_predicts():
    d, length = 512, 4096
    # 10000^(-2j/d) * length < pi/180  <=>  j > d ln(180 length / pi) / (2 ln 1e4)
    threshold = d * math.log(180 * length / math.pi) / (2 * math.log(1e4))
    expected = sum(1 for j in range(d) if j > threshold)
    assert pitfalls.frozen_dimensions(d, "doubled", length) == expected > 0
    assert pitfalls.frozen_dimensions(d, "paper", length) == 0


def test_concatenated_layout_is_sines_then_cosines():
    d, pos = 8, 3
    paper = paper_encoding(pos, d)
    assert np.allclose(
        pitfalls.concatenated_encoding(pos, d), paper[0::2] + paper[1::2]
    )


@settings(max_examples=10, deadline=None)
@given(d=even_dims, seed=st.integers(0, 1000))
def test_concatenation_is_absorbed_by_the_first_layer(d, seed):
    gap = pitfalls.layout_equivalence(d=d, n_positions=40, seed=seed)
    assert gap["vectors"] == 0
    assert gap["dot_products"] < 1e-9
    assert gap["first_layer"] < 1e-9


def reference_get_slopes(n: int) -> list[float]:
    """The ALiBi authors' get_slopes, re-derived from its description."""

    def power_of_two(m):
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start * start**i for i in range(m)]

    if math.log2(n).is_integer():
        return power_of_two(n)
    closest = 2 ** math.floor(math.log2(n))
    return (
        power_of_two(closest) + reference_get_slopes(2 * closest)[0::2][: n - closest]
    )


@pytest.mark.parametrize("n", [1, 2, 4, 8, 16, 32])
def test_prose_formula_is_right_for_powers_of_two(n):
    assert np.allclose(pitfalls.prose_alibi_slopes(n), reference_get_slopes(n))
    assert pitfalls.alibi_slope_gap(n)["heads_off"] == 0


@pytest.mark.parametrize("n", [3, 5, 6, 12, 20, 40])
def test_prose_formula_is_wrong_for_other_head_counts(n):
    prose = pitfalls.prose_alibi_slopes(n)
    assert np.allclose(prose, [2 ** (-8 * k / n) for k in range(1, n + 1)])
    assert not np.allclose(prose, reference_get_slopes(n))
    gap = pitfalls.alibi_slope_gap(n)
    assert gap["heads_off"] >= 1 and gap["max_ratio"] > 1.5


def test_bf16_cannot_hold_every_position_above_256():
    assert torch.tensor(256.0, dtype=torch.bfloat16).item() == 256
    assert torch.tensor(1001.0, dtype=torch.bfloat16).item() != 1001


def test_angles_in_bf16_ruin_the_cosines_float32_does_not():
    assert pitfalls.rope_cos_error(1000, torch.bfloat16) > 1
    assert pitfalls.rope_cos_error(1000, torch.float32) < 1e-3
    assert pitfalls.rope_cos_error(131_000, torch.float32) < 0.02
    stored = pitfalls.rope_cos_error(1000, torch.float32, cache_dtype=torch.bfloat16)
    assert 1e-4 < stored < 2**-8  # bf16 rounding of values up to 1


def test_dynamic_ntk_cache_is_harmless_until_the_base_changes():
    same = pitfalls.dynamic_ntk_cache_gap(original_len=64, total=64)
    assert same["logits"] < 1e-12 and same["weights"] < 1e-12
    grown = pitfalls.dynamic_ntk_cache_gap(original_len=64, total=256)
    assert grown["logits"] > 0.1 and grown["weights"] > 0.01


@pytest.mark.parametrize("s", [4, 16, 32])
def test_yarn_magnitude_scales_logits_by_its_square_once(s):
    g = 0.1 * math.log(s) + 1  # YaRN section 3.4: sqrt(1/t)
    assert pitfalls.yarn_logit_scale(s, "rope") == pytest.approx(g**2, rel=1e-5)
    assert pitfalls.yarn_logit_scale(s, "deepseek") == pytest.approx(g**2, rel=1e-5)
    assert pitfalls.yarn_logit_scale(s, "twice") == pytest.approx(g**4, rel=1e-5)


def test_four_methods_notebook_runs_and_shows_the_listing_bug(capsys):
    runpy.run_path(str(ROOT / "docs" / "notebooks" / "four_methods.py"))
    printed = capsys.readouterr().out
    assert "SyntaxError" in printed
    assert "heads that differ: 12" in printed
    assert "IndexError" in printed


def test_partial_rotary_recipes_differ_only_when_part_of_the_head_is_rotated():
    whole = pitfalls.partial_rotary_mismatch(d=32, rotary_dim=32)
    assert whole["full"] < 1e-12 and whole["head_width_freq"] < 1e-12  # r = d
    neox = pitfalls.partial_rotary_mismatch(d=96, rotary_dim=24)
    assert neox["full"] > 0.25 * neox["reference"]
    assert neox["head_width_freq"] > 0.25 * neox["reference"]
