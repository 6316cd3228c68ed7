"""Tests for posenc_docs.mrope: M-RoPE and 2-D axial RoPE against Hugging Face."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs import rope, scaling
from posenc_docs.mrope import (
    apply_mrope,
    apply_mrope_torch,
    axial_rope_2d,
    axial_rope_2d_torch,
    grid_positions,
    mrope_pair_axes,
    text_image_positions,
)
from tests._scalar import frequencies, rotated_row

FAST = settings(max_examples=30, deadline=None)
sections = st.lists(st.integers(0, 5), min_size=3, max_size=3).filter(
    lambda s: sum(s) > 0
)


def test_pair_axes_of_qwen2_vl():
    axes = mrope_pair_axes([16, 24, 24])
    assert axes.shape == (64,)
    assert (
        (axes[:16] == 0).all() and (axes[16:40] == 1).all() and (axes[40:] == 2).all()
    )
    # more than three sections wrap around: section k follows axis k % 3
    assert mrope_pair_axes([1, 1, 1, 2]).tolist() == [0, 1, 2, 0, 0]
    cyclic = mrope_pair_axes([24, 20, 20], interleaved=True)  # Qwen3-VL
    assert cyclic[:6].tolist() == [0, 1, 2, 0, 1, 2] and (cyclic[60:] == 0).all()
    assert np.bincount(cyclic).tolist() == [24, 20, 20]


@FAST
@given(sections, st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_equal_positions_on_all_axes_is_1d_rope(section, T, seed):
    rng = np.random.default_rng(seed)
    d = 2 * sum(section)
    x = rng.normal(size=(2, T, d))
    p = rng.integers(0, 5000, size=T)
    thw = np.stack([p, p, p])
    out = apply_mrope(x, thw, mrope_section=section, base=500.0)
    t, h, w = section
    if 2 * h - 1 <= t + w and 2 * w <= t + h:  # the last h and w pairs fit
        cyclic = apply_mrope(
            x, thw, mrope_section=section, base=500.0, interleaved=True
        )
        np.testing.assert_allclose(cyclic, out, rtol=1e-12, atol=1e-12)
    expected = rope.apply_rope(x, p, base=500.0, layout="half")
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def scalar_mrope(vec, thw, section, base):
    """One vector, one token: a loop over pairs, written from the HF description."""
    d = len(vec)
    bounds = np.cumsum([0, *section])
    angles = []
    for i in range(d // 2):
        k = int(np.searchsorted(bounds, i, side="right")) - 1  # section of pair i
        angles.append(thw[k % 3] * base ** (-2 * i / d))
    return np.array(rotated_row(vec, angles))  # pair i = (vec[i], vec[i + d/2])


@FAST
@given(sections, st.integers(0, 2**32 - 1))
def test_matches_a_scalar_loop(section, seed):
    rng = np.random.default_rng(seed)
    d = 2 * sum(section)
    x = rng.normal(size=(3, d))
    thw = rng.integers(0, 300, size=(3, 3))  # (axis, T)
    out = apply_mrope(x, thw, mrope_section=section)
    for t in range(3):
        expected = scalar_mrope(x[t], thw[:, t], section, 10000.0)
        np.testing.assert_allclose(out[t], expected, rtol=1e-12, atol=1e-12)


@FAST
@given(sections, st.integers(0, 2**32 - 1))
def test_scores_depend_only_on_the_offset_along_each_axis(section, seed):
    rng = np.random.default_rng(seed)
    d = 2 * sum(section)
    q, k = rng.normal(size=(2, 1, d))
    pq, pk = rng.integers(0, 100, size=(2, 3, 1))
    shift = rng.integers(0, 1000, size=(3, 1))  # a different shift per axis
    mr = {"mrope_section": section}
    score = apply_mrope(q, pq, **mr) @ apply_mrope(k, pk, **mr).T
    moved = apply_mrope(q, pq + shift, **mr) @ apply_mrope(k, pk + shift, **mr).T
    np.testing.assert_allclose(score, moved, rtol=1e-9, atol=1e-9)


def hf_mrope(x, positions_thw, section, base, interleaved=False, scaling=None):
    """HF Qwen2-VL (or Qwen3-VL): the rotary module's cos/sin, then
    apply_rotary_pos_emb; ``scaling``, rope_parameters of a scaled rope_type."""
    if interleaved:
        name, config_class, module = "qwen3_vl", "Qwen3VLTextConfig", "Qwen3VLText"
    else:
        name, config_class, module = "qwen2_vl", "Qwen2VLTextConfig", "Qwen2VL"
    modeling = pytest.importorskip(f"transformers.models.{name}.modeling_{name}")
    configuration = pytest.importorskip(
        f"transformers.models.{name}.configuration_{name}"
    )
    B, H, T, d = x.shape
    config = getattr(configuration, config_class)(
        hidden_size=H * d,
        num_attention_heads=H,
        rope_parameters={
            "rope_type": "default",
            "rope_theta": base,
            "mrope_section": list(section),
            "mrope_interleaved": interleaved,
            **(scaling or {}),
        },
        head_dim=d,
    )
    embedding = getattr(modeling, f"{module}RotaryEmbedding")(config)
    cos, sin = embedding(x, positions_thw)  # (B, T, d)
    q, _ = modeling.apply_rotary_pos_emb(x, x, cos, sin)
    return q


@pytest.mark.parametrize(
    "section, base, interleaved",
    [
        ((16, 24, 24), 1e6, False),  # Qwen2-VL, Qwen2.5-VL
        ((2, 3, 3), 1e4, False),
        ((4, 0, 4), 500.0, False),
        ((24, 20, 20), 5e6, True),  # Qwen3-VL (HF default section)
        ((11, 11, 10), 1e4, True),
    ],
)
def test_mrope_equals_hugging_face(section, base, interleaved):
    rng = np.random.default_rng(0)
    d = 2 * sum(section)
    x = rng.normal(size=(2, 3, 7, d))  # (B, H, T, d)
    positions = rng.integers(0, 200, size=(3, 2, 7))  # (3, B, T)
    args = (torch.tensor(x), torch.tensor(positions), section, base, interleaved)
    expected = hf_mrope(*args)
    ours = apply_mrope(
        x,
        positions[:, :, None, :],
        mrope_section=section,
        base=base,
        interleaved=interleaved,
    )
    # HF forms the angles in float32: position 200 x theta keeps ~1e-5 radians
    np.testing.assert_allclose(ours, expected.numpy(), rtol=0, atol=5e-5)


@pytest.mark.parametrize(
    ("section", "interleaved"), [((2, 3, 3), False), ((3, 3, 2), True)]
)
def test_mrope_with_yarn_frequencies_equals_hugging_face(section, interleaved):
    """Qwen2.5-VL's long-context recipe, YaRN beside mrope_section: the dict goes
    to from_rope_scaling, its frequencies to apply_mrope (both twins) and its
    attention factor multiplies the result, as HF's cos and sin carry it."""
    base = 1e6
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 3, 7, 16))  # (B, H, T, d)
    positions = rng.integers(0, 250, size=(3, 2, 7))  # (3, B, T)
    args = (torch.tensor(x), torch.tensor(positions), section, base, interleaved)
    expected = hf_mrope(*args, scaling=yarn).numpy()
    config = {**yarn, "mrope_section": list(section), "rope_theta": base}
    inv_freq, factor = scaling.from_rope_scaling(16, base, config)
    kwargs = {"mrope_section": section, "interleaved": interleaved, "base": base}
    ours = factor * apply_mrope(x, positions[:, :, None], inv_freq=inv_freq, **kwargs)
    np.testing.assert_allclose(ours, expected, rtol=0, atol=5e-5)  # float32 angles
    twin = apply_mrope_torch(
        torch.tensor(x), torch.tensor(positions[:, :, None]),
        inv_freq=torch.from_numpy(inv_freq), **kwargs,
    )  # fmt: skip
    np.testing.assert_allclose(factor * twin.numpy(), ours, rtol=1e-12, atol=1e-12)
    plain = apply_mrope(x, positions[:, :, None], **kwargs)
    assert not np.allclose(factor * plain, expected, atol=1e-2)


def hf_axial(x, positions_hw, base):
    """HF Qwen2-VL vision tower: axial cos/sin, then apply_rotary_pos_emb_vision."""
    qwen2_vl = pytest.importorskip("transformers.models.qwen2_vl.modeling_qwen2_vl")
    from transformers.models.qwen2_vl.configuration_qwen2_vl import (
        Qwen2VLVisionConfig,
    )

    H, N, d = x.shape
    config = Qwen2VLVisionConfig(
        embed_dim=H * d,
        num_heads=H,
        rope_parameters={"rope_type": "axial", "rope_theta": base},
    )
    embedding = qwen2_vl.Qwen2VLVisionRotaryEmbedding(config)
    cos, sin = embedding(x, positions_hw.T)  # position_ids (N, 2): row, column
    q = x.transpose(0, 1)  # (N, H, d), the vision tower's layout
    out, _ = qwen2_vl.apply_rotary_pos_emb_vision(q, q, cos, sin)
    return out.transpose(0, 1)  # (H, N, d)


@pytest.mark.parametrize("d, height, width", [(80, 4, 6), (16, 3, 3), (8, 1, 5)])
def test_axial_equals_hugging_face_qwen2_vl_vision(d, height, width):
    rng = np.random.default_rng(1)
    positions = grid_positions(height, width)  # (2, h*w)
    x = rng.normal(size=(2, height * width, d))  # (H, N, d)
    expected = hf_axial(torch.tensor(x), torch.tensor(positions), 10000.0)
    np.testing.assert_allclose(axial_rope_2d(x, positions), expected, atol=1e-5)


def test_grid_positions_equal_hugging_face_vision_position_ids():
    modeling = pytest.importorskip("transformers.models.qwen2_vl.modeling_qwen2_vl")
    ids = modeling.Qwen2VLModel.get_vision_position_ids(
        None, 0, torch.tensor([1, 3, 4])
    )
    np.testing.assert_array_equal(grid_positions(3, 4), ids[1:].numpy())


@FAST
@given(st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_axial_row_pairs_ignore_the_column_and_vice_versa(quarter, seed):
    rng = np.random.default_rng(seed)
    d = 4 * quarter
    x = rng.normal(size=(1, d))
    rows_only = axial_rope_2d(x, [[rng.integers(1, 50)], [0]])
    cols_only = axial_rope_2d(x, [[0], [rng.integers(1, 50)]])
    row_pairs = np.r_[0:quarter, 2 * quarter : 3 * quarter]  # x[i], x[i + d/2]
    col_pairs = np.setdiff1d(np.arange(d), row_pairs)
    np.testing.assert_allclose(cols_only[:, row_pairs], x[:, row_pairs], atol=1e-15)
    np.testing.assert_allclose(rows_only[:, col_pairs], x[:, col_pairs], atol=1e-15)
    # along one axis it is a d/2-wide 1-D RoPE on that axis's pairs
    p = [[7], [0]]
    expected = rope.apply_rope(x[:, row_pairs], [7], layout="half")
    np.testing.assert_allclose(axial_rope_2d(x, p)[:, row_pairs], expected, atol=1e-12)


@FAST
@given(sections, st.integers(0, 2**32 - 1))
def test_torch_twin_equals_numpy(section, seed):
    rng = np.random.default_rng(seed)
    d = 2 * sum(section)
    x = rng.normal(size=(2, 4, d))
    thw = rng.integers(0, 100, size=(3, 1, 4))
    ours = apply_mrope(x, thw, mrope_section=section)
    twin64 = apply_mrope_torch(
        torch.tensor(x), torch.tensor(thw), mrope_section=section
    )
    assert twin64.dtype == torch.float64
    np.testing.assert_allclose(twin64.numpy(), ours, rtol=1e-12, atol=1e-12)
    twin32 = apply_mrope_torch(
        torch.tensor(x, dtype=torch.float32), torch.tensor(thw), mrope_section=section
    )
    assert twin32.dtype == torch.float32
    np.testing.assert_allclose(twin32.numpy(), ours, atol=1e-4)


def test_axial_torch_twin_equals_numpy():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 12, 16))
    positions = grid_positions(3, 4)
    twin = axial_rope_2d_torch(torch.tensor(x), torch.tensor(positions), base=100.0)
    ours = axial_rope_2d(x, positions, base=100.0)
    np.testing.assert_allclose(twin.numpy(), ours, rtol=1e-12, atol=1e-12)
    half = axial_rope_2d_torch(torch.tensor(x).bfloat16(), torch.tensor(positions))
    assert half.dtype == torch.bfloat16


def test_gradcheck():
    x = torch.randn(2, 5, 12, dtype=torch.float64, requires_grad=True)
    thw = torch.randint(0, 40, (3, 5))
    for interleaved in (False, True):  # Qwen2-VL's sections, Qwen3-VL's stripes
        assert torch.autograd.gradcheck(
            lambda x, i=interleaved: apply_mrope_torch(
                x, thw, mrope_section=[2, 2, 2], interleaved=i
            ),
            (x,),
        )
    per_row = torch.randint(0, 40, (3, 2, 5))  # (3, B, T): each row its positions
    assert torch.autograd.gradcheck(
        lambda x: apply_mrope_torch(x, per_row, mrope_section=[2, 2, 2]), (x,)
    )
    hw = torch.as_tensor(grid_positions(1, 5))
    for base in (10000.0, 100.0):
        assert torch.autograd.gradcheck(
            lambda x, b=base: axial_rope_2d_torch(x, hw, base=b), (x,)
        )


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"mrope_section": [2, 2, 3]}, ValueError, "add up to d/2 = 6"),
        ({"mrope_section": [2, -1, 5]}, ValueError, r"mrope_section\[1\]"),
        ({"mrope_section": [2.0, 2, 2]}, TypeError, r"mrope_section\[0\]"),
        ({"mrope_section": 6}, TypeError, "mrope_section"),
        ({"mrope_section": [2, 4, 0], "interleaved": True}, ValueError, "interleave"),
        ({"mrope_section": [2, 2, 2], "interleaved": "no"}, TypeError, "interleaved"),
        ({"mrope_section": [2, 2, 2], "interleaved": 0}, TypeError, "interleaved"),
        ({"mrope_section": [2, 2, 2], "base": 1.0}, ValueError, "base"),
        ({"mrope_section": [2, 2, 2], "base": "1e4"}, TypeError, "base"),
    ],
)
def test_bad_config_is_rejected(kwargs, error, match):
    x, thw = np.zeros((4, 12)), np.zeros((3, 4), dtype=int)
    with pytest.raises(error, match=match):
        apply_mrope(x, thw, **kwargs)
    with pytest.raises(error, match=match):
        apply_mrope_torch(torch.zeros(4, 12), torch.zeros(3, 4, dtype=int), **kwargs)


def test_a_float64_inv_freq_gives_float64_angles_for_float32_x():
    """As apply_rope_torch, a float64 inv_freq or float64 positions give float64
    angles: at positions near 3e6 float32 angles were 0.03 off."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 5, 16)).astype(np.float32)
    positions = rng.integers(3_000_000, 3_000_100, size=(3, 1, 5))
    theta = scaling.yarn(16, 1e6, factor=4.0, original_max_position_embeddings=64)[0]
    section = [2, 3, 3]
    want = apply_mrope(x, positions, mrope_section=section, inv_freq=theta)
    got = apply_mrope_torch(
        torch.from_numpy(x), torch.from_numpy(positions), mrope_section=section,
        inv_freq=torch.from_numpy(theta),
    )  # fmt: skip
    assert got.dtype == torch.float32
    np.testing.assert_allclose(got.numpy(), want, atol=1e-5)
    far = torch.from_numpy(positions).double()  # float64 positions, default theta
    got = apply_mrope_torch(torch.from_numpy(x), far, mrope_section=section)
    want = apply_mrope(x, positions, mrope_section=section)
    np.testing.assert_allclose(got.numpy(), want, atol=1e-5)
    theta32 = theta.astype(np.float32)  # float64 positions, a float32 tensor theta
    got = apply_mrope_torch(
        torch.from_numpy(x), far, mrope_section=section,
        inv_freq=torch.from_numpy(theta32),
    )  # fmt: skip
    want = apply_mrope(x, positions, mrope_section=section, inv_freq=theta32)
    np.testing.assert_allclose(got.numpy(), want, atol=1e-5)  # was 0.03 off


def test_bad_inv_freq_is_rejected_and_a_tensor_one_is_differentiated():
    x, thw, section = np.zeros((4, 12)), np.zeros((3, 4), dtype=int), [2, 2, 2]
    for bad, error in [(np.ones(5), ValueError), (torch.ones(6), TypeError)]:
        with pytest.raises(error, match="inv_freq"):
            apply_mrope(x, thw, mrope_section=section, inv_freq=bad)
    x_t, thw_t = torch.zeros(4, 12), torch.zeros(3, 4, dtype=int)
    for bad, error in [
        (torch.ones(5), ValueError),
        (np.ones(6), TypeError),
        (torch.ones(6, dtype=torch.long), TypeError),
        (torch.ones(6, device="meta"), ValueError),
    ]:
        with pytest.raises(error, match="inv_freq"):
            apply_mrope_torch(x_t, thw_t, mrope_section=section, inv_freq=bad)
    x = torch.randn(5, 12, dtype=torch.float64)
    theta = torch.rand(6, dtype=torch.float64, requires_grad=True)
    thw = torch.randint(0, 40, (3, 5))
    assert torch.autograd.gradcheck(
        lambda t: apply_mrope_torch(x, thw, mrope_section=section, inv_freq=t),
        (theta,),
    )


def test_rotate_by_axes_checks_its_arrays():
    from posenc_docs.mrope import rotate_by_axes

    x, positions = np.zeros((4, 8)), np.zeros((2, 4), dtype=int)
    with pytest.raises(ValueError, match="pair_axis must have last dim 4"):
        rotate_by_axes(x, positions, np.zeros(3, dtype=int), np.ones(4))
    with pytest.raises(TypeError, match="inv_freq must hold numbers"):
        rotate_by_axes(x, positions, np.zeros(4, dtype=int), np.ones(4, dtype=bool))


def test_numpy_references_take_integer_data_as_apply_rope_does():
    """A review found apply_rope took an integer x and these three refused it:
    the NumPy references all compute in float64 from any real array."""
    from posenc_docs.mrope import apply_mrope, axial_rope_2d, rotate_by_axes

    x = np.arange(32).reshape(4, 8)  # integers
    positions = np.arange(12).reshape(3, 4) % 3  # (3, T)
    as_float = x.astype(np.float64)
    pair_axis, theta = np.array([0, 1, 1, 2]), np.array([1, 2, 3, 4])  # ints too
    got = rotate_by_axes(x, positions, pair_axis, theta)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(
        got, rotate_by_axes(as_float, positions, pair_axis, theta.astype(float))
    )
    section = {"mrope_section": [2, 1, 1]}
    np.testing.assert_array_equal(
        apply_mrope(x, positions, **section),
        apply_mrope(as_float, positions, **section),
    )
    np.testing.assert_array_equal(
        axial_rope_2d(x, positions[:2]), axial_rope_2d(as_float, positions[:2])
    )


@pytest.mark.parametrize(
    "pair_axis, error, match",
    [
        ([0, 1, 1, -1], ValueError, r"pair_axis must hold indices from 0 to 1, got"),
        ([0, 1, 1, 2], ValueError, r"from 0 to 1, got \[0, 1, 1, 2\]"),
        ([0.0, 1.0, 1.0, 1.0], TypeError, "pair_axis must be a 1-D integer array"),
        ([[0, 1, 1, 1]], ValueError, "pair_axis must be 1-D"),
    ],
)
def test_rotate_by_axes_refuses_a_pair_axis_that_is_not_an_axis(
    pair_axis, error, match
):
    """An engineer's review: -1 was read as the last axis, 2 of 2 axes and floats
    gave NumPy's bare IndexError."""
    from posenc_docs.mrope import rotate_by_axes

    x, positions = np.zeros((4, 8)), np.zeros((2, 4), dtype=int)  # 2 axes
    with pytest.raises(error, match=match):
        rotate_by_axes(x, positions, np.array(pair_axis), np.ones(4))


@pytest.mark.parametrize(
    "x_shape, positions_shape, match",
    [
        ((5, 8), (3, 1), r"positions must have shape \(3, \.\.\., T\) with T = "),
        ((2, 2, 5, 8), (3, 2, 5), r"for \(B, H, T, d\) pass \(3, B, 1, T\)"),
    ],
)
def test_rotate_by_axes_checks_positions_like_apply_mrope(
    x_shape, positions_shape, match
):
    """An engineer's review: one position per axis was spread over all 5 tokens,
    and HF's (3, B, T) paired sequence b with head b when B == H."""
    from posenc_docs.mrope import rotate_by_axes

    x, axes = np.ones(x_shape), np.array([0, 1, 2, 2])
    with pytest.raises(ValueError, match=match):
        rotate_by_axes(x, np.zeros(positions_shape, dtype=int), axes, np.ones(4))


def test_bad_shapes_are_rejected():
    sec = {"mrope_section": [2, 2, 2]}
    with pytest.raises(
        ValueError, match=r"positions_thw must have shape \(3, \.\.\., T\)"
    ):
        apply_mrope(np.zeros((4, 12)), np.zeros((2, 4), dtype=int), **sec)
    with pytest.raises(ValueError, match="T = x.shape"):
        apply_mrope_torch(torch.zeros(4, 12), torch.zeros(3, 5, dtype=int), **sec)
    with pytest.raises(ValueError, match="x.shape"):
        apply_mrope(np.zeros((4, 11)), np.zeros((3, 4), dtype=int), **sec)
    with pytest.raises(ValueError, match=r"x.shape\[-1\] / 2"):
        axial_rope_2d(np.zeros((4, 6)), np.zeros((2, 4), dtype=int))
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        axial_rope_2d_torch(np.zeros((4, 8)), torch.zeros(2, 4, dtype=int))
    with pytest.raises(TypeError, match="x must be a NumPy array"):
        axial_rope_2d(torch.zeros(4, 8), np.zeros((2, 4), dtype=int))
    with pytest.raises(ValueError, match="height"):
        grid_positions(0, 3)


@pytest.mark.parametrize(
    "rotate",
    [apply_mrope, apply_mrope_torch, axial_rope_2d, axial_rope_2d_torch],
)
def test_hf_get_rope_index_shape_3_b_t_is_refused_for_b_h_t_d(rotate):
    """HF's get_rope_index returns (3, B, T); aligned right against (B, H, T, d)
    it would give sequence b's positions to head b (silently, when B == H)."""
    n_axes = 2 if rotate in (axial_rope_2d, axial_rope_2d_torch) else 3
    x, positions = torch.zeros(2, 2, 5, 12), torch.zeros(n_axes, 2, 5, dtype=int)
    if rotate in (apply_mrope, axial_rope_2d):
        x, positions = x.numpy(), positions.numpy()
    extra = {} if n_axes == 2 else {"mrope_section": [2, 2, 2]}
    with pytest.raises(ValueError, match=rf"pass \({n_axes}, B, 1, T\)"):
        rotate(x, positions, **extra)
    assert rotate(x, positions[:, :, None], **extra).shape == (2, 2, 5, 12)


@pytest.mark.parametrize("n_before, h, w, n_after", [(3, 2, 5, 4), (0, 3, 1, 2)])
def test_text_image_positions_equal_hugging_face_get_rope_index(
    n_before, h, w, n_after
):
    from types import SimpleNamespace

    modeling = pytest.importorskip("transformers.models.qwen2_vl.modeling_qwen2_vl")
    model = SimpleNamespace(  # the two attributes get_rope_index reads
        config=SimpleNamespace(vision_config=SimpleNamespace(spatial_merge_size=1)),
        get_vision_position_ids=lambda *a, **k: (
            modeling.Qwen2VLModel.get_vision_position_ids(None, *a, **k)
        ),
    )
    types = [0] * n_before + [1] * (h * w) + [0] * n_after
    ids = torch.zeros(1, len(types), dtype=torch.long)
    hf, _ = modeling.Qwen2VLModel.get_rope_index(
        model, ids, torch.tensor([types]), image_grid_thw=torch.tensor([[1, h, w]])
    )
    ours = text_image_positions(n_before, h, w, n_after)
    np.testing.assert_array_equal(ours, hf[:, 0].numpy())


@pytest.mark.parametrize(
    ("interleaved", "section"), [(False, [16, 24, 24]), (True, [24, 20, 20])]
)
def test_torch_twin_compiles_whole(interleaved, section):
    """The pair axes are plain constants to torch.compile (fullgraph: no break)."""
    from torch import _dynamo

    _dynamo.reset()

    def rotate(x, positions):
        return apply_mrope_torch(
            x, positions, mrope_section=section, interleaved=interleaved
        )

    compiled = torch.compile(rotate, backend="eager", fullgraph=True)
    gen = torch.Generator().manual_seed(0)
    x, positions = (
        torch.randn(1, 2, 5, 128, generator=gen),
        torch.arange(15).view(3, 1, 5),
    )
    torch.testing.assert_close(compiled(x, positions), rotate(x, positions))


@pytest.mark.parametrize("twin", [False, True])
def test_axial_rotates_with_its_base(twin):
    """Rows turn pairs 0 .. d/4 - 1 and columns the rest, each by base^(-4i/d), at
    base 100, by a scalar loop: both sides of the twin test could ignore base."""
    d, base = 8, 100.0
    x = np.random.default_rng(8).standard_normal((6, d))  # (T, d): a 2 x 3 grid
    hw = grid_positions(2, 3)  # (2, T)
    if twin:
        got = axial_rope_2d_torch(torch.from_numpy(x), torch.from_numpy(hw), base=base)
        got = got.numpy()
    else:
        got = axial_rope_2d(x, hw, base=base)
    freqs = frequencies(d // 2, base)  # per axis, d/4 pairs
    for t, (row, col) in enumerate(hw.T):
        angles = [row * f for f in freqs] + [col * f for f in freqs]
        np.testing.assert_allclose(got[t], rotated_row(x[t], angles), rtol=1e-12)
