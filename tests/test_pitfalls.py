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


@pytest.mark.parametrize(("variant", "power"), [("dimension", 1), ("doubled", 2)])
def test_bug_variants_use_the_dimension_index(variant, power):
    d = 8  # dimension j: sin or cos of pos / 10000^(power j / d), by hand
    trig = [math.sin if j % 2 == 0 else math.cos for j in range(d)]
    by_hand = [trig[j](3 / 10000 ** (power * j / d)) for j in range(d)]
    np.testing.assert_allclose(pitfalls.sinusoid_table(3, d, variant), by_hand)
    similarity = pitfalls.variant_similarity(np.array([7, 30]), 1, d, variant)
    assert abs(similarity[0] - similarity[1]) > 0.1  # depends on the start
    with pytest.raises(ValueError, match="variant"):
        pitfalls.sinusoid_exponents(16, "pair")


def test_offset_curves_of_the_paper_do_not_depend_on_the_start():
    starts, offsets = (0, 20, 5000), np.arange(51)
    assert pitfalls.offset_similarity_spread(offsets, 16, starts=starts) < 1e-9
    spread = pitfalls.offset_similarity_spread(offsets, 16, "doubled", starts=starts)
    assert spread > 0.1


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
    assert not np.allclose(prose, reference_get_slopes(n))
    gap = pitfalls.alibi_slope_gap(n)
    assert gap["heads_off"] >= 1 and gap["max_ratio"] > 1.5


def test_bf16_cannot_hold_every_position_above_256():
    assert torch.tensor(256.0, dtype=torch.bfloat16).item() == 256
    assert torch.tensor(1001.0, dtype=torch.bfloat16).item() != 1001


def bf16(x: float) -> float:
    """x rounded to 8 significant bits, ties to even: bfloat16 by its definition."""
    if x == 0:
        return 0.0
    mantissa, exponent = math.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= |m| < 1
    return math.ldexp(round(mantissa * 2**8), exponent - 8)  # round(): ties to even


def test_bf16_rounding_facts_follow_from_8_significant_bits():
    """The pitfall's numbers, against bf16 by its definition: integers exact up to
    2**8, gaps of 8 from 2**10, of 4 in [512, 1024); the angles' error recomputed
    one by one, position, frequency and product each rounded."""
    facts = pitfalls.bf16_rounding_facts(1000)
    assert (facts["exact_up_to"], facts["eight_apart_from"]) == (2**8, 2**10)
    assert facts["angle_step"] == 4 and (facts["first"], facts["last"]) == (1000, 1063)
    theta = [10000.0 ** (-2 * i / 128) for i in range(64)]
    errors = [
        abs(bf16(bf16(m) * bf16(t)) - m * t) for m in range(1000, 1064) for t in theta
    ]
    assert facts["max_angle_error"] == pytest.approx(max(errors), rel=1e-12)
    assert 4 < facts["max_angle_error"] < 2 * math.pi  # what the page says


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


# Issue 13, statement 9: tensor2tensor / fairseq space the frequencies as
# base^(-i/(d/2-1)) (get_timing_signal_1d: log_timescale_increment =
# ln(max/min) / (num_timescales - 1)); their [sin | cos] vector is then not a
# reordering of the paper's.
def test_t2t_frequencies_differ_from_the_papers():
    d = 512
    increment = math.log(1e4 / 1.0) / (d // 2 - 1)
    t2t = [math.exp(-i * increment) for i in range(d // 2)]
    np.testing.assert_allclose(pitfalls.t2t_inv_freq(d), t2t, rtol=1e-12)
    assert pitfalls.t2t_wavelengths(d)[-1] == pytest.approx(2 * math.pi * 1e4)
    paper = [10000 ** (-2 * i / d) for i in range(d // 2)]
    assert all(a < b for a, b in zip(t2t[1:], paper[1:], strict=True))
    pos = 1000.0
    angles = pos * np.asarray(t2t)
    t2t_vector = np.concatenate([np.sin(angles), np.cos(angles)])
    paper_vector = pitfalls.concatenated_encoding(pos, d)  # paper's numbers
    assert not np.allclose(np.sort(t2t_vector), np.sort(paper_vector), atol=1e-3)


# Statement 13: the article's section 08 listing, with its one broken line
# deleted, runs and prints these lines (values computed by hand: 4 heads,
# slopes 2^(-8h/4) = 1/4 and 1/256, distance 3; table 512 x 64).
def test_article_section08_listing_prints_its_checks(capsys):
    listing = Path(pitfalls.__file__).parents[1] / "examples/pitfalls/"
    source = (listing / "article_section08.py").read_text()
    assert ":0::2" not in source.replace("`x1 = x[..., :0::2]`", "")
    runpy.run_path(str(listing / "article_section08.py"))
    out = capsys.readouterr().out
    assert f"({512 * 64:,} params)" in out
    assert f"Head-0 bias [0→3]: {-3 / 4:.3f}" in out
    assert f"Head-3 bias [0→3]: {-3 / 256:.3f}" in out
    assert "Head-0 bias [0→0]: -0.000" in out  # a negative zero
    assert out.count("True") == 2


def test_partial_rotary_recipes_differ_only_when_part_of_the_head_is_rotated():
    whole = pitfalls.partial_rotary_mismatch(d=32, rotary_dim=32)
    assert whole["full"] < 1e-12 and whole["head_width_freq"] < 1e-12  # r = d
    neox = pitfalls.partial_rotary_mismatch(d=96, rotary_dim=24)
    assert neox["full"] > 0.25 * neox["reference"]
    assert neox["head_width_freq"] > 0.25 * neox["reference"]
