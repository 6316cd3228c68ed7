"""Tests for posenc_docs.alibi against the paper's reference slopes."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs.alibi import alibi_bias, alibi_bias_torch, alibi_slopes
from tests._training import adam_losses

FAST = settings(max_examples=40, deadline=None)


def reference_get_slopes(n):
    """The ALiBi repo's recursive get_slopes, re-derived from its description."""

    def power_of_two_slopes(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))  # 2^(-8/n)
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_two_slopes(n)
    closest = 2 ** math.floor(math.log2(n))
    tail = reference_get_slopes(2 * closest)[0::2][: n - closest]
    return power_of_two_slopes(closest) + tail


def bloom_slopes(n):
    """BLOOM's closed form: powers of 2^(-8/c), then odd powers of 2^(-4/c)."""
    c = 2 ** math.floor(math.log2(n))
    slopes = [(2 ** (-8 / c)) ** p for p in range(1, c + 1)]
    odd = range(1, 2 * (n - c), 2)
    return slopes + [(2 ** (-4 / c)) ** p for p in odd]


@pytest.mark.parametrize("n", range(1, 129))
def test_slopes_equal_reference_get_slopes(n):
    slopes = alibi_slopes(n)
    assert slopes.shape == (n,) and slopes.dtype == np.float64
    np.testing.assert_allclose(slopes, reference_get_slopes(n), rtol=1e-13, atol=0)
    np.testing.assert_allclose(slopes, bloom_slopes(n), rtol=1e-13, atol=0)


def test_slopes_closed_forms():
    np.testing.assert_allclose(alibi_slopes(8), [1 / 2**k for k in range(1, 9)])
    twelve = [2.0**-k for k in range(1, 9)] + [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5]
    np.testing.assert_allclose(alibi_slopes(12), twelve, rtol=1e-15)
    # One head: the reference code returns 2^-8 (2^(-8k/n) with k = n = 1).
    np.testing.assert_allclose(alibi_slopes(1), [2.0**-8], rtol=1e-15)
    # numpy integers are accepted
    np.testing.assert_array_equal(alibi_slopes(np.int64(12)), alibi_slopes(12))


def test_slopes_are_decreasing_powers_of_two_for_power_of_two_heads():
    for n in (2, 4, 16, 64):
        k = np.arange(1, n + 1)
        np.testing.assert_allclose(alibi_slopes(n), 2.0 ** (-8 * k / n), rtol=1e-15)


@pytest.mark.parametrize("n", [3, 5, 6, 12, 20, 40, 112])
def test_the_first_extra_slope_is_the_largest_and_the_others_fall_between(n):
    """As alibi_slopes' Notes say for n not a power of two (c below it): the odd
    powers of 2^(-4/c) start above every one of the first c slopes."""
    slopes = alibi_slopes(n)
    c = 2 ** int(math.log2(n))
    first, extra = slopes[:c], slopes[c:]
    assert extra[0] > first.max()
    assert np.all((extra[1:] > first.min()) & (extra[1:] < first.max()))


heads = st.integers(1, 20)
lengths = st.integers(1, 24)


@FAST
@given(heads, lengths, st.integers(0, 24))
def test_causal_bias_depends_only_on_distance(n_heads, q_len, extra_keys):
    k_len = q_len + extra_keys
    bias = alibi_bias(n_heads, q_len, k_len)
    assert bias.shape == (n_heads, q_len, k_len)
    slopes = np.asarray(reference_get_slopes(n_heads))
    for r in range(q_len):
        i = k_len - q_len + r  # absolute position of query r
        for j in range(k_len):
            if j <= i:
                np.testing.assert_allclose(bias[:, r, j], -slopes * (i - j))
            else:
                assert np.all(bias[:, r, j] == -np.inf)


@FAST
@given(heads, lengths, st.integers(0, 24))
def test_symmetric_bias_is_minus_slope_times_abs_distance(n_heads, q_len, extra_keys):
    k_len = q_len + extra_keys
    bias = alibi_bias(n_heads, q_len, k_len, causal=False)
    assert np.isfinite(bias).all()
    i = np.arange(k_len - q_len, k_len)[:, None]
    j = np.arange(k_len)[None, :]
    expected = -np.asarray(reference_get_slopes(n_heads))[:, None, None] * abs(i - j)
    np.testing.assert_allclose(bias, expected, rtol=1e-13)
    if q_len == k_len:
        np.testing.assert_array_equal(bias, np.swapaxes(bias, 1, 2))


def test_symmetric_variant_differs_from_causal_on_past_keys_only_by_mask():
    causal, full = alibi_bias(4, 6, 6), alibi_bias(4, 6, 6, causal=False)
    past = np.isfinite(causal)
    np.testing.assert_array_equal(causal[past], full[past])
    assert np.all(full[~past] < 0)  # future keys get a finite penalty, not -inf


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@FAST
@given(heads, lengths, st.integers(0, 8), st.integers(0, 2**32 - 1))
def test_softmax_ignores_a_per_row_constant(n_heads, q_len, extra_keys, seed):
    """fairseq's +m*j (key index) form gives the same weights as -m*(i-j)."""
    k_len = q_len + extra_keys
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n_heads, q_len, k_len))
    bias = alibi_bias(n_heads, q_len, k_len)
    slopes = np.asarray(reference_get_slopes(n_heads))[:, None, None]
    key_index_bias = np.where(np.isfinite(bias), slopes * np.arange(k_len), -np.inf)
    row_constant = rng.normal(size=(n_heads, q_len, 1)) * 10
    expected = softmax(scores + bias)
    np.testing.assert_allclose(softmax(scores + key_index_bias), expected, atol=1e-12)
    np.testing.assert_allclose(
        softmax(scores + bias + row_constant), expected, atol=1e-12
    )
    assert np.all(expected[~np.isfinite(bias)] == 0)


@FAST
@given(heads, lengths, st.integers(0, 8), st.booleans())
def test_torch_matches_numpy(n_heads, q_len, extra_keys, causal):
    k_len = q_len + extra_keys
    expected = alibi_bias(n_heads, q_len, k_len, causal=causal)
    for dtype, rtol in ((torch.float64, 1e-15), (torch.float32, 1e-6)):
        got = alibi_bias_torch(n_heads, q_len, k_len, causal=causal, dtype=dtype)
        assert got.dtype == dtype and got.shape == expected.shape
        np.testing.assert_allclose(got.double().numpy(), expected, rtol=rtol)


def test_float32_bias_is_within_one_ulp_only_where_a_slope_is_not_a_power_of_two():
    """The docstring's account of float32 rounding, against the definition in
    float64 (slopes from the reference code): 12 heads at 512 positions."""
    got = alibi_bias_torch(12, 512, 512).numpy()
    slopes, (query, key) = reference_get_slopes(12), np.tril_indices(512)
    off = []
    for h, slope in enumerate(slopes):
        exact = -slope * (query - key).astype(np.float64)  # the causal entries
        mine = got[h][query, key]
        gap = np.abs(mine.astype(np.float64) - exact.astype(np.float32))
        assert np.all(gap <= np.spacing(np.abs(exact).astype(np.float32))), h
        off.append(np.mean(mine != exact.astype(np.float32)))
    powers = [math.log2(slope).is_integer() for slope in slopes]
    assert powers == [True] * 8 + [False] * 4
    assert all(share == 0 for share, p in zip(off, powers, strict=True) if p)
    assert all(0.15 < share < 0.25 for share in off[8:])  # about 1 in 5
    assert 1 / 16 < np.mean(off) < 1 / 12  # 1 in 14 of all entries


def test_torch_bfloat16_is_rounded_from_float32():
    exact = alibi_bias_torch(3, 600, 600, dtype=torch.float32)
    got = alibi_bias_torch(3, 600, 600, dtype=torch.bfloat16)
    assert torch.equal(got, exact.to(torch.bfloat16))


def test_decoding_one_query_is_the_last_row_of_the_full_bias():
    full = alibi_bias(8, 10, 10)
    np.testing.assert_array_equal(alibi_bias(8, 1, 10), full[:, -1:, :])
    np.testing.assert_array_equal(alibi_bias(8, 3, 10), full[:, -3:, :])


@pytest.mark.parametrize("bad", [0, -3])
def test_bad_head_count_raises_value_error(bad):
    with pytest.raises(ValueError, match=r"n_heads.*" + str(bad)):
        alibi_slopes(bad)


@pytest.mark.parametrize("bad", [2.0, 2.5, "8", None, True])
def test_non_integer_head_count_raises_type_error(bad):
    with pytest.raises(TypeError, match="n_heads"):
        alibi_slopes(bad)


@pytest.mark.parametrize("build", [alibi_bias, alibi_bias_torch])
def test_bad_lengths_raise(build):
    with pytest.raises(ValueError, match="q_len must be <= k_len"):
        build(4, 5, 3)
    with pytest.raises(ValueError, match="q_len"):
        build(4, 0, 3)
    with pytest.raises(ValueError, match="k_len"):
        build(4, 2, -1, causal=False)
    with pytest.raises(TypeError, match="k_len"):
        build(4, 2, 3.0)
    with pytest.raises(ValueError, match="n_heads"):
        build(0, 2, 3)
    with pytest.raises(ValueError, match="q_len must be <= k_len"):
        build(4, 5, 3, causal=False)  # queries at positions -2 and -1: nowhere
    assert build(4, 3, 5, causal=False).shape == (4, 3, 5)


def alibi_attention(q, k, v, bias):
    """Softmax attention with ALiBi added after the 1/sqrt(d) scaling."""
    logits = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + bias  # (B, H, T, T)
    return torch.softmax(logits, dim=-1) @ v  # (B, H, T, dh)


@pytest.mark.parametrize("causal", [True, False])
def test_gradcheck_alibi_attention_float64(causal):
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 4, 3, dtype=torch.float64) for _ in range(3))
    bias = alibi_bias_torch(2, 4, 4, causal=causal, dtype=torch.float64)

    def attend(q, k, v):
        return alibi_attention(q, k, v, bias)

    inputs = tuple(t.requires_grad_(True) for t in (q, k, v))
    assert torch.autograd.gradcheck(attend, inputs)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_bias_is_the_float32_bias_rounded(dtype):
    bias = alibi_bias_torch(4, 6, 9, dtype=dtype)
    assert bias.dtype == dtype
    assert torch.equal(bias, alibi_bias_torch(4, 6, 9).to(dtype))


def test_tiny_alibi_model_with_default_arguments_learns_to_copy_the_last_token():
    torch.manual_seed(0)
    vocab, T, d, H = 8, 10, 16, 2
    embed, out = torch.nn.Embedding(vocab, d), torch.nn.Linear(d, vocab)
    qkv = torch.nn.Linear(d, 3 * d)
    params = [*embed.parameters(), *out.parameters(), *qkv.parameters()]
    tokens = torch.randint(vocab, (16, T))

    def loss():
        q, k, v = (
            qkv(embed(tokens)).view(16, T, 3, H, d // H).unbind(2)
        )  # (B, T, H, dh)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (B, H, T, dh)
        mixed = alibi_attention(q, k, v, alibi_bias_torch(H, T, T))  # (B, H, T, dh)
        logits = out(mixed.transpose(1, 2).reshape(16, T, d))[:, 1:]  # (B, T-1, V)
        targets = tokens[:, :-1].reshape(-1)  # the previous token
        return torch.nn.functional.cross_entropy(logits.reshape(-1, vocab), targets)

    losses = adam_losses(params, loss, steps=40, lr=0.03)
    assert losses[-1] < 0.7 * losses[0]
