"""Tests for posenc_docs.attention, including the permutation demos."""

import math
from functools import partial

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from posenc_docs.alibi import alibi_bias, alibi_bias_torch
from posenc_docs.attention import (
    attention,
    attention_torch,
    self_attention,
    self_attention_torch,
)
from posenc_docs.rope import apply_rope, apply_rope_torch
from posenc_docs.sinusoidal import table

FAST = settings(max_examples=30, deadline=None)
D_MODEL, D_HEAD = 16, 8
seeds = st.integers(0, 2**32 - 1)


def random_head(seed, t):
    """A random sequence x (T, d_model) and projections W_q, W_k, W_v."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(t, D_MODEL))
    w_q, w_k, w_v = rng.normal(size=(3, D_MODEL, D_HEAD)) / math.sqrt(D_MODEL)
    return x, w_q, w_k, w_v


@st.composite
def sequence_and_permutation(draw, min_len=2):
    t = draw(st.integers(min_len, 10), label="T")
    perm = np.array(draw(st.permutations(range(t)), label="perm"))
    return t, perm


def reference_attention(q, k, v, bias, causal):
    """Row-by-row softmax(q.k/sqrt(d) + bias) v with explicit sums."""
    t_q, t_k = q.shape[0], k.shape[0]
    out, weights = np.zeros((t_q, v.shape[1])), np.zeros((t_q, t_k))
    for r in range(t_q):
        visible = [j for j in range(t_k) if not causal or j <= t_k - t_q + r]
        logits = {j: q[r] @ k[j] / math.sqrt(q.shape[1]) + bias[r, j] for j in visible}
        total = sum(math.exp(s) for s in logits.values())
        for j, s in logits.items():
            weights[r, j] = math.exp(s) / total
            out[r] += weights[r, j] * v[j]
    return out, weights


@FAST
@given(st.integers(1, 6), st.integers(0, 4), st.booleans(), seeds)
def test_matches_explicit_formula_and_rows_sum_to_one(t_q, extra, causal, seed):
    rng = np.random.default_rng(seed)
    t_k = t_q + extra
    q, k = rng.normal(size=(t_q, 4)), rng.normal(size=(t_k, 4))
    v, bias = rng.normal(size=(t_k, 3)), rng.normal(size=(t_q, t_k))
    out, weights = attention(q, k, v, bias=bias, causal=causal, return_weights=True)
    want_out, want_weights = reference_attention(q, k, v, bias, causal)
    np.testing.assert_allclose(weights, want_weights, atol=1e-12)
    np.testing.assert_allclose(out, want_out, atol=1e-12)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-12)
    assert out.dtype == np.float64 and np.all(weights >= 0)


@FAST
@given(st.integers(1, 8), st.integers(0, 5), seeds)
def test_causal_mask_zeroes_future_weights(t_q, extra, seed):
    rng = np.random.default_rng(seed)
    t_k = t_q + extra
    q, k, v = rng.normal(size=(2, t_q, 4)), rng.normal(size=(2, t_k, 4)), None
    v = rng.normal(size=(2, t_k, 3))
    _, weights = attention(q, k, v, causal=True, return_weights=True)
    for r in range(t_q):
        assert np.all(weights[:, r, t_k - t_q + r + 1 :] == 0)  # keys after query r
        assert np.all(weights[:, r, : t_k - t_q + r + 1] > 0)


@FAST
@given(sequence_and_permutation(), seeds)
def test_no_positions_means_permutation_equivariant(t_perm, seed):
    t, perm = t_perm
    x, w_q, w_k, w_v = random_head(seed, t)
    np.testing.assert_allclose(
        self_attention(x[perm], w_q, w_k, w_v),
        self_attention(x, w_q, w_k, w_v)[perm],
        atol=1e-12,
    )


def max_change_under_permutation(perm, run):
    """How far run(x[perm]) is from run(x)[perm]: 0 iff order is invisible."""
    return np.abs(run(perm) - run(np.arange(len(perm)))[perm]).max()


def not_identity(perm):
    return not np.array_equal(perm, np.arange(len(perm)))


@FAST
@given(sequence_and_permutation(), seeds)
def test_sinusoidal_table_breaks_permutation_equivariance(t_perm, seed):
    t, perm = t_perm
    assume(not_identity(perm))
    x, w_q, w_k, w_v = random_head(seed, t)
    pe = table(t, D_MODEL)  # added by position, not by token

    def run(order):
        return self_attention(x[order] + pe, w_q, w_k, w_v)

    assert max_change_under_permutation(perm, run) > 1e-6


@FAST
@given(sequence_and_permutation(), seeds)
def test_rope_breaks_permutation_equivariance(t_perm, seed):
    t, perm = t_perm
    assume(not_identity(perm))
    x, w_q, w_k, w_v = random_head(seed, t)

    def rotate(h):
        return apply_rope(h, np.arange(t))

    def run(order):
        return self_attention(x[order], w_q, w_k, w_v, rotate=rotate)

    assert max_change_under_permutation(perm, run) > 1e-6


@FAST
@given(sequence_and_permutation(), seeds)
def test_causal_alibi_breaks_permutation_equivariance(t_perm, seed):
    t, perm = t_perm
    assume(not_identity(perm))
    x, w_q, w_k, w_v = random_head(seed, t)
    bias = alibi_bias(1, t, t)[0]  # (T, T), -inf above the diagonal

    def run(order):
        return self_attention(x[order], w_q, w_k, w_v, bias=bias)

    assert max_change_under_permutation(perm, run) > 1e-6


@FAST
@given(sequence_and_permutation(min_len=3), seeds)
def test_symmetric_alibi_breaks_equivariance_except_for_reversal(t_perm, seed):
    t, perm = t_perm
    reversal = np.arange(t)[::-1]
    assume(not_identity(perm) and not np.array_equal(perm, reversal))
    x, w_q, w_k, w_v = random_head(seed, t)
    bias = alibi_bias(1, t, t, causal=False)[0]  # -m|i - j|, no mask

    def run(order):
        return self_attention(x[order], w_q, w_k, w_v, bias=bias)

    assert max_change_under_permutation(perm, run) > 1e-6
    # |i - j| is unchanged by reading the sequence backwards.
    assert max_change_under_permutation(reversal, run) < 1e-12


@FAST
@given(sequence_and_permutation(), seeds)
def test_causal_mask_alone_breaks_permutation_equivariance(t_perm, seed):
    t, perm = t_perm
    assume(not_identity(perm))
    x, w_q, w_k, w_v = random_head(seed, t)

    def run(order):
        return self_attention(x[order], w_q, w_k, w_v, causal=True)

    assert max_change_under_permutation(perm, run) > 1e-6


@FAST
@given(st.integers(2, 8), st.integers(-50, 10_000), seeds)
def test_rope_scores_depend_only_on_relative_position(t, shift, seed):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(3, t, D_HEAD))
    positions = rng.permutation(60)[:t]  # any positions, not only 0..T-1
    _, weights = attention(
        apply_rope(q, positions), apply_rope(k, positions), v, return_weights=True
    )
    moved = positions + shift
    _, moved_weights = attention(
        apply_rope(q, moved), apply_rope(k, moved), v, return_weights=True
    )
    np.testing.assert_allclose(moved_weights, weights, atol=1e-9)
    # without RoPE the same q, k give other weights, so the check can fail
    assert np.abs(attention(q, k, v, return_weights=True)[1] - weights).max() > 1e-9


@pytest.mark.parametrize("n_heads", [1, 4])
def test_alibi_on_equal_scores_gives_geometric_weights(n_heads):
    t = 6
    zeros = np.zeros((n_heads, t, 2))
    v = np.eye(t)[None].repeat(n_heads, 0)
    bias = alibi_bias(n_heads, t, t)
    _, weights = attention(zeros, zeros, v, bias=bias, return_weights=True)
    slopes = 2.0 ** (-8 * np.arange(1, n_heads + 1) / n_heads)
    for h, m in enumerate(slopes):
        row = np.exp(-m * np.arange(t)[::-1])  # last query, distances 5..0
        np.testing.assert_allclose(weights[h, -1], row / row.sum(), rtol=1e-12)


@FAST
@given(st.integers(1, 6), st.integers(0, 4), st.booleans(), seeds)
def test_torch_matches_numpy(t_q, extra, causal, seed):
    rng = np.random.default_rng(seed)
    t_k = t_q + extra
    q, k = rng.normal(size=(2, 3, t_q, 4)), rng.normal(size=(2, 3, t_k, 4))
    v = rng.normal(size=(2, 3, t_k, 5))
    bias = alibi_bias(3, t_q, t_k, causal=causal)
    want_out, want_weights = attention(
        q, k, v, bias=bias, causal=causal, return_weights=True
    )
    tq, tk, tv, tb = (torch.from_numpy(a) for a in (q, k, v, bias))
    out, weights = attention_torch(
        tq, tk, tv, bias=tb, causal=causal, return_weights=True
    )
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float64
    np.testing.assert_allclose(out.numpy(), want_out, atol=1e-12)
    np.testing.assert_allclose(weights.numpy(), want_weights, atol=1e-12)
    out32 = attention_torch(
        tq.float(), tk.float(), tv.float(), bias=tb.float(), causal=causal
    )
    np.testing.assert_allclose(out32.numpy(), want_out, atol=1e-5)


def test_bad_shapes_raise():
    q, k, v = np.zeros((3, 4)), np.zeros((5, 4)), np.zeros((5, 2))
    with pytest.raises(ValueError, match="got q"):
        attention(q, np.zeros((5, 3)), v)
    with pytest.raises(ValueError, match="got q"):
        attention(q, k, np.zeros((4, 2)))
    with pytest.raises(ValueError, match="Tq <= Tk"):
        attention(np.zeros((6, 4)), k, v, causal=True)
    assert attention(q, k, v, causal=True).shape == (3, 2)


@pytest.mark.parametrize("run", [attention, attention_torch])
def test_query_and_key_heads_that_do_not_broadcast_are_refused_by_name(run):
    """8 query heads against 2 key heads (grouped-query attention) needs k and v
    repeated first; the error says so and names q and k (it was NumPy's own)."""
    q, k = torch.zeros(2, 8, 5, 4), torch.zeros(2, 2, 5, 4)
    if run is attention:
        q, k = q.numpy(), k.numpy()
    with pytest.raises(ValueError, match=r"q's and k's leading dims .* got q \(2, 8"):
        run(q, k, k, causal=True)
    assert run(q, k[:, :1], k[:, :1], causal=True).shape == (2, 8, 5, 4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_bias_of_another_dtype_is_refused_by_name(dtype):
    q = k = v = torch.zeros(2, 3, 4, dtype=torch.bfloat16)
    bias = alibi_bias_torch(2, 3, 3, dtype=dtype)  # (H, Tq, Tk)
    with pytest.raises(TypeError, match=r"bias must have q's dtype torch\.bfloat16"):
        attention_torch(q, k, v, bias=bias)
    out = attention_torch(q, k, v, bias=bias.to(torch.bfloat16))
    assert out.dtype == torch.bfloat16


@pytest.mark.parametrize("scale", [None, 1.0, 0.03])
def test_scale_is_sdpas_scale_in_both_twins(scale):
    """`scale` multiplies the logits as scaled_dot_product_attention's does (None:
    1/sqrt(d)); with a causal ALiBi bias on Tq < Tk, and in the NumPy twin."""
    torch.manual_seed(1)
    q, k, v = torch.randn(2, 3, 4, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 5)
    bias = alibi_bias_torch(3, 4, 6)  # (H, Tq, Tk), -inf on future keys
    ours = attention_torch(q, k, v, bias=bias, scale=scale)
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, bias, scale=scale)
    torch.testing.assert_close(ours, sdpa, rtol=1e-5, atol=1e-5)
    reference = attention(
        q.numpy(), k.numpy(), v.numpy(), bias=bias.numpy(), scale=scale
    )
    np.testing.assert_allclose(reference, ours.double().numpy(), atol=1e-5)


def test_meta_tensors_pass_through_as_shapes():
    """Meta has no autocast: asking whether it is on raised for every meta call
    (a review of the autocast change), which shape inference with meta needs."""
    q = torch.empty(2, 3, 5, 8, device="meta")
    bias = alibi_bias_torch(3, 5, 5, device="meta")
    assert attention_torch(q, q, q, bias=bias, causal=True).shape == (2, 3, 5, 8)
    w = torch.empty(8, 8, device="meta")
    assert self_attention_torch(q, w, w, w).shape == (2, 3, 5, 8)


def test_under_autocast_a_float32_bias_meets_the_autocast_queries():
    """Under torch.autocast the projections come out bf16 while an ALiBi bias built
    in float32 stays so: the bias is cast, as autocast casts SDPA's mask, and the
    result is SDPA's (it was refused, naming bias). An integer bias is still
    refused."""
    torch.manual_seed(0)
    x, (w_q, w_k, w_v) = torch.randn(2, 5, 8), torch.randn(3, 8, 8)
    bias = alibi_bias_torch(2, 5, 5)  # (H, T, T) float32
    x = x[:, None].expand(2, 2, 5, 8)  # (B, H, T, d)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ours = self_attention_torch(x, w_q, w_k, w_v, bias=bias)
        q, k, v = x @ w_q, x @ w_k, x @ w_v
        sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, bias)
        with pytest.raises(TypeError, match="bias"):
            attention_torch(q, k, v, bias=bias.long())
    assert ours.dtype == sdpa.dtype == torch.bfloat16
    torch.testing.assert_close(ours, sdpa, rtol=2e-2, atol=2e-2)
    q32 = torch.randn(2, 5, 8)  # float32 q given straight to attention_torch
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = attention_torch(q32, q32, q32)
        sdpa = torch.nn.functional.scaled_dot_product_attention(q32, q32, q32)
    assert out.dtype == sdpa.dtype == torch.bfloat16  # the autocast dtype, as SDPA


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_a_bias_that_would_enlarge_the_logits_is_refused(backend):
    """(Tq, Tk) logits with a (7, Tq, Tk) bias would silently become 7 outputs."""
    q, k, v, bias = (
        np.zeros((3, 4)),
        np.zeros((5, 4)),
        np.zeros((5, 2)),
        np.zeros((7, 3, 5)),
    )
    run = attention if backend == "numpy" else attention_torch
    if backend == "torch":
        q, k, v, bias = (torch.from_numpy(a) for a in (q, k, v, bias))
    with pytest.raises(ValueError, match=r"bias must broadcast to the logits' shape"):
        run(q, k, v, bias=bias)
    assert run(q, k, v, bias=bias[0]).shape == (3, 2)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("v_shape", [(7, 2, 5, 6), (3, 5, 6)])
def test_values_whose_leading_dims_do_not_fit_are_refused_by_name(backend, v_shape):
    """From an engineer's review: v (7, 2, 5, 6) against q (2, 3, 4) silently gave
    a (7, 2, 3, 6) output; v (3, 5, 6) raised torch's or NumPy's own error."""
    q, k, v = np.zeros((2, 3, 4)), np.zeros((2, 5, 4)), np.zeros(v_shape)
    run = attention if backend == "numpy" else attention_torch
    if backend == "torch":
        q, k, v = (torch.from_numpy(a) for a in (q, k, v))
    with pytest.raises(
        ValueError, match=r"v's leading dims must broadcast to .* \(2,\)"
    ):
        run(q, k, v)
    assert run(q, k, v[:1] if len(v_shape) == 3 else v[0]).shape == (2, 3, 6)


@pytest.mark.parametrize("name", ["w_q", "w_v"])
def test_a_projection_of_another_dtype_is_refused_by_name(name):
    """From an engineer's review: it was matmul's "expected m1 and m2 to have the
    same dtype", naming no argument."""
    x, w = torch.zeros(2, 5, 8), torch.zeros(8, 4)
    weights = {"w_q": w, "w_k": w, "w_v": w} | {name: w.double()}
    with pytest.raises(TypeError, match=rf"{name} must have x's dtype torch\.float32"):
        self_attention_torch(x, *weights.values())


def _f64(*shape, seed):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=gen, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("causal", [False, True])
def test_gradcheck_attention_torch_with_alibi_bias(causal):
    q, k, v = _f64(3, 2, 4, seed=0), _f64(3, 5, 4, seed=1), _f64(3, 5, 2, seed=2)
    bias = alibi_bias_torch(3, 2, 5, causal=causal, dtype=torch.float64)  # (H, Tq, Tk)
    assert torch.autograd.gradcheck(
        lambda q, k, v: attention_torch(q, k, v, bias=bias, causal=causal),
        (q, k, v),
        fast_mode=True,  # random projections of the Jacobian: seconds, not minutes
    )


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_gradcheck_self_attention_torch_with_rope(layout):
    x, w_q = _f64(2, 5, 6, seed=3), _f64(6, 4, seed=4)  # (B, T, d_model), (d_model, d)
    w_k, w_v = _f64(6, 4, seed=5), _f64(6, 4, seed=6)

    def rotate(h):  # (B, T, d_head)
        return apply_rope_torch(h, torch.arange(5), layout=layout)

    def f(x, w_q, w_k, w_v):
        return self_attention_torch(x, w_q, w_k, w_v, rotate=rotate, causal=True)

    assert torch.autograd.gradcheck(f, (x, w_q, w_k, w_v), fast_mode=True)
    arrays = (a.detach().numpy() for a in (x, w_q, w_k, w_v))
    numpy_rotate = partial(apply_rope, positions=np.arange(5), layout=layout)
    want = self_attention(*arrays, rotate=numpy_rotate, causal=True)
    np.testing.assert_allclose(f(x, w_q, w_k, w_v).detach().numpy(), want, atol=1e-12)


def test_a_query_with_every_key_masked_gets_zeros_not_nan():
    """A review: with a left-padded batch (padded keys at -inf under ALiBi's causal
    bias) the padded queries came out NaN, and so did every gradient of q, k and
    v, even with those rows left out of the loss. As torch's SDPA: weights and
    output 0 there, finite gradients; the NumPy twin agrees."""
    gen = torch.Generator().manual_seed(4)
    q, k, v = (torch.randn(2, 4, 8, 16, generator=gen) for _ in range(3))
    q, k, v = (t.requires_grad_() for t in (q, k, v))
    pad = torch.tensor([[True] * 3 + [False] * 5, [False] * 8])  # (B, Tk)
    bias = alibi_bias_torch(4, 8, 8) + torch.where(pad, -math.inf, 0.0)[:, None, None]
    out, weights = attention_torch(q, k, v, bias=bias, return_weights=True)
    assert out[0, :, :3].abs().max() == 0 and weights[0, :, :3].abs().max() == 0
    sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    torch.testing.assert_close(out, sdpa, rtol=1e-5, atol=1e-5)
    torch.where(pad[:, None, :, None], 0.0, out).sum().backward()
    assert all(torch.isfinite(t.grad).all() for t in (q, k, v))
    arrays = [t.detach().double().numpy() for t in (q, k, v)]
    reference = attention(*arrays, bias=bias.double().numpy())
    np.testing.assert_allclose(reference, out.detach().double().numpy(), atol=1e-6)


def test_16_bit_logits_are_scaled_before_they_overflow():
    """q . k = 128 * 23**2 = 67,712 is past float16's 65,504: multiplying first
    and scaling after gave NaN; scaling q first (as SDPA does) does not."""
    q = torch.full((1, 1, 4, 128), 23.0, dtype=torch.float16)
    v = torch.randn(1, 1, 4, 128, generator=torch.Generator().manual_seed(5))
    out = attention_torch(q, q.clone(), v.half(), causal=True)
    wide = attention_torch(q.float(), q.float(), v, causal=True)
    torch.testing.assert_close(out.float(), wide, rtol=1e-2, atol=1e-2)


def test_gradcheck_attention_torch_through_a_learned_bias_a_scale_and_a_masked_row():
    """The bias as a trained parameter (T5's is), an explicit scale, and a query row
    whose every key is masked (its output and gradients are 0), in float64."""
    q, k, v = _f64(2, 3, 4, seed=3), _f64(2, 5, 4, seed=4), _f64(2, 5, 2, seed=5)
    bias = _f64(2, 3, 5, seed=6)
    masked = torch.zeros(2, 3, 5, dtype=torch.float64)
    masked[:, 0, :] = float("-inf")  # query 0 sees no key

    def run(q, k, v, bias):
        return attention_torch(q, k, v, bias=bias + masked, scale=0.3)

    assert torch.autograd.gradcheck(run, (q, k, v, bias), fast_mode=True)
