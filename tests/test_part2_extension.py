"""Tests for posenc_docs.pages.part2_extension, against loop-based re-derivations.

References are written from the definitions (RoFormer wavelengths, PI eq. 7-8,
Meta's llama3 rule) with plain Python loops; they never call the package.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs.pages import models, part2_extension


def ref_wavelengths(d, base):
    return [2 * math.pi * base ** (2 * i / d) for i in range(d // 2)]


@pytest.mark.parametrize(
    ("d", "base", "length", "full"),
    [(128, 1e4, 4096, 46), (128, 5e5, 8192, 35)],  # Llama 2 7B, Llama 3 8B
)
def test_turn_census_of_llama(d, base, length, full):
    wavelengths = ref_wavelengths(d, base)
    expected = sum(w < length for w in wavelengths)
    census = part2_extension.turn_census(d, base, length)
    assert census.full_turn == expected == full
    assert census.boundary_wavelength == pytest.approx(wavelengths[full])
    assert census.last_full_wavelength == pytest.approx(wavelengths[full - 1])
    assert census.slowest_fraction == pytest.approx(length / wavelengths[-1])


@settings(max_examples=60, deadline=None)
@given(
    d=st.integers(2, 64).map(lambda k: 2 * k),
    base=st.floats(10.0, 1e6),
    length=st.floats(7.0, 1e4),
)
def test_turn_census_splits_pairs_at_the_length(d, base, length):
    wavelengths = ref_wavelengths(d, base)
    if wavelengths[-1] < length:
        with pytest.raises(ValueError, match="length"):
            part2_extension.turn_census(d, base, length)
        return
    census = part2_extension.turn_census(d, base, length)
    k = census.full_turn
    assert all(w < length for w in wavelengths[:k])
    assert all(w >= length for w in wavelengths[k:])
    assert census.boundary_pair == k and census.n_pairs == d // 2


def test_turn_census_refuses_bad_length():
    with pytest.raises(ValueError, match="length"):
        part2_extension.turn_census(64, 1e4, 0)


def test_pi_bound_constant_is_the_papers():
    assert part2_extension.pi_bound_constant(1e4) == pytest.approx(294.73, abs=0.005)


def ref_extrapolation_sum(s, d, base):
    theta = [base ** (-2 * j / d) for j in range(d // 2)]
    total = 0.0
    for k in range(d // 2):
        a = sum(complex(math.cos(s * t), math.sin(s * t)) for t in theta[: k + 1])
        total += abs(a)
    return total


@pytest.mark.parametrize("s", [0.0, 1.0, 37.5, 1000.0, 8142.0])
def test_bound_ratio_matches_the_definition(s):
    d, base = 32, 1e4
    ratio = part2_extension.bound_ratio(s, d, base)
    assert ratio == pytest.approx(
        64 * math.log(base) * ref_extrapolation_sum(s, d, base) / d, rel=1e-10
    )


def test_bound_ratio_at_zero_counts_every_term():
    d = 128  # |A_k(0)| = k, so B(0) = 1 + 2 + ... + d/2
    expected = 64 * math.log(1e4) * (64 * 65 / 2) / d
    assert part2_extension.bound_ratio(0.0, d) == pytest.approx(expected)
    assert part2_extension.paper_bound_ratio() == pytest.approx(64 * math.log(1e4))


def ref_llama3_factor(wavelength, L0, factor, low, high):
    if wavelength < L0 / high:
        return 1.0
    if wavelength > L0 / low:
        return factor
    smooth = (L0 / wavelength - low) / (high - low)
    return 1.0 / ((1 - smooth) / factor + smooth)


def test_llama31_per_pair_factors_follow_metas_rule():
    model = models.get("Llama-3.1-8B")
    expected = [
        ref_llama3_factor(w, 8192, 8.0, 1.0, 4.0) for w in ref_wavelengths(128, 5e5)
    ]
    factors = part2_extension.model_scale_factors(model)
    np.testing.assert_allclose(factors, expected, rtol=1e-12)
    kept, between, divided = part2_extension.band_counts(factors, 8.0)
    assert kept == sum(e == 1.0 for e in expected)
    assert divided == sum(e == 8.0 for e in expected)
    assert kept + between + divided == 64


def test_linear_scaling_slows_every_pair_equally():
    factors = part2_extension.model_scale_factors(models.get("Vicuna-7B-v1.5-16k"))
    np.testing.assert_allclose(factors, 4.0)
    assert part2_extension.band_counts(factors, 4.0) == (0, 0, 64)


def test_unscaled_model_has_plain_frequencies():
    inv_freq, attention = part2_extension.model_inv_freq(models.get("Llama-2-7B"))
    expected = [1e4 ** (-2 * i / 128) for i in range(64)]
    np.testing.assert_allclose(inv_freq, expected, rtol=1e-12)
    assert attention == 1.0


def test_model_inv_freq_refuses_non_rope_models():
    with pytest.raises(ValueError, match="not rope"):
        part2_extension.model_inv_freq(models.get("MPT-7B"))


def test_context_ceiling_of_unscaled_and_tableless_models():
    llama2 = part2_extension.context_ceiling(models.get("Llama-2-7B"))
    assert (llama2.tokens, llama2.product, llama2.factor) == (4096, None, None)
    t5 = part2_extension.context_ceiling(models.get("T5 v1.1 base"))
    assert t5.tokens is None and t5.rule == "no configured limit"


def test_position_parameters():
    assert part2_extension.position_parameters(models.get("GPT-2 (124M)")) == 1024 * 768
    assert part2_extension.position_parameters(models.get("BERT-base")) == 512 * 768
    assert (
        part2_extension.position_parameters(models.get("T5 v1.1 base")) == 2 * 32 * 12
    )
    for name in ("Llama-2-7B", "MPT-7B", "Transformer (base)"):
        assert part2_extension.position_parameters(models.get(name)) == 0


def test_position_ops_per_token():
    llama2, mpt = models.get("Llama-2-7B"), models.get("MPT-7B")
    assert part2_extension.position_ops_per_token(llama2, 4096) == 3 * (32 + 32) * 128
    llama3 = models.get("Llama-3-8B")  # 8 kv heads: fewer keys to rotate
    assert part2_extension.position_ops_per_token(llama3, 8192) == 3 * (32 + 8) * 128
    assert part2_extension.position_ops_per_token(mpt, 2048) == 32 * 2048
    gpt2 = models.get("GPT-2 (124M)")
    assert part2_extension.position_ops_per_token(gpt2, 1024) == 768
    # ALiBi's share of QK^T is 1 / (2 head_dim), whatever the length
    for length in (128, 2048):
        ratio = part2_extension.position_ops_per_token(
            mpt, length
        ) / part2_extension.score_ops_per_token(mpt, length)
        assert ratio == pytest.approx(1 / 256)


def test_tokens_for_words():
    assert part2_extension.tokens_for_words(90_000, 0.75) == pytest.approx(120_000)
    with pytest.raises(ValueError, match="words_per_token"):
        part2_extension.tokens_for_words(100, 0)
    with pytest.raises(TypeError, match="words"):
        part2_extension.tokens_for_words("many")
