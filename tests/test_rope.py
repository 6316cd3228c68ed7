"""Tests for posenc_docs.rope.

Golden references are rebuilt here from the primary sources: the block-diagonal
rotation matrix R_m of RoFormer (Su et al. 2021, eq. 15) for the interleaved
layout, and Hugging Face's ``x * cos + rotate_half(x) * sin`` for the half layout.
"""

import itertools
import re
from functools import partial

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs import scaling
from posenc_docs.attention import attention_torch
from posenc_docs.mrope import apply_mrope_torch
from posenc_docs.partial_rotary import apply_partial_rope, apply_partial_rope_torch
from posenc_docs.rope import (
    LAYOUTS,
    RotaryEmbedding,
    angles,
    angles_torch,
    apply_rope,
    apply_rope_complex,
    apply_rope_complex_torch,
    apply_rope_torch,
    half_to_interleaved_permutation,
    interleaved_to_half_permutation,
    inv_freq,
    permute_qk_weight,
    relative_upper_bound,
    rotation_matrix,
)
from tests import _scalar

FAST = settings(max_examples=30, deadline=None)
FORMS = ("interleaved", "half", "complex")
BACKENDS = ("numpy", "torch64")
BF16_ATOL = 2e-2  # bf16 output rounding (~4e-3) + float32 angles at 131k (~1e-2)

even_dims = st.sampled_from([2, 4, 8, 16, 64])
positions_st = st.integers(0, 100_000)
seeds = st.integers(0, 2**32 - 1)


def torch_kwargs(kwargs):
    """The same keyword arguments with inv_freq as a tensor."""
    return {k: torch.as_tensor(v) if k == "inv_freq" else v for k, v in kwargs.items()}


def rotate(form, backend, x, positions, **kwargs):
    """Apply one RoPE form with one backend; always return a float64 array."""
    if backend == "torch64":
        x, positions = torch.from_numpy(x), torch.as_tensor(positions)
        kwargs = torch_kwargs(kwargs)
        if form == "complex":
            return apply_rope_complex_torch(x, positions, **kwargs).numpy()
        return apply_rope_torch(x, positions, layout=form, **kwargs).numpy()
    if form == "complex":
        return apply_rope_complex(x, positions, **kwargs)
    return apply_rope(x, positions, layout=form, **kwargs)


def paper_theta(d, base=10000.0):
    """RoFormer eq. 15: theta_i = base^(-2(i-1)/d), i = 1..d/2."""
    return np.array([base ** (-2 * (i - 1) / d) for i in range(1, d // 2 + 1)])


def roformer_matrix(m, d, base=10000.0):
    """R_m of RoFormer eq. 15: 2x2 rotations by m*theta_i down the diagonal."""
    R = np.zeros((d, d))
    for i, theta in enumerate(paper_theta(d, base)):
        c, s = np.cos(m * theta), np.sin(m * theta)
        R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]
    return R


def half_matrix(m, d, base=10000.0):
    """HF LLaMA: x*cos + rotate_half(x)*sin with cos = [cos, cos], as a matrix."""
    emb = np.concatenate([m * paper_theta(d, base)] * 2)  # (d,)
    half = d // 2
    rotate_half = np.zeros((d, d))  # rotate_half(x) = [-x2, x1]
    rotate_half[:half, half:] = -np.eye(half)
    rotate_half[half:, :half] = np.eye(half)
    return np.diag(np.cos(emb)) + np.diag(np.sin(emb)) @ rotate_half


# ---------------------------------------------------------------- properties


@FAST
@given(
    form=st.sampled_from(FORMS),
    backend=st.sampled_from(BACKENDS),
    d=even_dims,
    m=positions_st,
    n=positions_st,
    shift=positions_st,
    seed=seeds,
)
def test_score_depends_only_on_relative_position(form, backend, d, m, n, shift, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, 1, d))  # (T=1, d) each

    def score(qpos, kpos):
        q_rot = rotate(form, backend, q, [qpos])
        return float(q_rot[0] @ rotate(form, backend, k, [kpos])[0])

    assert score(m, n) == pytest.approx(score(m + shift, n + shift), abs=1e-8 * d)


@FAST
@given(
    form=st.sampled_from(FORMS),
    backend=st.sampled_from(BACKENDS),
    d=even_dims,
    positions=st.lists(st.floats(-1e5, 1e5), min_size=1, max_size=6),
    seed=seeds,
)
def test_rotation_preserves_norm(form, backend, d, positions, seed):
    x = np.random.default_rng(seed).standard_normal((len(positions), d))
    out = rotate(form, backend, x, positions)
    np.testing.assert_allclose(
        np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12
    )


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("dtype", [np.float64, torch.float32, torch.bfloat16])
def test_position_zero_is_identity(form, dtype):
    x = np.random.default_rng(0).standard_normal((2, 5, 16))
    zeros = [0] * 5
    if dtype is not np.float64:
        x, zeros = torch.from_numpy(x).to(dtype), torch.tensor(zeros)
    complex_form = (
        apply_rope_complex if dtype is np.float64 else apply_rope_complex_torch
    )
    pair_form = apply_rope if dtype is np.float64 else apply_rope_torch
    if form == "complex":
        out = complex_form(x, zeros)
    else:
        out = pair_form(x, zeros, layout=form)
    assert out.dtype == x.dtype
    assert (out == x).all()


@FAST
@given(
    form=st.sampled_from(FORMS),
    backend=st.sampled_from(BACKENDS),
    d=even_dims,
    m=positions_st,
    n=positions_st,
    seed=seeds,
)
def test_rotating_by_m_then_n_is_rotating_by_m_plus_n(form, backend, d, m, n, seed):
    x = np.random.default_rng(seed).standard_normal((3, d))
    twice = rotate(form, backend, rotate(form, backend, x, [m] * 3), [n] * 3)
    np.testing.assert_allclose(twice, rotate(form, backend, x, [m + n] * 3), atol=1e-9)


# ------------------------------------------------------------ golden values


@pytest.mark.parametrize("d", [2, 8, 16])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
@pytest.mark.parametrize("backend", BACKENDS)
def test_matches_roformer_rotation_matrix(d, base, backend):
    positions = [0, 1, 7, 1000, 123_456]
    x = np.random.default_rng(d).standard_normal((len(positions), d))
    expected = np.stack(
        [roformer_matrix(m, d, base) @ v for m, v in zip(positions, x, strict=True)]
    )
    for form in ("interleaved", "complex"):
        out = rotate(form, backend, x, positions, base=base)
        np.testing.assert_allclose(out, expected, atol=1e-10)
    expected_half = np.stack(
        [half_matrix(m, d, base) @ v for m, v in zip(positions, x, strict=True)]
    )
    out = rotate("half", backend, x, positions, base=base)
    np.testing.assert_allclose(out, expected_half, atol=1e-10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_complex_form_equals_interleaved(backend):
    x = np.random.default_rng(1).standard_normal((2, 3, 7, 32))
    positions = np.arange(7) * 997
    np.testing.assert_allclose(
        rotate("complex", backend, x, positions),
        rotate("interleaved", backend, x, positions),
        atol=1e-10,
    )


def test_complex_form_takes_float64_frequencies_to_the_end_as_interleaved_does():
    """Float64 frequencies (as posenc_docs.scaling returns them) give float64
    angles; the complex form rounded them to float32 before sin/cos: at 131,071
    that is a 4.6e-3 error against 2.3e-7 for the interleaved form."""
    theta, _ = scaling.yarn(
        128, 1e4, factor=32.0, original_max_position_embeddings=4096
    )
    x = torch.randn(1, 8, 128, generator=torch.Generator().manual_seed(3))
    positions = torch.arange(131_064, 131_072)
    reference = apply_rope(x.double().numpy(), positions.numpy(), inv_freq=theta)
    for form in (
        apply_rope_complex_torch,
        partial(apply_rope_torch, layout="interleaved"),
    ):
        out = form(x, positions, inv_freq=torch.from_numpy(theta))
        np.testing.assert_allclose(out.double().numpy(), reference, atol=1e-6)


def test_inv_freq_and_angles_follow_the_paper():
    np.testing.assert_allclose(inv_freq(64, 500000.0), paper_theta(64, 500000.0))
    pos = np.array([0, 3, 131_071])
    np.testing.assert_array_equal(
        angles(pos, inv_freq(8)), np.outer(pos, paper_theta(8))
    )
    pos_t = torch.tensor(pos)
    assert angles_torch(pos_t, torch.ones(4)).dtype == torch.float32
    bf16 = torch.ones(4, dtype=torch.bfloat16)
    assert angles_torch(pos_t, bf16).dtype == torch.float32
    assert angles_torch(pos_t, torch.from_numpy(inv_freq(8))).dtype == torch.float64
    # float32 holds every position below 2^24 exactly; bf16 would not (131071 -> 131072)
    assert angles_torch(pos_t, torch.ones(1))[-1, 0].item() == 131_071
    assert angles(pos.reshape(1, 3), inv_freq(8)).shape == (1, 3, 4)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [2, 8])
@pytest.mark.parametrize("m", [0, 3, 1000.5])
def test_rotation_matrix_is_roformer_eq15(layout, d, m):
    expected = roformer_matrix(m, d) if layout == "interleaved" else half_matrix(m, d)
    R = rotation_matrix(m, d, layout=layout)
    np.testing.assert_allclose(R, expected, atol=1e-12)
    x = np.random.default_rng(d).standard_normal(d)
    np.testing.assert_allclose(apply_rope(x[None], [m], layout=layout)[0], R @ x)
    R_n = rotation_matrix(m + 7, d, layout=layout)  # R_m^T R_n = R_(n-m)
    np.testing.assert_allclose(
        R.T @ R_n, rotation_matrix(7, d, layout=layout), atol=1e-9
    )


def roformer_bound_loop(distance, d, base):
    """RoFormer 3.4.3: (1/(d/2)) sum_j |S_j|, S_j = sum_{i<j} e^(i r theta_i)."""
    theta = paper_theta(d, base)
    total, partial = 0.0, 0j
    for j in range(d // 2):
        partial += complex(np.cos(distance * theta[j]), np.sin(distance * theta[j]))
        total += abs(partial)
    return total / (d // 2)


@pytest.mark.parametrize(("d", "base"), [(128, 10000.0), (64, 500000.0), (2, 10.0)])
def test_relative_upper_bound_is_roformer_343(d, base):
    distances = np.array([0, 1, 5, 256, 1000.5, 65536])
    got = relative_upper_bound(distances, d, base)
    want = [roformer_bound_loop(r, d, base) for r in distances]
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert relative_upper_bound(0, d, base) == pytest.approx((d // 2 + 1) / 2)
    assert got.shape == distances.shape


# --------------------------------------------------- layouts and permutations


def attention_scores(x, w_q, w_k, n_heads, layout, positions):
    """(n_heads, T, T) RoPE logits q_m . k_n of one layer, without scaling."""
    T, d = x.shape[0], w_q.shape[0] // n_heads

    def heads(w):  # (T, hidden) @ (hidden, n_heads*d) -> (n_heads, T, d)
        y = (x @ w.T).reshape(T, n_heads, d).transpose(1, 0, 2)
        return apply_rope(y, positions, layout=layout)

    return heads(w_q) @ heads(w_k).transpose(0, 2, 1)


@FAST
@given(n_heads=st.integers(1, 4), d=st.sampled_from([4, 8, 16]), seed=seeds)
def test_layouts_give_identical_scores_after_permuting_weights(n_heads, d, seed):
    rng = np.random.default_rng(seed)
    hidden, T = 12, 6
    x = rng.standard_normal((T, hidden))
    w_q, w_k = rng.standard_normal((2, n_heads * d, hidden))  # Meta (interleaved)
    positions = rng.integers(0, 5000, T)
    meta = attention_scores(x, w_q, w_k, n_heads, "interleaved", positions)

    to_half = interleaved_to_half_permutation(d)
    w_q_hf, w_k_hf = (permute_qk_weight(w, n_heads, to_half) for w in (w_q, w_k))
    hf = attention_scores(x, w_q_hf, w_k_hf, n_heads, "half", positions)
    np.testing.assert_allclose(hf, meta, atol=1e-9)
    # the pitfall: half layout on unpermuted Meta weights gives other scores
    wrong = attention_scores(x, w_q, w_k, n_heads, "half", positions)
    assert not np.allclose(wrong, meta, atol=1e-3)

    to_interleaved = half_to_interleaved_permutation(d)
    back = permute_qk_weight(w_q_hf, n_heads, to_interleaved)
    np.testing.assert_array_equal(back, w_q)
    w_torch = permute_qk_weight(torch.from_numpy(w_q), n_heads, to_half)
    np.testing.assert_array_equal(w_torch.numpy(), w_q_hf)


@pytest.mark.parametrize("d", [2, 4, 8, 128])
def test_permutations_match_hf_conversion_and_invert(d):
    n_heads, hidden = 3, 5
    w = np.arange(n_heads * d * hidden, dtype=float).reshape(n_heads * d, hidden)
    expected = np.empty_like(w)  # HF permute: new row c*d/2 + i <- old row 2i + c
    for head in range(n_heads):
        for c in (0, 1):
            for i in range(d // 2):
                expected[head * d + c * d // 2 + i] = w[head * d + 2 * i + c]
    to_half, to_inter = (
        interleaved_to_half_permutation(d),
        half_to_interleaved_permutation(d),
    )
    np.testing.assert_array_equal(permute_qk_weight(w, n_heads, to_half), expected)
    np.testing.assert_array_equal(to_half[to_inter], np.arange(d))
    np.testing.assert_array_equal(to_inter[to_half], np.arange(d))
    bias = w[:, 0]  # a q/k bias is permuted the same way
    np.testing.assert_array_equal(
        permute_qk_weight(bias, n_heads, to_half), expected[:, 0]
    )


# -------------------------------------------------------- torch vs NumPy, dtypes


@pytest.mark.parametrize("form", FORMS)
def test_torch_agrees_with_numpy(form):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 9, 16))
    positions = rng.integers(0, 2048, (2, 1, 9))  # per-sequence positions
    scaled = inv_freq(16) / 4  # e.g. from a scaling method
    for kwargs in ({}, {"inv_freq": scaled}, {"base": 500000.0}):
        ref = rotate(form, "numpy", x, positions, **kwargs)
        np.testing.assert_allclose(
            rotate(form, "torch64", x, positions, **kwargs), ref, atol=1e-12
        )
        x32 = torch.from_numpy(x).float()
        pos_t = torch.from_numpy(positions)
        kwargs = torch_kwargs(kwargs)
        if form == "complex":
            out32 = apply_rope_complex_torch(x32, pos_t, **kwargs)
        else:
            out32 = apply_rope_torch(x32, pos_t, layout=form, **kwargs)
        assert out32.dtype == torch.float32
        # float32 angles drift ~6e-8 * position (reference_numerics.md section 4)
        np.testing.assert_allclose(out32.numpy(), ref, atol=1e-6 + 2e-7 * 2048 * 4)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_torch_non_contiguous_input(layout):
    big = torch.randn(2, 9, 3, 2 * 16 + 1, generator=torch.Generator().manual_seed(3))
    x = big[..., 1:17].transpose(1, 2)  # (B, H, T, d): odd offset, strided
    positions = torch.arange(9)
    expected = apply_rope_torch(x.contiguous(), positions, layout=layout)
    torch.testing.assert_close(apply_rope_torch(x, positions, layout=layout), expected)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_contiguous_tensor_at_an_odd_storage_offset_rotates_interleaved(dtype):
    """A tensor cut from a flat buffer at an odd element is contiguous, yet no
    complex view reads it (torch wants an even offset): `.contiguous()` returned
    it as it was and the interleaved layout raised "Tensor must have a
    storage_offset divisible by 2"."""
    gen = torch.Generator().manual_seed(21)
    x = torch.randn(1 + 2 * 3 * 5 * 8, generator=gen, dtype=dtype)[1:].view(2, 3, 5, 8)
    assert x.is_contiguous() and x.storage_offset() == 1
    positions = np.arange(4, 9)
    expected = apply_rope(x.numpy(), positions)  # the NumPy reference, interleaved
    exact = {} if dtype == torch.float64 else {"rtol": 1e-6, "atol": 1e-6}
    got = {
        "apply_rope_torch": apply_rope_torch(x, torch.from_numpy(positions)),
        "apply_rope_complex_torch": apply_rope_complex_torch(
            x, torch.from_numpy(positions)
        ),
    }
    for name, out in got.items():
        np.testing.assert_allclose(out.numpy(), expected, **exact, err_msg=name)
    module = RotaryEmbedding(8, layout="interleaved")  # float32 frequencies
    got = module(x, x, 4)[0].numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def _bf16_case():
    gen = torch.Generator().manual_seed(0)
    d, T = 128, 256
    near_end = torch.arange(131_072 - 128, 131_072 + 1)
    positions = torch.cat(
        [near_end, torch.randint(0, 131_073, (T - 129,), generator=gen)]
    )
    x = (torch.rand(2, T, d, generator=gen) * 2 - 1).to(torch.bfloat16)  # unit scale
    return x, positions


@pytest.mark.parametrize("layout", LAYOUTS)
def test_bf16_inputs_at_large_positions_stay_accurate(layout):
    x, positions = _bf16_case()
    ref = apply_rope(x.double().numpy(), positions.numpy(), layout=layout)
    out = apply_rope_torch(x, positions, layout=layout)
    assert out.dtype == torch.bfloat16
    np.testing.assert_allclose(out.double().numpy(), ref, atol=BF16_ATOL)


def test_bf16_angles_would_fail_the_same_tolerance():
    x, positions = _bf16_case()
    theta = torch.from_numpy(inv_freq(x.shape[-1]))
    angle = (positions.to(torch.bfloat16)[:, None] * theta.to(torch.bfloat16)).float()
    cos, sin = angle.cos(), angle.sin()
    x1, x2 = x.float().chunk(2, dim=-1)
    naive = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).bfloat16()
    ref = apply_rope(x.double().numpy(), positions.numpy(), layout="half")
    assert np.abs(naive.double().numpy() - ref).max() > 10 * BF16_ATOL


# ------------------------------------------------------------ RotaryEmbedding


@pytest.mark.parametrize("layout", LAYOUTS)
def test_module_offset_decoding_matches_full_sequence(layout):
    gen = torch.Generator().manual_seed(4)
    q, k = (
        torch.randn(2, 3, 10, 8, generator=gen),
        torch.randn(2, 1, 10, 8, generator=gen),
    )
    rope = RotaryEmbedding(8, layout=layout, max_len=16)
    q_full, k_full = rope(q, k)
    expected = apply_rope_torch(q, torch.arange(10), layout=layout)
    torch.testing.assert_close(q_full, expected)
    for t in range(10):
        q_t, k_t = rope(q[..., t : t + 1, :], k[..., t : t + 1, :], offset=t)
        torch.testing.assert_close(q_t, q_full[..., t : t + 1, :])
        torch.testing.assert_close(k_t, k_full[..., t : t + 1, :])


@pytest.mark.parametrize("cast", ["bfloat16", "half", "double", "to_dtype_in_parent"])
def test_module_cast_keeps_float32_buffers(cast):
    rope = RotaryEmbedding(64, max_len=8192, layout="interleaved")
    theta, cos = rope.inv_freq.clone(), rope.cos_cached.clone()
    if cast == "to_dtype_in_parent":
        torch.nn.ModuleDict({"rope": rope}).to(torch.bfloat16)
    else:
        getattr(rope, cast)()
    for buffer, before in ((rope.inv_freq, theta), (rope.cos_cached, cos)):
        assert buffer.dtype == torch.float32
        assert torch.equal(buffer, before)
    assert rope.state_dict() == {}  # non-persistent: checkpoints stay clean

    q = torch.rand(1, 2, 4, 64, dtype=torch.float64).to(torch.bfloat16)
    q_rot, _ = rope(q, q, offset=8000)
    assert q_rot.dtype == torch.bfloat16
    ref = apply_rope(q.double().numpy(), np.arange(8000, 8004))
    np.testing.assert_allclose(q_rot.double().numpy(), ref, atol=BF16_ATOL)


def test_module_cache_grows_past_max_len():
    rope = RotaryEmbedding(16, max_len=4)
    q = torch.randn(1, 2, 3, 16, generator=torch.Generator().manual_seed(5))
    q_rot, _ = rope(q, q, offset=3)  # positions 3..5 continue the cache's 0..3
    assert rope.cos_cached.shape[0] == 8  # doubled
    rope(q, q, offset=8)  # starts exactly at the end: continues it
    assert rope.cos_cached.shape[0] == 16
    torch.testing.assert_close(
        q_rot, apply_rope_torch(q, torch.arange(3, 6), layout="half")
    )
    fresh = RotaryEmbedding(16, max_len=64)
    n = rope.cos_cached.shape[0]
    torch.testing.assert_close(rope.sin_cached, fresh.sin_cached[:n], rtol=0, atol=0)


def test_positions_far_past_the_cache_are_computed_alone():
    """A review: one decoding step at position 10**6 built a cache of every
    position from 0 (512 MB at d = 128), and the next step doubled it. Positions
    that start past the cache's end are now computed alone, the same numbers as
    a cache that holds them."""
    small, covering = RotaryEmbedding(8, max_len=4), RotaryEmbedding(8, max_len=1030)
    q = torch.randn(1, 2, 3, 8, generator=torch.Generator().manual_seed(5))
    for offset in (5, 1000, 1001):  # 5: past the end (4), not continuing it
        got, expected = small(q, q, offset=offset), covering(q, q, offset=offset)
        for a, b in zip(got, expected, strict=True):
            torch.testing.assert_close(a, b, rtol=0, atol=0)
        assert small.cos_cached.shape[0] == 4


def test_module_attention_factor_scales_scores_by_its_square():
    gen = torch.Generator().manual_seed(6)
    q, k = torch.randn(2, 1, 2, 5, 32, generator=gen, dtype=torch.float64)
    scores = {}
    for factor in (1.0, 1.3):
        q_rot, k_rot = RotaryEmbedding(32, attention_factor=factor)(q, k, offset=3)
        scores[factor] = q_rot @ k_rot.transpose(-1, -2)
    # float32 cache: cos and sin carry the factor rounded to float32
    torch.testing.assert_close(scores[1.3], 1.3**2 * scores[1.0], rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_no_tokens_rotate_to_no_tokens(layout):
    """T = 0 (an empty prompt, a padded batch's empty row) gives (..., 0, d), like
    the torch twin; the interleaved NumPy form could not reshape a size-0 array."""
    x, positions = np.zeros((2, 0, 8)), np.arange(0)
    shapes = {
        apply_rope(x, positions, layout=layout).shape,
        apply_partial_rope(x, positions, rotary_dim=4, layout=layout).shape,
        apply_rope_complex(x, positions).shape,
        apply_rope_torch(torch.zeros(2, 0, 8), torch.arange(0), layout=layout).shape,
    }
    assert shapes == {(2, 0, 8)}


def rotated_everywhere(module, q):
    """q rotated at offsets 0 .. 2 and far past the cache (which grows it)."""
    return [module(q, q, offset=offset)[0] for offset in (0, 2, 100)]


@pytest.mark.parametrize(
    "change",
    ["assign inv_freq", "write inv_freq in place", "assign attention_factor"],
)
def test_a_frequency_or_factor_set_on_the_module_holds_at_every_position(change):
    """Hugging Face's dynamic RoPE update assigns or overwrites inv_freq: the next
    call uses the new values at every position, whether or not the cache grows,
    and a move keeps them (the cache was built once, from the old ones)."""
    gen = torch.Generator().manual_seed(7)
    q = torch.randn(1, 2, 3, 8, generator=gen)
    new_freq = torch.from_numpy(scaling.linear(8, factor=4.0)[0]).float()
    factor = 1.5 if change == "assign attention_factor" else 1.0
    freq = None if change == "assign attention_factor" else new_freq
    wanted = RotaryEmbedding(8, inv_freq=freq, attention_factor=factor, max_len=4)
    module = RotaryEmbedding(8, max_len=4)
    module(q, q)  # built and used with the old values
    if change == "assign inv_freq":
        module.inv_freq = new_freq.clone()
    elif change == "write inv_freq in place":
        module.inv_freq.copy_(new_freq)
    else:
        module.attention_factor = factor
    for got, expected in zip(
        rotated_everywhere(module, q), rotated_everywhere(wanted, q), strict=True
    ):
        torch.testing.assert_close(got, expected, rtol=0, atol=0)
    module.to("cpu")
    torch.testing.assert_close(module(q, q, offset=2)[0], wanted(q, q, offset=2)[0])


def test_a_new_inv_freq_is_seen_even_where_it_takes_a_freed_tensors_id():
    """The cache was keyed by id(inv_freq): a tensor assigned after the one the
    cache was built from had been freed could take its id (CPython reuses the
    memory) and the module kept rotating by the old frequencies."""
    q = torch.randn(1, 1, 6, 8, generator=torch.Generator().manual_seed(3))
    for _ in range(3):
        module = RotaryEmbedding(8, max_len=6)  # cache built from tensor A
        module.inv_freq = torch.full((4,), 0.5)  # B: A is freed
        module.inv_freq = torch.full((4,), 0.25)  # C, made while B lives: A's id
        wanted = apply_rope_torch(
            q, torch.arange(6), layout="half", inv_freq=module.inv_freq
        )
        torch.testing.assert_close(module(q, q)[0], wanted, rtol=0, atol=1e-6)


def test_an_attention_factor_set_on_the_module_is_checked():
    module = RotaryEmbedding(8)
    module.attention_factor = -1.0
    q = torch.zeros(1, 1, 2, 8)
    with pytest.raises(ValueError, match="attention_factor"):
        module(q, q)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_float64_x_turns_by_float64_angles_whatever_inv_freqs_dtype(layout):
    """The docstring: angles are float64 if x is. Far positions show the difference
    (a float32 angle near 4e6 is off by up to 0.25 rad)."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2, 5, 16, generator=gen, dtype=torch.float64)
    positions = torch.arange(4_000_000, 4_000_005)
    theta = inv_freq(16)  # float64 numpy
    want = apply_rope(x.numpy(), positions.numpy(), inv_freq=theta, layout=layout)
    for frequencies in (torch.from_numpy(theta).float(), torch.from_numpy(theta)):
        got = apply_rope_torch(x, positions, inv_freq=frequencies, layout=layout)
        assert got.dtype == torch.float64
        # theta itself rounded to float32 moves m*theta by up to ~0.1 rad: compare
        # with the float64 reference fed the same rounded frequencies
        ref = apply_rope(
            x.numpy(),
            positions.numpy(),
            inv_freq=frequencies.double().numpy(),
            layout=layout,
        )
        np.testing.assert_allclose(got.numpy(), ref, atol=1e-9)
    np.testing.assert_allclose(got.numpy(), want, atol=1e-9)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_module_with_given_inv_freq(layout):
    theta = inv_freq(16, 500000.0) / 8
    q = torch.randn(1, 2, 6, 16, generator=torch.Generator().manual_seed(7))
    q_rot, _ = RotaryEmbedding(16, inv_freq=theta, layout=layout)(q, q, offset=100)
    expected = apply_rope(
        q.double().numpy(), np.arange(100, 106), inv_freq=theta, layout=layout
    )
    np.testing.assert_allclose(q_rot.numpy(), expected, atol=1e-4)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize(
    ("shape", "positions", "kwargs", "match"),
    [
        ((4, 7), np.arange(4), {}, r"x\.shape\[-1\]"),
        ((4, 8), np.arange(4), {"inv_freq": np.ones(3)}, "inv_freq"),
        ((4, 8), np.arange(4), {"layout": "neox"}, "layout"),
        ((4, 8), np.arange(5), {}, "positions"),
        ((2, 3, 4, 8), np.zeros((2, 4)), {}, "positions"),
        ((8,), np.arange(1), {}, "x must have at least 2 dims"),
    ],
)
def test_bad_input_names_the_argument(backend, shape, positions, kwargs, match):
    x, pair_form, complex_form = np.zeros(shape), apply_rope, apply_rope_complex
    if backend == "torch":
        x, positions = torch.from_numpy(x), torch.from_numpy(positions)
        kwargs = torch_kwargs(kwargs)
        pair_form, complex_form = apply_rope_torch, apply_rope_complex_torch
    with pytest.raises(ValueError, match=match):
        pair_form(x, positions, **kwargs)
    if "layout" not in kwargs:
        with pytest.raises(ValueError, match=match):
            complex_form(x, positions, **kwargs)


def test_bad_input_elsewhere_names_the_argument():
    with pytest.raises(ValueError, match="d must"):
        inv_freq(7)
    with pytest.raises(ValueError, match="base"):
        inv_freq(8, base=1.0)
    with pytest.raises(ValueError, match="d must"):
        interleaved_to_half_permutation(5)
    with pytest.raises(ValueError, match="d must"):
        RotaryEmbedding(9)
    with pytest.raises(ValueError, match="layout"):
        RotaryEmbedding(8, layout="rotate_half")
    with pytest.raises(ValueError, match="inv_freq"):
        RotaryEmbedding(8, inv_freq=np.ones(3))
    rope = RotaryEmbedding(8)
    with pytest.raises(ValueError, match="k must"):
        rope(torch.zeros(1, 1, 2, 8), torch.zeros(1, 1, 2, 6))
    with pytest.raises(ValueError, match="offset"):
        rope(torch.zeros(1, 1, 2, 8), torch.zeros(1, 1, 2, 8), offset=-1)
    with pytest.raises(ValueError, match="perm"):
        permute_qk_weight(np.zeros((10, 3)), 2, interleaved_to_half_permutation(4))
    with pytest.raises(TypeError, match="x must"):
        apply_rope_torch([[1.0, 2.0]], torch.tensor([0]))
    with pytest.raises(TypeError, match="floating"):
        apply_rope_torch(torch.ones(2, 4, dtype=torch.int64), torch.arange(2))


# ------------------------------------------------------------ autograd


def _f64(*shape, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=gen, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("form", FORMS)
def test_gradcheck_functions(form):
    x, theta = _f64(2, 3, 5, 8), torch.rand(4, dtype=torch.float64) + 0.1
    theta.requires_grad_()  # learned frequencies get gradients too
    per_sequence = torch.tensor([[0, 3, 7, 100, 9], [1, 2, 3, 4, 5]]).view(2, 1, 5)

    def f(x, theta):
        if form == "complex":
            return apply_rope_complex_torch(x, per_sequence, inv_freq=theta)
        return apply_rope_torch(x, per_sequence, inv_freq=theta, layout=form)

    assert torch.autograd.gradcheck(  # batched: forward-mode jacobians, vmap
        f, (x, theta), check_forward_ad=True, check_batched_forward_grad=True
    )
    # x broadcast against positions: (1, 3, 5, 8) x (2, 1, 5) -> (2, 3, 5, 8)
    x_one = x[:1].detach().requires_grad_()
    assert torch.autograd.gradcheck(lambda x: f(x, theta.detach()), (x_one,))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradcheck_module_with_offset_factor_and_yarn_frequencies(layout):
    q, k = _f64(1, 2, 6, 16, seed=1), _f64(1, 1, 6, 16, seed=2)  # (B, H, T, d)
    theta, factor = scaling.yarn(16, factor=4.0, original_max_position_embeddings=32)
    assert factor != 1.0
    for module in (
        RotaryEmbedding(16, layout=layout, max_len=8),
        RotaryEmbedding(16, layout=layout, inv_freq=theta, attention_factor=factor),
    ):
        assert torch.autograd.gradcheck(
            partial(module, offset=5),
            (q, k),
            check_forward_ad=True,
            check_batched_forward_grad=True,
        )


def _rotate_half_by_formula(x, positions):
    """HF's x cos + rotate_half(x) sin in plain differentiable ops: the reference."""
    theta = torch.from_numpy(inv_freq(x.shape[-1])).to(x.dtype)
    angle = positions[..., None].to(x.dtype) * theta
    cos, sin = torch.cat([angle.cos()] * 2, -1), torch.cat([angle.sin()] * 2, -1)
    a, b = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-b, a], dim=-1) * sin


@pytest.mark.parametrize("layout", LAYOUTS)
def test_second_order_gradients(layout):
    """Double backward through the rotation (gradient penalties, MAML,
    Hessian-vector products), function and module."""
    x, positions = _f64(2, 3, 5, 8, seed=3), torch.arange(2, 7)
    rope = RotaryEmbedding(8, layout=layout)
    assert torch.autograd.gradgradcheck(lambda x: rope(x, x, offset=2)[0], (x,))
    assert torch.autograd.gradgradcheck(
        lambda x: apply_rope_torch(x, positions, layout=layout), (x,)
    )


def test_half_layout_gradient_penalty_equals_the_plain_formulas():
    """The half layout's hand-written backward is itself differentiable: a
    gradient penalty's gradient equals that of HF's formula in plain ops."""
    x, positions, w = _f64(2, 3, 5, 8, seed=3).detach(), torch.arange(2, 7), _f64(8, 8)
    results = []
    for rotate in (partial(apply_rope_torch, layout="half"), _rotate_half_by_formula):
        out = rotate(x @ w, positions)
        penalty = (out[..., :4] * out[..., 4:]).sum()
        (g,) = torch.autograd.grad(penalty, w, create_graph=True)
        results.append(torch.autograd.grad(g.square().sum(), w)[0])
    torch.testing.assert_close(*results, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_torch_func_transforms_match_autograd(layout):
    """torch.func.grad, vmap and jvp trace the rotation (the half layout's custom
    autograd.Function steps aside for them)."""
    from torch.func import grad, jvp, vmap

    x, positions = _f64(2, 3, 4, 8, seed=5).detach(), torch.arange(4)
    rotate = partial(apply_rope_torch, positions=positions, layout=layout)
    x_leaf = x.clone().requires_grad_()
    rotate(x_leaf).square().sum().backward()
    torch.testing.assert_close(grad(lambda x: rotate(x).square().sum())(x), x_leaf.grad)
    torch.testing.assert_close(vmap(rotate)(x), rotate(x))
    tangent = torch.ones_like(x)
    torch.testing.assert_close(jvp(rotate, (x,), (tangent,))[1], rotate(tangent))


def test_module_refuses_queries_and_keys_of_different_lengths():
    """Both are rotated from offset: all cached keys with one new query would be
    silently misplaced."""
    rope = RotaryEmbedding(8)
    with pytest.raises(ValueError, match=r"q and k .* q.shape=\(1, 2, 1, 8\)"):
        rope(torch.zeros(1, 2, 1, 8), torch.zeros(1, 2, 5, 8), offset=4)


def test_an_inference_pass_that_grows_the_cache_leaves_the_module_trainable():
    rope = RotaryEmbedding(16, max_len=8)
    with torch.inference_mode():  # e.g. an evaluation loop, longer than the cache
        rope(torch.randn(1, 2, 20, 16), torch.randn(1, 2, 20, 16))
    assert not rope.cos_cached.is_inference() and rope.cos_cached.shape[0] >= 20
    q = torch.randn(1, 2, 4, 16, requires_grad=True)
    rope(q, q)[0].sum().backward()
    assert q.grad is not None


def test_a_module_built_or_updated_under_inference_mode_works_and_trains():
    """Built under torch.inference_mode (as a server builds its model), or given
    frequencies made there, the module raised 'Inference tensors do not track
    version counter'; its buffers must also take in-place writes after."""
    q = torch.randn(1, 2, 5, 16, generator=torch.Generator().manual_seed(4))
    slower = torch.from_numpy(inv_freq(16)).float() / 4
    with torch.inference_mode():
        built_there = RotaryEmbedding(16, max_len=4)
        updated_there = RotaryEmbedding(16)
        updated_there.inv_freq = slower.clone()  # an inference tensor
        got = built_there(q, q)[0], updated_there(q, q)[0]
    expected = (
        RotaryEmbedding(16)(q, q)[0],
        RotaryEmbedding(16, inv_freq=slower)(q, q)[0],
    )
    for g, e in zip(got, expected, strict=True):
        torch.testing.assert_close(g, e, rtol=0, atol=0)
    with torch.no_grad():
        built_there.inv_freq.mul_(0.25)  # an inference buffer would refuse this
    torch.testing.assert_close(built_there(q, q)[0], expected[1], rtol=0, atol=0)
    leaf = q.clone().requires_grad_()
    built_there(leaf, leaf)[0].sum().backward()
    assert leaf.grad is not None


@pytest.mark.parametrize("layout", LAYOUTS)
def test_batched_grads_and_vectorized_jacobians_equal_one_at_a_time(layout):
    """Autograd's own vmap (is_grads_batched, jacobian(vectorize=True)) cannot
    run the half layout's as_strided writes: it raised 'Batching rule not
    implemented for aten::alias'."""
    x = _f64(1, 2, 4, 8, seed=11)
    rope, positions = RotaryEmbedding(8, layout=layout), torch.arange(4)
    cotangents = torch.randn(3, *x.shape, dtype=torch.float64)
    out = rope(x, x)[0]
    grad = partial(torch.autograd.grad, out, x, retain_graph=True)
    (batched,) = grad(cotangents, is_grads_batched=True)
    torch.testing.assert_close(batched, torch.stack([grad(c)[0] for c in cotangents]))
    rotate = partial(apply_rope_torch, positions=positions, layout=layout)
    jacobian = torch.autograd.functional.jacobian
    torch.testing.assert_close(
        jacobian(rotate, x, vectorize=True), jacobian(rotate, x, vectorize=False)
    )


def _rotary_lm(vocab=11, d_model=16):
    """A one-layer causal LM using RotaryEmbedding and attention_torch with defaults."""
    torch.manual_seed(0)
    embed, head = torch.nn.Embedding(vocab, d_model), torch.nn.Linear(d_model, vocab)
    qkv, rope = torch.nn.Linear(d_model, 3 * d_model), RotaryEmbedding(d_model)
    params = [*embed.parameters(), *head.parameters(), *qkv.parameters()]

    def logits(tokens):  # (B, T) -> (B, T, vocab)
        q, k, v = qkv(embed(tokens))[:, None].chunk(3, dim=-1)  # (B, 1, T, d) each
        q, k = rope(q, k)
        return head(attention_torch(q, k, v, causal=True)[:, 0])

    return logits, params


def test_default_rotary_model_trains():
    logits, params = _rotary_lm()
    tokens = torch.randint(0, 11, (8, 12), generator=torch.Generator().manual_seed(1))
    optimizer = torch.optim.Adam(params, lr=3e-2)
    losses = []
    for _ in range(6):
        out = logits(tokens[:, :-1])
        loss = torch.nn.functional.cross_entropy(
            out.flatten(0, 1), tokens[:, 1:].flatten()
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] - 0.3, losses


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("context", [torch.no_grad, torch.inference_mode])
def test_no_grad_and_inference_mode_give_the_same_numbers(layout, context):
    q = torch.randn(2, 3, 7, 8, generator=torch.Generator().manual_seed(8))
    rope, positions = RotaryEmbedding(8, layout=layout), torch.arange(7)
    expected = apply_rope_torch(q, positions, layout=layout), rope(q, q)[0]
    with context():
        got = apply_rope_torch(q, positions, layout=layout), rope(q, q)[0]
    for g, e in zip(got, expected, strict=True):
        assert not g.requires_grad
        torch.testing.assert_close(g, e, rtol=0, atol=0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_transposed_views_rotate_and_backpropagate_like_contiguous(layout):
    btd = _f64(2, 5, 3, 8, seed=9)  # (B, T, H, d): the projection's layout
    grad = torch.randn(2, 3, 5, 8, dtype=torch.float64)
    results = []
    for x in (btd.transpose(1, 2), btd.transpose(1, 2).contiguous()):  # (B, H, T, d)
        out = RotaryEmbedding(8, layout=layout)(x, x, offset=2)[0]
        (grad_x,) = torch.autograd.grad(out, btd, grad)
        results.append((out, grad_x))
    for got, want in zip(*results, strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=1e-12)


def test_the_rotary_modules_buffers_keep_their_size_whatever_the_data():
    """DDP broadcasts every buffer from rank 0 on each forward: a cache registered
    as a buffer, grown to 8 rows on one rank and 4 on another, aborted the
    collective (a reviewer's two-rank gloo run). inv_freq is the only buffer."""
    rope = RotaryEmbedding(8, max_len=4)
    before = {name: b.shape for name, b in rope.named_buffers()}
    x = torch.randn(1, 2, 6, 8)
    rope(x, x)  # grows the cache to 8 rows
    assert rope.cos_cached.shape[0] == 8
    assert {name: b.shape for name, b in rope.named_buffers()} == before
    assert set(before) == {"inv_freq"}


@pytest.mark.parametrize("inv_freq", [None, scaling.linear(16, factor=4.0)[0]])
def test_rotary_buffers_are_made_on_the_default_device_like_other_modules(inv_freq):
    """Built under `with torch.device(...)` (meta here; cuda alike), the cache is
    made there, as nn.Linear's weight is, not on the CPU to be copied each call."""
    with torch.device("meta"):
        rope = RotaryEmbedding(16, inv_freq=inv_freq)
        linear = torch.nn.Linear(4, 4)
    for buffer in (rope.inv_freq, rope.cos_cached, rope.sin_cached):
        assert buffer.device == linear.weight.device == torch.device("meta")
        assert buffer.dtype == torch.float32


@pytest.mark.parametrize("inv_freq", [None, scaling.linear(16, factor=4.0)[0]])
def test_a_module_built_on_meta_is_real_after_to_empty(inv_freq):
    """The big-model flow, build on meta then `to_empty`: it raised "Cannot copy out
    of meta tensor" (an engineer's review). The buffers are rebuilt on the device."""
    with torch.device("meta"):
        rope = RotaryEmbedding(16, inv_freq=inv_freq, attention_factor=1.2)
    rope.to_empty(device="cpu")
    built = RotaryEmbedding(16, inv_freq=inv_freq, attention_factor=1.2)
    for name in ("inv_freq", "cos_cached", "sin_cached"):
        assert torch.equal(getattr(rope, name), getattr(built, name)), name
    x = torch.randn(1, 2, 5, 16, generator=torch.Generator().manual_seed(0))
    assert torch.equal(rope(x, x, 3)[0], built(x, x, 3)[0])
    built.to_empty(device="cpu")  # a real module too: not left uninitialised
    assert torch.equal(built.cos_cached, rope.cos_cached)


def test_frequencies_that_require_grad_are_refused():
    """They were detached into the cache and silently never trained."""
    theta = torch.nn.Parameter(torch.from_numpy(inv_freq(8)).float())
    with pytest.raises(ValueError, match="inv_freq requires grad.*apply_rope_torch"):
        RotaryEmbedding(8, inv_freq=theta)
    assert RotaryEmbedding(8, inv_freq=theta.detach()).inv_freq.requires_grad is False


@pytest.mark.parametrize("rotate", [apply_rope, apply_rope_torch])
def test_per_sequence_positions_of_shape_b_t_are_refused_for_b_h_t_d(rotate):
    """HF's position_ids are (B, T); aligned right against (B, H, T, d) they would
    give sequence b's positions to head b (silently, when B == H)."""
    x, positions = torch.zeros(3, 3, 5, 8), torch.arange(15).reshape(3, 5)
    if rotate is apply_rope:
        x, positions = x.numpy(), positions.numpy()
    with pytest.raises(ValueError, match=re.escape("pass (B, 1, T)")):
        rotate(x, positions)
    assert rotate(x, positions[:, None]).shape == (3, 3, 5, 8)  # (B, 1, T)
    assert rotate(x, positions[:1]).shape == (3, 3, 5, 8)  # (1, T): one for all
    assert rotate(x[0], positions).shape == (3, 5, 8)  # (B, T) for (B, T, d)
    # (B, 1, T) for (B, T, d): every sequence by every row, as the docstring warns
    assert rotate(x[0], positions[:, None]).shape == (3, 3, 5, 8)


@pytest.mark.parametrize("T", [1, 2, 5])
@pytest.mark.parametrize("order", list(itertools.permutations(range(4))))
def test_half_layout_in_every_memory_order_matches_numpy(order, T):
    """Any stride order (T innermost included) and T = 1: forward and gradient.

    The gradient of sum(out * g) is the transposed rotation R_m^T g = R_(-m) g.
    """
    shape = (2, 3, T, 8)  # (B, H, T, d)
    stored = _f64(*(shape[i] for i in order), seed=12)
    x = stored.permute(*(order.index(i) for i in range(4)))  # (B, H, T, d) view
    positions = torch.arange(3, 3 + T).expand(2, 1, T)  # batched (B, 1, T)
    grad = _f64(*shape, seed=13).detach()
    out = apply_rope_torch(x, positions, layout="half")
    (grad_x,) = torch.autograd.grad(out, stored, grad)
    pos = positions.numpy()
    want = apply_rope(x.detach().numpy(), pos, layout="half")
    want_grad = apply_rope(grad.numpy(), -pos, layout="half")
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        grad_x.permute(*(order.index(i) for i in range(4))).numpy(),
        want_grad, rtol=0, atol=1e-12
    )  # fmt: skip


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_low_precision_in_same_dtype_out(layout, dtype):
    x = torch.rand(2, 3, 6, 16, generator=torch.Generator().manual_seed(10)) * 2 - 1
    x = x.to(dtype)
    positions = torch.arange(60_000, 60_006)  # angles beyond bf16/fp16 exactness
    ref = apply_rope(x.double().numpy(), positions.numpy(), layout=layout)
    rope = RotaryEmbedding(16, layout=layout, max_len=60_006)
    for out in (apply_rope_torch(x, positions, layout=layout), rope(x, x, 60_000)[0]):
        assert out.dtype == dtype
        np.testing.assert_allclose(out.double().numpy(), ref, atol=BF16_ATOL)
    assert rope.cos_cached.dtype == torch.float32


def test_torch_compile_matches_eager():
    """One graph (fullgraph: no break), forward and backward, both layouts, all
    of the head rotated or its first half (rotary_dim)."""
    if not hasattr(torch, "compile"):
        pytest.skip("torch.compile is unavailable in this torch build")
    q = torch.randn(1, 2, 5, 8, generator=torch.Generator().manual_seed(11))
    q.requires_grad_()
    for layout, rotary_dim in itertools.product(LAYOUTS, (8, 4)):
        rope = RotaryEmbedding(8, layout=layout, rotary_dim=rotary_dim)
        # aot_eager traces forward and backward without a C++ toolchain: cheap
        compiled = torch.compile(rope, backend="aot_eager", fullgraph=True)
        results = []
        for module in (compiled, rope):
            out = module(q, q, offset=3)
            results.append((*out, *torch.autograd.grad(sum(o.sum() for o in out), q)))
        for got, want in zip(*results, strict=True):
            torch.testing.assert_close(got, want)  # float32 rounding (decomposed ops)


DYNAMIC_COMPILE_CASES = {
    "half": lambda x, p: apply_rope_torch(x, p, layout="half"),
    "interleaved": lambda x, p: apply_rope_torch(x, p),
    "complex": lambda x, p: apply_rope_complex_torch(x, p),
    "partial": lambda x, p: apply_partial_rope_torch(x, p, rotary_dim=4),
    "mrope": lambda x, p: apply_mrope_torch(
        x, p.expand(3, -1), mrope_section=[2, 1, 1]
    ),
}


@pytest.mark.parametrize("name", DYNAMIC_COMPILE_CASES)
def test_functions_compile_whole_with_dynamic_shapes(name):
    """With dynamic=True dynamo makes floats symbolic, base's default included;
    checked_real's math.isfinite could not be traced: 6 graph breaks and 9 graphs
    over three lengths, and fullgraph=True raised (a reviewer's repro). One graph
    now, equal to eager."""
    if not hasattr(torch, "compile"):
        pytest.skip("torch.compile is unavailable in this torch build")
    from torch._dynamo.utils import counters

    fn = DYNAMIC_COMPILE_CASES[name]
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(fn, backend="eager", dynamic=True, fullgraph=True)
    for T in (3, 5, 9):
        x, positions = torch.randn(2, 2, T, 8), torch.arange(T)
        torch.testing.assert_close(compiled(x, positions), fn(x, positions))
    assert counters["stats"]["unique_graphs"] == 1


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_compiled_module_sees_new_frequencies_and_attention_factor(layout):
    """HF's dynamic and LongRoPE updates write inv_freq in place between calls. A
    graph that read the cos/sin cache kept the old rotation: 2.3 (half) and 3.6
    (interleaved) away from eager's, with no error."""
    if not hasattr(torch, "compile"):
        pytest.skip("torch.compile is unavailable in this torch build")
    q = torch.randn(1, 2, 6, 16, generator=torch.Generator().manual_seed(17))
    eager, traced = (RotaryEmbedding(16, max_len=8, layout=layout) for _ in range(2))
    compiled = torch.compile(traced, backend="aot_eager", fullgraph=True)
    for step in range(3):
        for module in (eager, traced):
            with torch.no_grad():
                module.inv_freq.mul_(0.5)
            module.attention_factor = 1.0 + step / 10
        for got, want in zip(compiled(q, q, 3), eager(q, q, 3), strict=True):
            torch.testing.assert_close(got, want)
    wide = torch.from_numpy(
        scaling.yarn(16, factor=4.0, original_max_position_embeddings=8)[0]
    )
    for module in (eager, traced):  # float64, as scaling returns: used as float32
        module.inv_freq = wide.clone()
    for got, want in zip(compiled(q, q, 30_000), eager(q, q, 30_000), strict=True):
        torch.testing.assert_close(got, want)  # 3e-3 apart in float64 angles


NON_CONTIGUOUS = {  # (B, H, T, d) views no complex view can read as they are
    "T innermost": lambda g: torch.randn(2, 3, 8, 5, generator=g).transpose(-1, -2),
    "every other feature": lambda g: torch.randn(2, 3, 5, 16, generator=g)[..., ::2],
    "odd offset": lambda g: torch.randn(2, 3, 5, 9, generator=g)[..., 1:],
    "contiguous at an odd offset": lambda g: torch.randn(241, generator=g)[1:].view(
        2, 3, 5, 8
    ),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("view", NON_CONTIGUOUS)
def test_torch_compile_takes_non_contiguous_inputs_as_eager_does(layout, view):
    """Interleaved reads pairs as complex numbers: traced as such, compile fails
    ("must have a last dimension with stride 1", "storage_offset divisible by
    2"), the last even on a contiguous tensor."""
    if not hasattr(torch, "compile"):
        pytest.skip("torch.compile is unavailable in this torch build")
    q = NON_CONTIGUOUS[view](torch.Generator().manual_seed(13))
    rope = RotaryEmbedding(8, layout=layout)
    compiled = torch.compile(lambda q: rope(q, q, offset=2)[0], backend="aot_eager")
    torch.testing.assert_close(compiled(q), rope(q, q, offset=2)[0])


def test_torch_compile_decoding_does_not_recompile_for_each_offset():
    """A KV-cache loop calls with offset 0, 1, 2, ...: one graph for offset 0 and
    one with a symbolic offset, not one per offset until the recompile limit, nor
    one each time eager calls on the same module grow its cache past max_len."""
    if not hasattr(torch, "compile"):
        pytest.skip("torch.compile is unavailable in this torch build")
    from torch import _dynamo

    _dynamo.reset()
    _dynamo.utils.counters.clear()  # graphs counted from here
    rope = RotaryEmbedding(8, max_len=2)  # grown at offsets 2, 4 and 8
    compiled = torch.compile(rope, backend="eager")
    q = torch.randn(1, 2, 1, 8, generator=torch.Generator().manual_seed(12))
    for offset in range(12):
        torch.testing.assert_close(compiled(q, q, offset)[0], rope(q, q, offset)[0])
    assert _dynamo.utils.counters["stats"]["unique_graphs"] <= 2


@pytest.mark.parametrize("layout", LAYOUTS)
def test_float64_positions_give_float64_angles_with_the_default_frequencies(layout):
    """A review: the docstring's float64 angles for float64 positions held, but the
    default frequencies were first rounded to float32 (x's dtype), so at position
    10**6 the rotation was 5e-3 off; with its own float64 inv_freq, 1e-7."""
    x = torch.randn(2, 4, 16, generator=torch.Generator().manual_seed(3))
    positions = np.arange(10**6, 10**6 + 4)
    expected = apply_rope(x.double().numpy(), positions, layout=layout)
    got = apply_rope_torch(x, torch.from_numpy(positions).double(), layout=layout)
    assert got.dtype == torch.float32
    np.testing.assert_allclose(got.double().numpy(), expected, atol=1e-6)


def test_module_positions_per_row_equal_an_offset_per_row():
    """positions (B, T), e.g. HF's position_ids: each row as a call with its own
    offset, every head alike; positions (T,) as the offset they start at."""
    rotary = RotaryEmbedding(16, max_len=4, attention_factor=1.3)
    gen = torch.Generator().manual_seed(8)
    q, k = (
        torch.randn(2, 4, 5, 16, generator=gen),
        torch.randn(2, 2, 5, 16, generator=gen),
    )
    rows = torch.tensor([[0, 1, 2, 3, 4], [7, 8, 9, 10, 11]])
    got = rotary(q, k, positions=rows)
    for b, offset in enumerate((0, 7)):
        expected = rotary(q[b : b + 1], k[b : b + 1], offset)
        for a, e in zip(got, expected, strict=True):
            torch.testing.assert_close(a[b : b + 1], e, rtol=0, atol=0)
    by_offset = rotary(q, k, 3)
    for a, e in zip(rotary(q, k, positions=torch.arange(3, 8)), by_offset, strict=True):
        torch.testing.assert_close(a, e, rtol=0, atol=0)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda r, q: r(q, q, positions=torch.arange(5.0)), TypeError, "positions"),
        (lambda r, q: r(q, q, positions=torch.arange(4)), ValueError, "T = 5"),
        (lambda r, q: r(q, q, 2, positions=torch.arange(5)), ValueError, "offset"),
        (lambda r, q: r(q[0], q[0], positions=torch.zeros(2, 5, dtype=torch.long)),
         ValueError, "need q and k of shape"),
        (lambda r, q: r(q, q, positions=torch.zeros(3, 5, dtype=torch.long)),
         ValueError, "positions' batch"),
        (lambda r, q: r(q, q, positions=torch.zeros(1, 1, 5, dtype=torch.long)),
         ValueError, "positions"),
    ],
)  # fmt: skip
def test_module_positions_are_checked(call, error, match):
    with pytest.raises(error, match=match):
        call(RotaryEmbedding(16), torch.zeros(2, 4, 5, 16))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradcheck_module_with_positions_per_row(layout):
    rotary = RotaryEmbedding(8, layout=layout, attention_factor=1.2)
    gen = torch.Generator().manual_seed(9)
    q = torch.randn(2, 2, 3, 8, dtype=torch.float64, generator=gen, requires_grad=True)
    rows = torch.tensor([[4, 5, 6], [0, 0, 1]])
    assert torch.autograd.gradcheck(lambda x: rotary(x, x, positions=rows)[0], (q,))


def test_module_positions_follow_q_to_its_device_as_offset_does():
    """A module on the CPU rotates q elsewhere (cos/sin follow q); the positions
    path asked for inv_freq on q's device, naming an argument never passed."""
    rotary, q = RotaryEmbedding(8), torch.zeros(1, 2, 3, 8, device="meta")
    positions = torch.arange(3, device="meta")
    assert rotary(q, q, positions=positions)[0].shape == q.shape
    assert rotary(q, q)[0].shape == q.shape


def test_module_positions_per_row_export_with_a_dynamic_batch():
    """The batch check compares sizes, so torch.export keeps B symbolic (a NumPy
    broadcast of the shapes made it a constant)."""
    if not hasattr(torch, "export"):
        pytest.skip("torch.export is unavailable in this torch build")

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rotary = RotaryEmbedding(8)

        def forward(self, q, k, positions):
            return self.rotary(q, k, positions=positions)

    batch = torch.export.Dim("B")
    q, positions = torch.randn(2, 2, 3, 8), torch.arange(3).repeat(2, 1)
    exported = torch.export.export(
        Block(), (q, q, positions), dynamic_shapes=({0: batch},) * 3
    )
    q5, rows = torch.randn(5, 2, 3, 8), torch.arange(3).repeat(5, 1)
    got = exported.module()(q5, q5, rows)[0]  # traced ops: rounded as compile's
    torch.testing.assert_close(got, Block()(q5, q5, rows)[0], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("strict", [False, True])
def test_a_rope_alibi_attention_block_exports_with_dynamic_batch_length_and_offset(
    strict,
):
    """torch.export's default (non-strict) hands the checks real symbolic ints:
    checked_int read them with operator.index and the shape checks with NumPy,
    fixing B, T and the offset to their example values (a reviewer's export
    failed "specialized it to be a constant"); the causal mask was NumPy too.
    Strict or not, the int64 bound is not a guard on a dynamic size."""
    if not hasattr(torch, "export"):
        pytest.skip("torch.export is unavailable in this torch build")
    from posenc_docs.alibi import alibi_bias_torch
    from posenc_docs.attention import attention_torch

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = torch.nn.Linear(16, 48)
            self.rotary = RotaryEmbedding(8, max_len=64)

        def forward(self, x, offset: int):
            B, T, _ = x.shape
            q, k, v = self.qkv(x).view(B, T, 3, 2, 8).permute(2, 0, 3, 1, 4)
            q, k = self.rotary(q, k, offset)  # (B, H, T, d)
            bias = alibi_bias_torch(2, T, T)
            return attention_torch(q, k, v, bias=bias, causal=True)

    torch.manual_seed(0)
    block, dims = Block(), {0: torch.export.Dim("B"), 1: torch.export.Dim("T")}
    exported = torch.export.export(
        block,
        (torch.randn(2, 6, 16), 5),
        dynamic_shapes=(dims, torch.export.Dim.AUTO),
        strict=strict,
    )
    for B, T, offset in [(3, 10, 0), (1, 40, 30)]:
        x = torch.randn(B, T, 16)
        got = exported.module()(x, offset)
        torch.testing.assert_close(got, block(x, offset), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ["numpy", "tensor"])
def test_a_module_owns_its_frequencies(kind):
    """Two modules built from one float32 inv_freq (the NumPy array was kept as
    the buffer, uncopied): an in-place update of one module's frequencies changed
    the caller's array and the other module's buffer, while its cache stayed as it
    was, so its output changed later, on a .to() or under compile."""
    theta = scaling.linear(8, factor=4.0)[0].astype(np.float32)
    given = theta if kind == "numpy" else torch.from_numpy(theta.copy())
    before = theta.copy()
    first, second = (RotaryEmbedding(8, inv_freq=given) for _ in range(2))
    q = torch.randn(1, 1, 3, 8, generator=torch.Generator().manual_seed(0))
    positions = torch.arange(10, 13)
    expected = apply_rope_torch(
        q, positions, inv_freq=torch.tensor(before), layout="half"
    )
    with torch.no_grad():
        first.inv_freq.mul_(0.5)
    caller = given if kind == "numpy" else given.numpy()
    np.testing.assert_array_equal(caller, before)
    np.testing.assert_array_equal(second.inv_freq.numpy(), before)
    second.to(torch.float64)  # rebuilt from its own frequencies
    torch.testing.assert_close(second(q, q, 10)[0], expected)
    halved = torch.tensor(before / 2)
    halved = apply_rope_torch(q, positions, inv_freq=halved, layout="half")
    torch.testing.assert_close(first(q, q, 10)[0], halved)


def test_writes_through_an_assigned_inv_freq_keep_reaching_the_module():
    """Assigning a tensor to inv_freq, as for any buffer, then writing into it: the
    module took up the first write and then swapped in a private copy, so the
    second write, after a call, was lost (a reviewer's finding)."""
    q = torch.randn(1, 1, 3, 8, generator=torch.Generator().manual_seed(0))
    module = RotaryEmbedding(8)
    shared = module.inv_freq.clone()
    module.inv_freq = shared
    for _ in range(2):  # a write, a call; again
        with torch.no_grad():
            shared.mul_(0.5)
        expected = apply_rope_torch(
            q, torch.arange(3), inv_freq=shared.clone(), layout="half"
        )
        torch.testing.assert_close(module(q, q)[0], expected)
    assert module.inv_freq.data_ptr() == shared.data_ptr()  # one storage


@pytest.mark.parametrize("layout", LAYOUTS)
def test_module_rotates_with_the_base_it_is_given(layout):
    """Llama 3's base is 500,000: no module test used a base but the default, so a
    module that ignored base passed (a mutation audit). Against a scalar loop."""
    d, base, offset = 8, 5e5, 3
    q = torch.randn(
        1, 2, 4, d, dtype=torch.float64, generator=torch.Generator().manual_seed(4)
    )
    got = RotaryEmbedding(d, base=base, layout=layout)(q, q, offset)[0]
    freqs = _scalar.frequencies(d, base)
    expected = [
        [_scalar.rotated_row(row, [(offset + t) * f for f in freqs], layout)
         for t, row in enumerate(head.tolist())]
        for head in q[0]
    ]  # fmt: skip
    np.testing.assert_allclose(got[0].numpy(), expected, rtol=1e-6, atol=1e-6)
