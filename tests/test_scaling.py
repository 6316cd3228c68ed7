"""Tests for posenc_docs.scaling (RoPE context extension).

The references below are loop-based scalar re-derivations written from the papers
and from Hugging Face ``modeling_rope_utils`` / Meta's ``apply_scaling``; they do
not call the package. Goldens (d=64, b=1e4, s=4, L0=2048) are the documented HF
outputs in reference_numerics.md (float32 there, hence rtol 1e-6).
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs import scaling
from posenc_docs.rope import apply_rope, apply_rope_torch
from posenc_docs.rope import inv_freq as rope_inv_freq

# ---------------------------------------------------------------- references


def ref_theta(d, base):
    return [1.0 / base ** (2 * i / d) for i in range(d // 2)]


def ref_ntk_base(d, base, ratio):
    return base * ratio ** (d / (d - 2))


def ref_dynamic_base(d, base, factor, max_pos, seq_len=None):
    length = max_pos if seq_len is None else max(seq_len, max_pos)
    return ref_ntk_base(d, base, factor * length / max_pos - (factor - 1))


def ref_correction_dim(rotations, d, base, L0):
    """transformers' find_correction_dim (modeling_rope_utils), as written there."""
    return (d * math.log(L0 / (rotations * 2 * math.pi))) / (2 * math.log(base))


def ref_yarn(d, base, factor, L0, beta_fast=32.0, beta_slow=1.0, truncate=True):
    low = ref_correction_dim(beta_fast, d, base, L0)
    high = ref_correction_dim(beta_slow, d, base, L0)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    out = []
    for i in range(d // 2):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        extrapolation = 1.0 - ramp  # weight of the unscaled frequency
        pos_freq = base ** (2 * i / d)
        out.append(ramp / (factor * pos_freq) + extrapolation / pos_freq)
    attention = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    return out, attention


def ref_llama3(d, base, factor, low_ff, high_ff, L0):
    low_wavelen, high_wavelen = L0 / low_ff, L0 / high_ff
    out = []
    for freq in ref_theta(d, base):
        wavelen = 2 * math.pi / freq
        if wavelen < high_wavelen:
            out.append(freq)
        elif wavelen > low_wavelen:
            out.append(freq / factor)
        else:
            smooth = (L0 / wavelen - low_ff) / (high_ff - low_ff)
            out.append((1 - smooth) * freq / factor + smooth * freq)
    return out


def ref_longrope(d, base, short, long, L0, factor, seq_len):
    ext = long if seq_len is not None and seq_len > L0 else short
    out = [1.0 / (ext[i] * base ** (2 * i / d)) for i in range(d // 2)]
    attention = math.sqrt(1 + math.log(factor) / math.log(L0)) if factor > 1 else 1.0
    return out, attention


# ---------------------------------------------------------------- strategies

dims = st.integers(2, 96).map(lambda k: 2 * k)  # d = 4 ... 192
bases = st.sampled_from([500.0, 1e4, 5e5, 1e6]) | st.floats(500.0, 1e7)
factors = st.sampled_from([1.0, 2.0, 4.0, 8.0, 32.0]) | st.floats(1.0, 64.0)
lengths = st.sampled_from([512, 2048, 4096, 8192]) | st.integers(64, 131072)
FAST = settings(max_examples=60, deadline=None)
GOLDEN = {"d": 64, "base": 1e4}
S, L0 = 4.0, 2048


def close(actual, expected, rtol=1e-12):
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=0)


# ---------------------------------------------------------------- goldens


def test_yarn_golden_truncate():
    bounds = scaling.yarn_ramp_bounds(**GOLDEN, original_max_position_embeddings=L0)
    assert bounds == (8, 21)
    freq, attention = scaling.yarn(
        **GOLDEN, factor=S, original_max_position_embeddings=L0
    )
    close(freq[9], 0.070663102, rtol=1e-6)
    close(attention, 1.1386294361, rtol=1e-10)


def test_yarn_golden_no_truncate():
    low, high = scaling.yarn_ramp_bounds(
        **GOLDEN, original_max_position_embeddings=L0, truncate=False
    )
    close([low, high], [8.06400, 20.10520], rtol=1e-6)
    freq, _ = scaling.yarn(
        **GOLDEN, factor=S, original_max_position_embeddings=L0, truncate=False
    )
    close(freq[9], 0.070617549, rtol=1e-6)


def test_longrope_golden_attention():
    kwargs = {"original_max_position_embeddings": L0, "factor": S}
    _, attention = scaling.longrope(
        **GOLDEN, short_factor=[1.0] * 32, long_factor=[2.0] * 32, **kwargs
    )
    close(attention, 1.0871146130, rtol=1e-10)


def test_llama3_golden_bands():
    freq, attention = scaling.llama3(
        **GOLDEN,
        factor=S,
        low_freq_factor=1.0,
        high_freq_factor=4.0,
        original_max_position_embeddings=L0,
    )
    theta = np.array(ref_theta(64, 1e4))
    assert np.array_equal(freq[:16], rope_inv_freq(64)[:16])  # untouched
    close(freq[:16], theta[:16])
    close(freq[21:], theta[21:] / S)
    blended = freq[16:21]
    assert np.all((blended > theta[16:21] / S) & (blended < theta[16:21]))
    close(freq[16], 8.1487326e-3, rtol=1e-6)
    assert attention == 1.0


@pytest.mark.parametrize(
    ("seq_len", "expected"), [(3000, 29579.412), (8192, 141213.757)]
)
def test_dynamic_golden_base(seq_len, expected):
    kwargs = {"factor": S, "max_position_embeddings": 2048, "seq_len": seq_len}
    close(scaling.dynamic_ntk_base(**GOLDEN, **kwargs), expected, rtol=1e-7)
    freq, _ = scaling.dynamic_ntk(**GOLDEN, **kwargs)
    close(freq[1] ** (-64 / 2), expected, rtol=1e-7)  # theta'_1 = b'**(-2/d)


# ---------------------------------------------------------------- vs references


@FAST
@given(d=dims, base=bases, factor=factors)
def test_linear_and_ntk_match_reference(d, base, factor):
    freq, attention = scaling.linear(d, base, factor=factor)
    assert np.array_equal(freq, rope_inv_freq(d, base) / factor) and attention == 1.0
    close(freq, [t / factor for t in ref_theta(d, base)])
    freq, attention = scaling.ntk(d, base, factor=factor)
    close(freq, ref_theta(d, ref_ntk_base(d, base, factor)))
    assert attention == 1.0


@FAST
@given(d=dims, base=bases, factor=factors, max_pos=lengths, seq_len=lengths)
def test_dynamic_matches_reference(d, base, factor, max_pos, seq_len):
    kwargs = {"factor": factor, "max_position_embeddings": max_pos}
    for length in (None, seq_len):
        freq, attention = scaling.dynamic_ntk(d, base, seq_len=length, **kwargs)
        close(freq, ref_theta(d, ref_dynamic_base(d, base, factor, max_pos, length)))
        assert attention == 1.0


@FAST
@given(d=dims, base=bases, L0=lengths, rotations=st.floats(1e-3, 1e4))
def test_yarn_correction_dim_is_hfs_to_the_last_bit(d, base, L0, rotations):
    """The form of transformers' find_correction_dim (modeling_rope_utils), not
    the difference of logs, which is an ulp off in about a third of cases: where
    a bound lands on a whole number, an ulp decides its floor or ceiling."""
    expected = ref_correction_dim(rotations, d, base, L0)
    assert scaling.yarn_correction_dim(rotations, d, base, L0) == expected


@FAST
@given(
    d=dims,
    base=bases,
    factor=factors,
    L0=lengths,
    betas=st.sampled_from([(32.0, 1.0), (16.0, 2.0), (64.0, 0.5), (1.0, 1.0)]),
    truncate=st.booleans(),
)
def test_yarn_matches_reference(d, base, factor, L0, betas, truncate):
    beta_fast, beta_slow = betas
    freq, attention = scaling.yarn(
        d,
        base,
        factor=factor,
        original_max_position_embeddings=L0,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    expected, expected_attention = ref_yarn(
        d, base, factor, L0, beta_fast, beta_slow, truncate
    )
    close(freq, expected)
    close(attention, expected_attention)


@FAST
@given(
    d=dims,
    base=bases,
    factor=factors,
    L0=lengths,
    ffs=st.tuples(st.floats(0.25, 4.0), st.floats(0.1, 8.0)),
)
def test_llama3_matches_reference(d, base, factor, L0, ffs):
    low_ff, high_ff = ffs[0], ffs[0] + ffs[1]
    freq, attention = scaling.llama3(
        d,
        base,
        factor=factor,
        low_freq_factor=low_ff,
        high_freq_factor=high_ff,
        original_max_position_embeddings=L0,
    )
    close(freq, ref_llama3(d, base, factor, low_ff, high_ff, L0))
    assert attention == 1.0


@settings(max_examples=30, deadline=None)
@given(d=dims, base=bases, factor=factors, L0=lengths, data=st.data())
def test_longrope_matches_reference(d, base, factor, L0, data):
    pair_factors = st.lists(st.floats(0.5, 64.0), min_size=d // 2, max_size=d // 2)
    short, long = data.draw(pair_factors), data.draw(pair_factors)
    seq_len = data.draw(st.none() | st.integers(1, 4 * L0))
    freq, attention = scaling.longrope(
        d,
        base,
        short_factor=short,
        long_factor=long,
        original_max_position_embeddings=L0,
        factor=factor,
        seq_len=seq_len,
    )
    expected, expected_attention = ref_longrope(
        d, base, short, long, L0, factor, seq_len
    )
    close(freq, expected)
    close(attention, expected_attention)


# ---------------------------------------------------------------- properties


@FAST
@given(d=dims, base=bases, L0=lengths)
def test_factor_one_leaves_frequencies_unchanged(d, base, L0):
    theta = rope_inv_freq(d, base)
    length = {"original_max_position_embeddings": L0}
    ones = [1.0] * (d // 2)
    results = [
        scaling.linear(d, base, factor=1.0),
        scaling.ntk(d, base, factor=1.0),
        scaling.dynamic_ntk(d, base, factor=1.0, max_position_embeddings=L0),
        scaling.yarn(d, base, factor=1.0, **length),
        scaling.llama3(
            d, base, factor=1.0, low_freq_factor=1.0, high_freq_factor=4.0, **length
        ),
        scaling.longrope(
            d,
            base,
            short_factor=ones,
            long_factor=ones,
            factor=1.0,
            seq_len=2 * L0,
            **length,
        ),
    ]
    for freq, attention in results:
        close(freq, theta, rtol=1e-14)
        assert attention == 1.0


@FAST
@given(d=dims, base=bases, factor=st.floats(1.01, 64.0), L0=lengths)
def test_yarn_keeps_fast_pairs_and_interpolates_slow_pairs(d, base, factor, L0):
    theta = rope_inv_freq(d, base)
    freq, _ = scaling.yarn(d, base, factor=factor, original_max_position_embeddings=L0)
    rotations = L0 * theta / (2 * np.pi)  # full turns of each pair within L0
    fast, slow = rotations > 32, rotations < 1
    close(freq[fast], theta[fast])
    close(freq[slow], theta[slow] / factor)
    scale = scaling.scale_per_pair(freq, theta)
    assert np.all((scale >= 1 - 1e-12) & (scale <= factor * (1 + 1e-12)))
    assert np.all(np.diff(scale) >= -1e-12)  # slow-down grows with wavelength


def test_llama3_with_equal_band_factors_splits_at_the_pretraining_length():
    """Llama 4 Scout's rope_scaling (factor 16, low = high = 1, L0 8,192): no band
    to blend across, so each pair is kept or slowed 16x by its wavelength alone
    (a scalar loop); at base 500,000 and d = 128 that slows 29 of the 64 pairs."""
    freq, attention = scaling.llama3(
        128,
        5e5,
        factor=16.0,
        low_freq_factor=1.0,
        high_freq_factor=1.0,
        original_max_position_embeddings=8192,
    )
    expected = [t if 2 * math.pi / t < 8192 else t / 16 for t in ref_theta(128, 5e5)]
    close(freq, expected, rtol=1e-15)
    assert np.count_nonzero(freq != rope_inv_freq(128, 5e5)) == 29
    assert attention == 1.0


@FAST
@given(d=dims, base=bases, factor=st.floats(1.01, 64.0), L0=lengths)
def test_llama3_thresholds_by_wavelength(d, base, factor, L0):
    theta = rope_inv_freq(d, base)
    freq, _ = scaling.llama3(
        d,
        base,
        factor=factor,
        low_freq_factor=1.0,
        high_freq_factor=4.0,
        original_max_position_embeddings=L0,
    )
    wavelength = scaling.wavelengths(theta)
    close(wavelength, [2 * math.pi / t for t in ref_theta(d, base)])
    short, long = wavelength < L0 / 4.0, wavelength > L0 / 1.0
    assert np.array_equal(freq[short], theta[short])
    close(freq[long], theta[long] / factor)
    middle = ~short & ~long
    assert np.all(
        (freq[middle] >= theta[middle] / factor) & (freq[middle] <= theta[middle])
    )


@FAST
@given(d=dims, base=bases, factor=st.integers(2, 64), max_pos=lengths, data=st.data())
def test_dynamic_ntk_unchanged_inside_and_not_static_ntk_at_s_lmax(
    d, base, factor, max_pos, data
):
    kwargs = {"factor": factor, "max_position_embeddings": max_pos}
    seq_len = data.draw(st.integers(1, max_pos))
    freq, _ = scaling.dynamic_ntk(d, base, seq_len=seq_len, **kwargs)
    assert np.array_equal(freq, rope_inv_freq(d, base))
    at_s_lmax = scaling.dynamic_ntk_base(d, base, seq_len=factor * max_pos, **kwargs)
    close(at_s_lmax, base * (factor**2 - factor + 1) ** (d / (d - 2)))
    static = ref_ntk_base(d, base, factor)
    assert at_s_lmax > static * (1 + 1e-9)  # s^2 - s + 1 > s whenever s != 1


@FAST
@given(d=dims, base=bases, factor=factors, max_pos=lengths, seq_len=lengths)
def test_ntk_base_change_keeps_pair0_and_slows_last_pair_by_ratio(
    d, base, factor, max_pos, seq_len
):
    theta = rope_inv_freq(d, base)
    freq, _ = scaling.ntk(d, base, factor=factor)
    assert freq[0] == theta[0] == 1.0
    close(freq[-1], theta[-1] / factor)
    freq, _ = scaling.dynamic_ntk(
        d, base, factor=factor, max_position_embeddings=max_pos, seq_len=seq_len
    )
    ratio = factor * max(seq_len, max_pos) / max_pos - (factor - 1)
    assert freq[0] == 1.0
    close(freq[-1], theta[-1] / ratio)


def test_yarn_attention_factor_rules():
    base = {**GOLDEN, "factor": S, "original_max_position_embeddings": L0}
    g = 0.1 * math.log(S) + 1.0
    assert scaling.yarn(**base)[1] == pytest.approx(g)
    assert scaling.yarn(**base, attention_factor=0.7)[1] == 0.7
    assert scaling.yarn(**base, mscale=0.707, mscale_all_dim=0.707)[1] == 1.0
    ratio = (0.1 * 2 * math.log(S) + 1) / (0.1 * 1 * math.log(S) + 1)
    assert scaling.yarn(**base, mscale=2.0, mscale_all_dim=1.0)[1] == pytest.approx(
        ratio
    )
    assert scaling.yarn(**base, mscale=2.0)[1] == pytest.approx(g)  # needs both
    assert scaling.yarn_mscale(1.0, 5.0) == scaling.yarn_mscale(0.5) == 1.0


def test_yarn_equal_bounds_get_the_hf_epsilon_not_a_division_by_zero():
    # L0 = 6 < 2*pi: c(1) = -0.16 -> high = ceil = 0 = low (clamped), HF adds 0.001
    bounds = scaling.yarn_ramp_bounds(**GOLDEN, original_max_position_embeddings=6)
    assert bounds == (0, 0)
    freq, _ = scaling.yarn(**GOLDEN, factor=S, original_max_position_embeddings=6)
    close(freq, ref_yarn(64, 1e4, S, 6)[0])
    theta = rope_inv_freq(64)
    assert freq[0] == theta[0] and np.array_equal(freq[1:], theta[1:] / S)


def test_longrope_picks_long_factors_only_beyond_original_length():
    short, long = np.full(32, 1.5), np.full(32, 3.0)
    kwargs = {
        "short_factor": short,
        "long_factor": long,
        "max_position_embeddings": 4 * L0,
    }
    theta = rope_inv_freq(64)
    for seq_len, rescale in [(None, short), (L0, short), (L0 + 1, long)]:
        freq, attention = scaling.longrope(
            64, original_max_position_embeddings=L0, seq_len=seq_len, **kwargs
        )
        close(freq, theta / rescale)
        close(attention, 1.0871146130, rtol=1e-10)  # s = max_pos / L0 = 4


def test_longrope_mscales_switch_with_the_factor_lists_at_l0():
    """Phi-3.5-MoE's short_mscale and long_mscale stand for the attention factor
    up to L0 and past it; an absent one takes sqrt(1 + ln s / ln L0), here
    sqrt(1 + ln 4 / ln 4096) = 1.0871; with attention_factor, refused."""
    short, long = np.full(32, 1.5), np.full(32, 3.0)
    kwargs = {"short_factor": short, "long_factor": long}
    kwargs |= {"max_position_embeddings": 4 * L0}
    kwargs |= {"original_max_position_embeddings": L0}
    theta = rope_inv_freq(64)
    for seq_len, rescale, mscales, expected in [
        (L0, short, {"short_mscale": 1.25, "long_mscale": 1.5}, 1.25),
        (L0 + 1, long, {"short_mscale": 1.25, "long_mscale": 1.5}, 1.5),
        (L0 + 1, long, {"short_mscale": 1.25}, 1.0871146130),
        (L0, short, {"long_mscale": 1.5}, 1.0871146130),
    ]:
        freq, attention = scaling.longrope(64, seq_len=seq_len, **kwargs, **mscales)
        close(freq, theta / rescale)
        close(attention, expected, rtol=1e-10)
    with pytest.raises(ValueError, match="attention_factor=1.0 is set with long_"):
        scaling.longrope(64, **kwargs, attention_factor=1.0, long_mscale=1.5)
    with pytest.raises(TypeError, match="attention_factor must be a real number"):
        scaling.longrope(64, **kwargs, attention_factor="1", long_mscale=1.5)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_scaled_frequencies_feed_apply_rope(layout):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 64))  # (B, T, d)
    positions = np.array([0, 1, 7, 300, 5000])  # (T,)
    freq, _ = scaling.linear(64, factor=S)
    scaled = apply_rope(x, positions, inv_freq=freq, layout=layout)
    plain = rope_inv_freq(64)  # PI == positions / s with the unscaled frequencies
    close(scaled, apply_rope(x, positions / S, inv_freq=plain, layout=layout), 1e-10)
    freq, _ = scaling.yarn(64, factor=S, original_max_position_embeddings=L0)
    reference = apply_rope(x, positions, inv_freq=freq, layout=layout)  # (B, T, d)
    x_t = torch.from_numpy(x).float()
    positions_t, freq_t = torch.from_numpy(positions), torch.from_numpy(freq)
    rotated = apply_rope_torch(x_t, positions_t, inv_freq=freq_t, layout=layout)
    assert rotated.dtype == torch.float32
    np.testing.assert_allclose(rotated.double().numpy(), reference, atol=2e-5)


# ---------------------------------------------------------------- bad input

ONES = [1.0] * 32
YARN = {"factor": 2.0, "original_max_position_embeddings": L0}
LLAMA = {
    "factor": 2.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": L0,
}
LONG = {
    "short_factor": ONES,
    "long_factor": ONES,
    "factor": 2.0,
    "original_max_position_embeddings": L0,
}
DYN = {"factor": 2.0, "max_position_embeddings": L0}


@pytest.mark.parametrize(
    ("function", "kwargs", "argument"),
    [
        (scaling.linear, {"d": 64, "factor": 0.5}, "factor"),
        (scaling.ntk, {"d": 64, "factor": 0.9}, "factor"),
        (scaling.dynamic_ntk, {"d": 64, **DYN, "factor": 0.5}, "factor"),
        (scaling.yarn, {"d": 64, **YARN, "factor": 0.5}, "factor"),
        (scaling.llama3, {"d": 64, **LLAMA, "factor": 0.5}, "factor"),
        (scaling.longrope, {"d": 64, **LONG, "factor": 0.5}, "factor"),
        (scaling.yarn, {"d": 64, **YARN, "beta_fast": 0.99}, "beta_fast"),
        (scaling.yarn, {"d": 64, **YARN, "beta_fast": 0.5}, "beta_fast"),
        (scaling.linear, {"d": 63, "factor": 2.0}, "d"),
        (scaling.yarn, {"d": 0, **YARN}, "d"),
        (scaling.llama3, {"d": -4, **LLAMA}, "d"),
        (scaling.ntk, {"d": 2, "factor": 2.0}, "d"),
        (scaling.ntk, {"d": 64, "base": 1.0, "factor": 2.0}, "base"),
        (scaling.yarn, {"d": 64, "base": 0.5, **YARN}, "base"),
        (
            scaling.dynamic_ntk,
            {"d": 64, **DYN, "max_position_embeddings": 0},
            "max_position_embeddings",
        ),
        (
            scaling.yarn,
            {"d": 64, **YARN, "original_max_position_embeddings": 0},
            "original_max_position_embeddings",
        ),
        (
            scaling.llama3,
            {"d": 64, **LLAMA, "original_max_position_embeddings": -1},
            "original_max_position_embeddings",
        ),
        (
            scaling.longrope,
            {"d": 64, **LONG, "original_max_position_embeddings": 0},
            "original_max_position_embeddings",
        ),
        (scaling.llama3, {"d": 64, **LLAMA, "low_freq_factor": 4.5}, "low_freq_factor"),
        (scaling.llama3, {"d": 64, **LLAMA, "low_freq_factor": 5.0}, "low_freq_factor"),
        (
            scaling.longrope,
            {"d": 64, **LONG, "short_factor": ONES[:-1]},
            "short_factor",
        ),
        (
            scaling.longrope,
            {"d": 64, **LONG, "long_factor": ONES + [1.0]},
            "long_factor",
        ),
        (scaling.dynamic_ntk, {"d": 64, **DYN, "seq_len": 0}, "seq_len"),
        (scaling.longrope, {"d": 64, **LONG, "seq_len": -5}, "seq_len"),
    ],
)
def test_bad_input_names_the_argument(function, kwargs, argument):
    with pytest.raises(ValueError, match=f"^{argument} must"):
        function(**kwargs)


def test_inconsistent_yarn_length_is_an_error_not_a_silent_answer():
    with pytest.raises(ValueError, match="^original_max_position_embeddings must"):
        scaling.yarn(64, factor=2.0, original_max_position_embeddings=3)


# ---------------------------------------------------------------- rope_scaling dicts


def _hf_cases(d, base):
    half = d // 2
    short, long = [1.0 + i / half for i in range(half)], [2.0 + i for i in range(half)]
    llama = {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
    longrope = {"short_factor": short, "long_factor": long, "factor": S}
    return [  # (rope_type, rope_scaling extras, max_pos, seq_len, ours)
        ("linear", {}, L0, None, scaling.linear(d, base, factor=S)),
        (
            "dynamic",
            {},
            L0,
            3000,
            scaling.dynamic_ntk(
                d, base, factor=S, max_position_embeddings=L0, seq_len=3000
            ),
        ),
        (
            "yarn",
            {},
            int(S) * L0,
            None,
            scaling.yarn(d, base, factor=S, original_max_position_embeddings=L0),
        ),
        (
            "llama3",
            llama,
            int(S) * L0,
            None,
            scaling.llama3(
                d, base, factor=S, original_max_position_embeddings=L0, **llama
            ),
        ),
        (
            "longrope",
            longrope,
            L0,
            L0 + 1,
            scaling.longrope(
                d, base, original_max_position_embeddings=L0, seq_len=L0 + 1, **longrope
            ),
        ),
    ]


def _rope_scaling_cases(d, base):
    for rope_type, extra, max_pos, seq_len, ours in _hf_cases(d, base):
        rope_scaling = {"rope_type": rope_type, "factor": S, **extra}
        if rope_type in ("yarn", "llama3", "longrope"):
            rope_scaling["original_max_position_embeddings"] = L0
        yield rope_type, rope_scaling, max_pos, seq_len, ours


@FAST
@given(d=dims, base=bases, factor=factors)
def test_ntk_base_is_the_base_that_slows_the_lowest_pair_by_factor(d, base, factor):
    new_base = scaling.ntk_base(d, base, factor)
    close(new_base, ref_ntk_base(d, base, factor))
    lowest_before, lowest_after = base ** (-(d - 2) / d), new_base ** (-(d - 2) / d)
    close(lowest_after, lowest_before / factor)


def test_ntk_base_golden_llama2_7b_factor_4():
    # 10000 * 4**(128/126), by hand: 4**(128/126) = 4 * 4**(2/126) = 4.08885...
    close(scaling.ntk_base(128, 1e4, 4.0), 1e4 * 4 * 2 ** (4 / 126), rtol=1e-12)


@pytest.mark.parametrize("legacy", [False, True])
def test_from_rope_scaling_gives_each_methods_numbers(legacy):
    d, base = 64, 1e4
    for rope_type, rope_scaling, max_pos, seq_len, ours in _rope_scaling_cases(d, base):
        if legacy:
            rope_scaling["type"] = rope_scaling.pop("rope_type")
        got = scaling.from_rope_scaling(
            d, base, rope_scaling, max_position_embeddings=max_pos, seq_len=seq_len
        )
        assert np.array_equal(got[0], ours[0]) and got[1] == ours[1], rope_type


def test_from_rope_scaling_none_or_default_is_plain_rope():
    plain = rope_inv_freq(64, 5e5)
    m_rope = {"mrope_section": [8, 12, 12], "interleaved": True}  # Qwen3-Omni's
    for rope_scaling in (
        None,
        {},
        {"rope_type": "default"},
        {"rope_theta": 5e5},
        {"rope_type": "default", **m_rope, "llama_4_scaling_beta": 0.1},
    ):
        inv_freq, attention = scaling.from_rope_scaling(64, 5e5, rope_scaling)
        assert np.array_equal(inv_freq, plain) and attention == 1.0


def test_from_rope_scaling_missing_original_length_falls_back_like_transformers():
    got = scaling.from_rope_scaling(
        64, 1e4, {"rope_type": "yarn", "factor": S}, max_position_embeddings=L0
    )
    want = scaling.yarn(64, 1e4, factor=S, original_max_position_embeddings=L0)
    assert np.array_equal(got[0], want[0]) and got[1] == want[1]


def test_rope_types_table_names_transformers_rope_types():
    assert {"default", "linear", "dynamic", "yarn", "longrope", "llama3"} <= set(
        scaling.ROPE_TYPES
    )
    assert scaling.ROPE_TYPES["dynamic"] is scaling.dynamic_ntk


@pytest.mark.parametrize(
    "rope_scaling, words",
    [
        ({"rope_type": "su"}, ["rope_type must be one of", "'su'"]),
        ({"rope_type": "linear", "factor": 2.0, "fudge": 1}, ["'fudge'"]),
        (
            {"rope_type": "linear", "factor": 2.0, "low_freq_factor": 1.0},
            ["'low_freq_factor'", "'linear'"],
        ),
        ({"rope_type": "linear"}, ["is missing", "'factor'"]),
        ({"rope_type": "dynamic", "factor": 2.0}, ["max_position_embeddings must"]),
        ({"rope_type": "default", "rope_theta": 5e5}, ["rope_theta", "is not base"]),
        (
            {"rope_type": "linear", "factor": 2.0, "max_position_embeddings": 0},
            ["rope_scaling's max_position_embeddings", "0"],
        ),
    ],
)
def test_from_rope_scaling_rejects_bad_dicts_naming_the_key(rope_scaling, words):
    with pytest.raises(ValueError) as error:
        scaling.from_rope_scaling(64, 1e4, rope_scaling)
    for word in words:
        assert word in str(error.value)


def test_from_rope_scaling_takes_rope_type_over_the_legacy_type():
    both = {"rope_type": "linear", "type": "yarn", "factor": 2.0}  # as transformers
    assert_equal_pair(
        scaling.from_rope_scaling(64, 1e4, both), scaling.linear(64, factor=2.0)
    )
    legacy = {"type": "linear", "factor": 2.0}
    assert_equal_pair(
        scaling.from_rope_scaling(64, 1e4, legacy), scaling.linear(64, factor=2.0)
    )


def test_from_rope_scaling_needs_a_dict():
    with pytest.raises(TypeError, match="rope_scaling"):
        scaling.from_rope_scaling(64, 1e4, [("rope_type", "linear")])
    with pytest.raises(TypeError, match="rope_type must be one of"):  # wrong kind
        scaling.from_rope_scaling(64, 1e4, {"rope_type": ["linear"]})


def assert_equal_pair(ours, want):
    """Two (inv_freq, attention_factor) pairs, exactly equal."""
    np.testing.assert_array_equal(ours[0], want[0])
    assert ours[1] == want[1]


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda: scaling.ntk(4, factor=1e200), "factor"),
        (lambda: scaling.ntk_base(4, 1e4, 1e200), "factor"),
        (
            lambda: scaling.dynamic_ntk(
                4, factor=1e100, max_position_embeddings=1, seq_len=10**200
            ),
            "seq_len",
        ),
        (
            lambda: scaling.yarn_correction_dim(1, 4, 1e4, 10**400),
            "original_max_position_embeddings",
        ),
        (
            lambda: scaling.llama3(
                8,
                factor=8.0,
                low_freq_factor=1.0,
                high_freq_factor=4.0,
                original_max_position_embeddings=10**400,
            ),
            "original_max_position_embeddings",
        ),
    ],
)
def test_finite_arguments_that_overflow_float64_are_refused_by_name(call, named):
    """Each argument is finite, but what it leads to is not a float64: a
    ValueError naming it, not Python's OverflowError from inside the formula."""
    with pytest.raises(ValueError, match=named):
        call()


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (
            lambda: scaling.longrope(
                4,
                short_factor=[1, 1],
                long_factor=[1, 1],
                original_max_position_embeddings=4,
                factor=2.0,
                max_position_embeddings="junk",
            ),
            "max_position_embeddings",
        ),
        (
            lambda: scaling.from_rope_scaling(
                4, 1e4, {"rope_type": "linear", "factor": 2.0}, seq_len="junk"
            ),
            "seq_len",
        ),
    ],
)
def test_arguments_a_method_does_not_read_are_checked_all_the_same(call, named):
    """longrope reads max_position_embeddings only without factor, and linear
    scaling never reads seq_len; a bad value is still a mistake to report."""
    with pytest.raises(TypeError, match=named):
        call()


@pytest.mark.filterwarnings("error::RuntimeWarning")  # no divide-by-zero warning
def test_proportionals_still_pairs_have_infinite_wavelengths_and_no_ratio():
    """A frequency of 0 turns never: wavelength inf, and against a base frequency
    of 0 no slow-down ratio (NaN), as the docstrings say, without a warning."""
    theta, _ = scaling.proportional(16, 1e4, partial_rotary_factor=0.5)
    assert np.count_nonzero(theta) == 4
    lengths = scaling.wavelengths(theta)
    assert np.all(np.isfinite(lengths[:4])) and np.all(np.isinf(lengths[4:]))
    scaled, _ = scaling.proportional(16, 1e4, factor=4.0, partial_rotary_factor=0.5)
    ratio = scaling.scale_per_pair(scaled, theta)
    np.testing.assert_allclose(ratio[:4], 4.0)
    assert np.all(np.isnan(ratio[4:]))


def test_a_yarn_config_without_factor_takes_the_exact_length_ratio():
    """transformers 5 reads a missing factor as max_position_embeddings / L0; only
    whole ratios were tested, so a floor division passed (a mutation audit)."""
    config = {
        "rope_type": "yarn",
        "factor": None,
        "original_max_position_embeddings": 4096,
    }
    ours = scaling.from_rope_scaling(64, 1e4, config, max_position_embeddings=10000)
    expected = scaling.yarn(
        64, 1e4, factor=10000 / 4096, original_max_position_embeddings=4096
    )
    np.testing.assert_array_equal(ours[0], expected[0])
    assert ours[1] == expected[1] == pytest.approx(0.1 * math.log(10000 / 4096) + 1)
