"""Tests for posenc_docs.partial_rotary (RoPE on the first rotary_dim features).

References: Hugging Face's GPT-NeoX ``apply_rotary_pos_emb`` with the cos/sin of
``GPTNeoXRotaryEmbedding`` (partial rotary is inside that function), Phi's
``PhiRotaryEmbedding`` and ``apply_rotary_pos_emb`` with the split its attention
does, and GPT-J's ``create_sinusoidal_positions`` and ``apply_rotary_pos_emb`` with
the split ``GPTJAttention.forward`` does; plus full RoPE from posenc_docs.rope.
"""

import pickle

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs import rope, scaling
from posenc_docs.partial_rotary import apply_partial_rope, apply_partial_rope_torch
from tests._scalar import frequencies, rotated_row

FAST = settings(max_examples=30, deadline=None)
HF_ATOL = 5e-5  # HF's float32 angles and cos/sin at positions < 100
LAYOUT = ("half", "interleaved")


def qk(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@FAST
@given(
    d=st.sampled_from([2, 8, 24, 64]),
    layout=st.sampled_from(LAYOUT),
    base=st.sampled_from([10000.0, 5e5]),
    seed=st.integers(0, 2**16),
)
def test_rotary_dim_equal_to_the_head_is_full_rope(d, layout, base, seed):
    x, positions = qk((2, 5, d), seed), np.arange(7, 12)
    partial = apply_partial_rope(x, positions, rotary_dim=d, base=base, layout=layout)
    full = rope.apply_rope(x, positions, base=base, layout=layout)
    np.testing.assert_allclose(partial, full, atol=1e-12)


@FAST
@given(layout=st.sampled_from(LAYOUT), seed=st.integers(0, 2**16))
def test_rotary_dim_zero_is_the_identity(layout, seed):
    x = qk((3, 4, 16), seed)
    out = apply_partial_rope(x, np.arange(4) * 1000, rotary_dim=0, layout=layout)
    np.testing.assert_array_equal(out, x)


def test_rotary_dim_zero_broadcasts_and_checks_positions_like_any_other():
    x, positions = np.ones((5, 10)), np.zeros((4, 5), dtype=int)  # 4 rows of positions
    for r in (0, 2):
        assert apply_partial_rope(x, positions, rotary_dim=r).shape == (4, 5, 10)
        twin = apply_partial_rope_torch(
            torch.ones(5, 10), torch.zeros(4, 5, dtype=torch.int64), rotary_dim=r
        )
        assert twin.shape == (4, 5, 10)
    out = apply_partial_rope_torch(
        x_t := torch.ones(5, 10), torch.arange(5), rotary_dim=0
    )
    out += 1  # a new tensor, as for r > 0: the caller's x is untouched
    assert torch.equal(x_t, torch.ones(5, 10))
    with pytest.raises(TypeError, match="positions"):
        apply_partial_rope(x, "abc", rotary_dim=0)
    with pytest.raises(ValueError, match="positions"):
        apply_partial_rope_torch(torch.ones(5, 10), torch.arange(3), rotary_dim=0)


@FAST
@given(
    r=st.sampled_from([2, 8, 16, 30]),
    layout=st.sampled_from(LAYOUT),
    seed=st.integers(0, 2**16),
    m=st.integers(0, 10_000),
    n=st.integers(0, 10_000),
    shift=st.integers(-5000, 5000),
)
def test_prefix_is_relative_and_the_rest_carries_no_position(
    r, layout, seed, m, n, shift
):
    d = 32
    q, k = qk((1, d), seed), qk((1, d), seed + 1)

    def score(i, j):
        qi = apply_partial_rope(q, [i], rotary_dim=r, layout=layout)
        kj = apply_partial_rope(k, [j], rotary_dim=r, layout=layout)
        return float(qi[0] @ kj[0])

    a, b = m + abs(shift), n + abs(shift)
    assert score(m, n) == pytest.approx(score(a, b), abs=1e-9)  # only n - m matters
    out = apply_partial_rope(q, [m], rotary_dim=r, layout=layout)
    np.testing.assert_array_equal(out[0, r:], q[0, r:])  # passed through untouched
    assert np.linalg.norm(out[0, :r]) == pytest.approx(np.linalg.norm(q[0, :r]))


def test_prefix_frequencies_come_from_rotary_dim_not_the_head():
    x = qk((1, 96))
    out = apply_partial_rope(x, [1], rotary_dim=24)
    theta = 10000.0 ** (-np.arange(0, 24, 2) / 24)  # scalar formula, r = 24
    a, b = x[0, :12], x[0, 12:24]  # half layout: pair i = (x[i], x[i + 12])
    np.testing.assert_allclose(out[0, :12], a * np.cos(theta) - b * np.sin(theta))
    np.testing.assert_allclose(out[0, 12:24], b * np.cos(theta) + a * np.sin(theta))


@pytest.mark.parametrize(("head_dim", "pct"), [(96, 0.25), (80, 0.4), (64, 1.0)])
def test_equals_hugging_face_gpt_neox(head_dim, pct):
    from transformers import GPTNeoXConfig
    from transformers.models.gpt_neox import modeling_gpt_neox as neox

    config = GPTNeoXConfig(
        hidden_size=2 * head_dim, num_attention_heads=2, rotary_pct=pct
    )
    embedding = neox.GPTNeoXRotaryEmbedding(config)
    q, k = qk((2, 2, 9, head_dim), 1), qk((2, 2, 9, head_dim), 2)  # (B, H, T, d)
    positions = np.array([np.arange(9), np.arange(40, 49)])  # (B, T)
    q_t, k_t = torch.from_numpy(q).float(), torch.from_numpy(k).float()
    cos, sin = embedding(q_t, torch.from_numpy(positions))
    q_hf, k_hf = neox.apply_rotary_pos_emb(q_t, k_t, cos, sin)
    r = int(head_dim * pct)
    for ours_in, theirs in ((q, q_hf), (k, k_hf)):
        ours = apply_partial_rope(ours_in, positions[:, None], rotary_dim=r)
        np.testing.assert_allclose(ours, theirs.double().numpy(), atol=HF_ATOL)
    twin = apply_partial_rope_torch(
        q_t, torch.from_numpy(positions)[:, None], rotary_dim=r
    )
    assert twin.dtype == torch.float32
    np.testing.assert_allclose(twin.numpy(), q_hf.numpy(), atol=HF_ATOL)
    module = rope.RotaryEmbedding(head_dim, rotary_dim=r)
    rows = torch.from_numpy(positions)  # (B, T): HF's position_ids
    for ours, theirs in zip(
        module(q_t, k_t, positions=rows), (q_hf, k_hf), strict=True
    ):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=HF_ATOL)


def test_equals_hugging_face_phi():
    from transformers import PhiConfig
    from transformers.models.phi import modeling_phi as phi

    config = PhiConfig(
        hidden_size=160, num_attention_heads=2, partial_rotary_factor=0.4
    )
    r = int(80 * config.rope_parameters["partial_rotary_factor"])
    assert r == 32
    embedding = phi.PhiRotaryEmbedding(config)
    q, k = qk((1, 2, 6, 80), 3), qk((1, 2, 6, 80), 4)
    positions = np.arange(50, 56)[None]  # (B, T)
    q_t, k_t = torch.from_numpy(q).float(), torch.from_numpy(k).float()
    cos, sin = embedding(q_t, torch.from_numpy(positions))
    q_rot, k_rot = phi.apply_rotary_pos_emb(q_t[..., :r], k_t[..., :r], cos, sin)
    q_hf = torch.cat([q_rot, q_t[..., r:]], dim=-1)  # PhiAttention.forward's split
    k_hf = torch.cat([k_rot, k_t[..., r:]], dim=-1)
    for ours_in, theirs in ((q, q_hf), (k, k_hf)):
        ours = apply_partial_rope(ours_in, positions[:, None], rotary_dim=r)
        np.testing.assert_allclose(ours, theirs.double().numpy(), atol=HF_ATOL)


def test_equals_hugging_face_gpt_j_interleaved():
    from transformers.models.gptj import modeling_gptj as gptj

    head_dim, r, T = 256, 64, 7
    table = gptj.create_sinusoidal_positions(128, r)  # (128, r): [sin | cos]
    positions = np.array([np.arange(T), np.arange(90, 90 + T)])  # (B, T)
    sincos = table[torch.from_numpy(positions)]  # (B, T, r)
    sin, cos = torch.split(sincos, r // 2, dim=-1)
    x = qk((2, T, 3, head_dim), 5)  # GPT-J rotates (B, T, H, d) before transposing
    x_t = torch.from_numpy(x).float()
    rotated = gptj.apply_rotary_pos_emb(x_t[..., :r], sin, cos)
    theirs = torch.cat([rotated, x_t[..., r:]], dim=-1).transpose(1, 2)  # (B,H,T,d)
    ours = apply_partial_rope(
        x.transpose(0, 2, 1, 3), positions[:, None], rotary_dim=r, layout="interleaved"
    )
    np.testing.assert_allclose(ours, theirs.double().numpy(), atol=HF_ATOL)


@FAST
@given(
    r=st.sampled_from([0, 2, 8, 24]),
    layout=st.sampled_from(LAYOUT),
    seed=st.integers(0, 2**16),
)
def test_torch_twin_equals_the_reference(r, layout, seed):
    x = qk((2, 3, 5, 24), seed)  # (B, H, T, d)
    positions = np.array([[np.arange(5)], [np.arange(100, 105)]])  # (B, 1, T)
    ours = apply_partial_rope(x, positions, rotary_dim=r, layout=layout)
    twin = apply_partial_rope_torch(
        torch.from_numpy(x), torch.from_numpy(positions), rotary_dim=r, layout=layout
    )
    assert twin.dtype == torch.float64
    np.testing.assert_allclose(twin.numpy(), ours, atol=1e-12)


def test_torch_twin_keeps_bf16_and_passes_the_tail_through_exactly():
    x = torch.randn(2, 6, 32).to(torch.bfloat16)
    out = apply_partial_rope_torch(x, torch.arange(6), rotary_dim=8)
    assert out.dtype == torch.bfloat16
    assert torch.equal(out[..., 8:], x[..., 8:])


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_torch_twin_gradcheck(layout):
    x = torch.randn(2, 4, 10, dtype=torch.float64, requires_grad=True)
    positions = torch.arange(3, 7)
    assert torch.autograd.gradcheck(
        lambda t: apply_partial_rope_torch(t, positions, rotary_dim=6, layout=layout),
        (x,),
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"rotary_dim": 3}, ValueError, "rotary_dim"),
        ({"rotary_dim": -2}, ValueError, "rotary_dim"),
        ({"rotary_dim": 34}, ValueError, "rotary_dim must be <= the head width"),
        ({"rotary_dim": 8.0}, TypeError, "rotary_dim"),
        ({"rotary_dim": 8, "layout": "neox"}, ValueError, "layout"),
        ({"rotary_dim": 8, "base": 1.0}, ValueError, "base"),
    ],
)
def test_bad_arguments_are_rejected(kwargs, error, match):
    with pytest.raises(error, match=match):
        apply_partial_rope(qk((4, 32)), np.arange(4), **kwargs)
    with pytest.raises(error, match=match):
        apply_partial_rope_torch(torch.zeros(4, 32), torch.arange(4), **kwargs)


def test_scaled_frequencies_rotate_the_prefix_and_are_checked_against_it():
    """inv_freq (from a scaling method, for the rotary width) replaces b^(-2i/r):
    PI's frequencies at m equal the default ones at m / s; a length other than
    r/2 is refused by name, in both twins."""
    x, m = qk((2, 4, 32)), np.array([0.0, 8.0, 24.0, 100.0])
    theta = scaling.linear(8, factor=4.0)[0]  # (4,): r = 8
    scaled = apply_partial_rope(x, m, rotary_dim=8, inv_freq=theta)
    np.testing.assert_allclose(scaled, apply_partial_rope(x, m / 4, rotary_dim=8))
    twin = apply_partial_rope_torch(
        torch.from_numpy(x), torch.from_numpy(m), rotary_dim=8,
        inv_freq=torch.from_numpy(theta),
    )  # fmt: skip
    np.testing.assert_allclose(twin.numpy(), scaled, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match=r"inv_freq .* \(4,\) for rotary_dim = 8"):
        apply_partial_rope(x, m, rotary_dim=8, inv_freq=np.ones(16))
    with pytest.raises(ValueError, match="inv_freq"):
        apply_partial_rope_torch(
            torch.from_numpy(x), torch.arange(4), rotary_dim=8, inv_freq=torch.ones(3)
        )
    theta = torch.rand(4, dtype=torch.float64, requires_grad=True)
    x_t = torch.from_numpy(x)
    assert torch.autograd.gradcheck(
        lambda t: apply_partial_rope_torch(
            x_t, torch.arange(4), rotary_dim=8, inv_freq=t
        ),
        (theta,),
    )


def test_with_rotary_dim_0_inv_freq_is_still_checked():
    """It was taken unchecked there (a string, a meta tensor), while base was not."""
    x, m = np.ones((4, 8)), np.arange(4)
    assert apply_partial_rope(x, m, rotary_dim=0, inv_freq=np.ones(0)).shape == (4, 8)
    for bad, error in [("abc", TypeError), (np.ones(2), ValueError)]:
        with pytest.raises(error, match="inv_freq"):
            apply_partial_rope(x, m, rotary_dim=0, inv_freq=bad)
    x_t, m_t = torch.ones(4, 8), torch.arange(4)
    for bad, error in [
        (torch.ones(0, dtype=torch.long), TypeError),
        (torch.ones(0, device="meta"), ValueError),
        (np.ones(0), TypeError),
    ]:
        with pytest.raises(error, match="inv_freq"):
            apply_partial_rope_torch(x_t, m_t, rotary_dim=0, inv_freq=bad)
    int_theta = np.zeros(0, dtype=int)  # integer frequencies, as for rotary_dim > 0
    assert apply_partial_rope(x, m, rotary_dim=0, inv_freq=int_theta).shape == (4, 8)


def test_inv_freq_of_the_wrong_kind_is_a_type_error_whatever_its_length():
    """Its kind is checked before its length: the length check came first and made
    a NumPy inv_freq of the wrong length a ValueError in the torch twin. A list's
    length is checked against rotary_dim too (it named the prefix's width)."""
    x, m = np.ones((4, 16)), np.arange(4)
    with pytest.raises(TypeError, match="inv_freq must be a torch.Tensor"):
        apply_partial_rope_torch(torch.ones(4, 16), torch.arange(4), rotary_dim=8,
                                 inv_freq=np.ones(3))  # fmt: skip
    with pytest.raises(TypeError, match="inv_freq must be a NumPy array"):
        apply_partial_rope(x, m, rotary_dim=8, inv_freq=torch.ones(3))
    with pytest.raises(ValueError, match=r"\(4,\) for rotary_dim = 8, got \(3,\)"):
        apply_partial_rope(x, m, rotary_dim=8, inv_freq=[1.0, 0.5, 0.25])


def test_bad_arrays_are_rejected():
    with pytest.raises(TypeError, match="NumPy array"):
        apply_partial_rope(torch.zeros(4, 8), np.arange(4), rotary_dim=4)
    with pytest.raises(ValueError, match="at least 2 dims"):
        apply_partial_rope(np.zeros(8), np.arange(1), rotary_dim=4)
    with pytest.raises(ValueError, match="positions"):
        apply_partial_rope(np.zeros((4, 8)), np.arange(5), rotary_dim=4)
    with pytest.raises(TypeError, match="torch.Tensor"):
        apply_partial_rope_torch(np.zeros((4, 8)), torch.arange(4), rotary_dim=4)
    with pytest.raises(TypeError, match="positions"):
        apply_partial_rope_torch(torch.zeros(4, 8), np.arange(4), rotary_dim=4)


def test_deepseek_v3_rotates_its_rope_slice_interleaved_and_returns_it_half_split():
    """HF's apply_rotary_pos_emb_interleave: interleaved pairs in, half layout out."""
    from transformers import DeepseekV3Config
    from transformers.models.deepseek_v3 import modeling_deepseek_v3 as ds

    r = 16  # qk_rope_head_dim of this small config (DeepSeek-V3: 64)
    config = DeepseekV3Config(
        hidden_size=64, num_attention_heads=2, qk_rope_head_dim=r,
        qk_nope_head_dim=32, v_head_dim=32, kv_lora_rank=32, q_lora_rank=32,
        n_routed_experts=2, num_hidden_layers=1,
    )  # fmt: skip
    assert config.rope_interleave
    q_pe, k_pe = qk((1, 2, 7, r), 6), qk((1, 1, 7, r), 7)  # k_pe: one head, shared
    positions = np.arange(30, 37)[None]
    q_t, k_t = torch.from_numpy(q_pe).float(), torch.from_numpy(k_pe).float()
    cos, sin = ds.DeepseekV3RotaryEmbedding(config)(q_t, torch.from_numpy(positions))
    q_hf, k_hf = ds.apply_rotary_pos_emb_interleave(q_t, k_t, cos, sin)
    perm = rope.interleaved_to_half_permutation(r)
    q_ours = rope.apply_rope(q_pe, positions[:, None], layout="interleaved")
    k_ours = rope.apply_rope(k_pe, positions[:, None], layout="interleaved")
    np.testing.assert_allclose(q_ours[..., perm], q_hf.double().numpy(), atol=HF_ATOL)
    np.testing.assert_allclose(k_ours[..., perm], k_hf.double().numpy(), atol=HF_ATOL)
    scores_hf = (q_hf @ k_hf.transpose(-1, -2)).double().numpy()
    np.testing.assert_allclose(
        q_ours @ np.swapaxes(k_ours, -1, -2), scores_hf, atol=1e-4
    )


@pytest.mark.parametrize("rotary_dim", [4, 0])
@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_a_positions_error_shows_the_shape_of_x_not_of_its_prefix(backend, rotary_dim):
    """From an engineer's review: HF's (B, T) positions for x (2, 3, 4, 8) were
    refused naming x (2, 3, 4, 4), the rotated prefix, or (2, 3, 4, 2)."""
    x, positions = np.zeros((2, 3, 4, 8)), np.arange(8).reshape(2, 4)
    run = apply_partial_rope if backend == "numpy" else apply_partial_rope_torch
    if backend == "torch":
        x, positions = torch.from_numpy(x), torch.from_numpy(positions)
    with pytest.raises(ValueError, match=r"fewer than x of shape \(2, 3, 4, 8\)"):
        run(x, positions, rotary_dim=rotary_dim)


def test_torch_twin_rotates_with_its_base():
    """The twin was compared with NumPy at the default base only (a mutation audit):
    at base 500, against a scalar loop over the first rotary_dim features."""
    x = torch.randn(
        2, 5, 10, dtype=torch.float64, generator=torch.Generator().manual_seed(6)
    )
    got = apply_partial_rope_torch(x, torch.arange(7, 12), rotary_dim=4, base=500.0)
    freqs = frequencies(4, 500.0)
    for b in range(2):
        for t in range(5):
            row = x[b, t].tolist()
            expected = rotated_row(row[:4], [(7 + t) * f for f in freqs]) + row[4:]
            np.testing.assert_allclose(got[b, t].numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("layout", rope.LAYOUTS)
def test_rotary_module_with_rotary_dim_is_the_partial_function(layout):
    """RotaryEmbedding(d, rotary_dim=r): the prefix rotated as apply_partial_rope
    (frequencies from r) with the attention factor on it alone, the rest passed
    through bit for bit; from an offset and with per-row positions alike."""
    d, r, factor = 24, 8, 1.25
    q, k = qk((2, 3, 5, d), 5), qk((2, 1, 5, d), 6)
    q_t, k_t = torch.from_numpy(q).float(), torch.from_numpy(k).float()
    module = rope.RotaryEmbedding(
        d, rotary_dim=r, layout=layout, attention_factor=factor
    )
    assert module.inv_freq.shape == (r // 2,)
    rows = np.array([np.arange(7, 12), [1, 1, 0, 1, 2]])  # (B, T)
    calls = {
        "offset": module(q_t, k_t, 7),
        "rows": module(q_t, k_t, positions=torch.from_numpy(rows)),
    }
    for name, positions in (("offset", np.arange(7, 12)), ("rows", rows[:, None])):
        for x, ours in zip((q, k), calls[name], strict=True):
            want = apply_partial_rope(x, positions, rotary_dim=r, layout=layout)
            want[..., :r] *= factor
            np.testing.assert_allclose(ours.numpy(), want, atol=2e-6)
            assert torch.equal(ours[..., r:], torch.from_numpy(x[..., r:]).float())


@pytest.mark.parametrize("layout", rope.LAYOUTS)
def test_gradcheck_rotary_module_with_rotary_dim(layout):
    module = rope.RotaryEmbedding(12, rotary_dim=4, layout=layout, attention_factor=1.5)
    q = torch.from_numpy(qk((1, 2, 4, 12), 7)).requires_grad_()
    k = torch.from_numpy(qk((1, 1, 4, 12), 8)).requires_grad_()
    assert torch.autograd.gradcheck(lambda q, k: module(q, k, 3), (q, k))


def test_rotary_module_with_rotary_dim_says_so_in_repr_and_in_a_length_error():
    module = rope.RotaryEmbedding(16, rotary_dim=4, attention_factor=1.5)
    assert repr(module) == (
        "RotaryEmbedding(d=16, rotary_dim=4, layout='half', attention_factor=1.5)"
    )
    head_width = rope.inv_freq(16)  # (8,): frequencies of the head, not the prefix
    with pytest.raises(ValueError, match=r"^inv_freq .*rotary_dim/2.* \(2,\)"):
        rope.RotaryEmbedding(16, rotary_dim=4, inv_freq=head_width)


def test_a_rotary_module_pickled_before_rotary_dim_existed_still_rotates():
    """torch.save(model) pickles the module's __dict__: one saved by an earlier
    version has no rotary_dim, and its first forward raised AttributeError."""
    module = rope.RotaryEmbedding(8)
    q = torch.from_numpy(qk((1, 2, 3, 8), 9)).float()
    del module.rotary_dim  # as an earlier version pickled it
    old = pickle.loads(pickle.dumps(module))
    torch.testing.assert_close(old(q, q), rope.RotaryEmbedding(8)(q, q))
