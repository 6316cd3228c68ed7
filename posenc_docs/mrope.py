r"""RoPE over more than one position axis: 2-D axial RoPE and Qwen2-VL's M-RoPE.

A token of an image or a video has more than one coordinate: a row and a column,
and for video a frame. Both schemes here keep RoPE's rotation and give each rotary
pair one of the coordinates to turn by:

- `apply_mrope` (Qwen2-VL's multimodal RoPE): the d/2 pairs are cut into
  three consecutive sections, `mrope_section = (s_t, s_h, s_w)`; pair i turns by
  $p_{\mathrm{axis}(i)}\, \theta_i$ with the usual $\theta_i = b^{-2i/d}$.
- `axial_rope_2d` (Qwen2-VL's vision tower): the first d/4 pairs turn by the
  row, the last d/4 by the column, each half with the frequencies of a d/2-wide RoPE.

Pair layout, both functions: `"half"`, pair i is `(x[i], x[i + d/2])`, as in
Hugging Face (`rotate_half`). The section split is applied to the pair index i,
i.e. to the d/2 angles, and the same angle is used for `x[i]` and `x[i + d/2]`
(HF splits cos/sin of width d/2 and then concatenates them twice).

NumPy functions are the float64 reference; the `_torch` twins rotate in float32
(float64 for float64 input) and return x's dtype.
"""

import numpy as np
import torch

from posenc_docs import rope
from posenc_docs._checks import (
    checked_array,
    checked_bool,
    checked_even,
    checked_frequencies,
    checked_indices,
    checked_int,
    checked_int_list,
    checked_position_dims,
    checked_positions,
    checked_real,
    checked_same_device,
    checked_tensor,
    work_dtype,
)

AXES = ("temporal", "height", "width")


# --8<-- [start:mrope_pair_axes]
def mrope_pair_axes(mrope_section, *, interleaved: bool = False) -> np.ndarray:
    # --8<-- [end:mrope_pair_axes]
    r"""Which position axis each rotary pair follows under M-RoPE.

    Parameters
    ----------
    mrope_section : sequence of int
        Pairs per axis, e.g. Qwen2-VL's `(16, 24, 24)` for head_dim 128.
    interleaved : bool, default False
        False (Qwen2-VL, Qwen2.5-VL): consecutive sections; section k follows
        axis `k % 3`. True (Qwen3-VL, `mrope_interleaved`): pairs cycle
        t, h, w, ..., so every axis gets fast and slow pairs.

    Returns
    -------
    numpy.ndarray
        Axis of each pair (0 temporal, 1 height, 2 width), shape
        `(sum(mrope_section),)`.

    Raises
    ------
    ValueError
        With `interleaved`, when the cycle does not give each axis exactly its
        section's count of pairs (Qwen3-VL's `(24, 20, 20)` does; `(4, 6, 6)`
        does not).

    Notes
    -----
    Consecutive: pair i follows axis $k \bmod 3$ when
    $s_0 + \dots + s_{k-1} \le i < s_0 + \dots + s_k$. Interleaved: pair i follows
    height if $i \bmod 3 = 1$ and $i < 3 s_1$, width if $i \bmod 3 = 2$ and
    $i < 3 s_2$, and time otherwise. The sections must add up to d/2.
    """
    # --8<-- [start:mrope_pair_axes-body]
    sizes = checked_int_list("mrope_section", mrope_section, 0)
    n_pairs = checked_int("sum(mrope_section)", sum(sizes))
    if not checked_bool("interleaved", interleaved):  # in plain Python: constants
        return np.array([k % 3 for k, n in enumerate(sizes) for _ in range(n)])
    if len(sizes) != 3:  # for torch.compile, not data-dependent numpy shapes
        raise ValueError(f"mrope_section does not interleave, got {mrope_section!r}")
    axes = [  # (d/2,) time by default
        1 if i % 3 == 1 and i < 3 * sizes[1] else 2 if i % 3 == 2 and i < 3 * sizes[2]
        else 0
        for i in range(n_pairs)
    ]  # fmt: skip
    if [axes.count(axis) for axis in range(3)] != sizes:
        raise ValueError(f"mrope_section does not interleave, got {mrope_section!r}")
    return np.array(axes)


# --8<-- [end:mrope_pair_axes-body]


def _checked_positions(name, positions, x_shape, n_axes=None):
    """Positions of shape (n_axes, ..., T), T = x_shape[-2] (n_axes: any if None)."""
    positions = checked_array(name, positions, min_ndim=2, floating=False)
    n_axes = len(positions) if n_axes is None else n_axes
    _check_positions_shape(name, positions.shape, x_shape, n_axes)
    return positions


def _checked_positions_torch(name, positions, x, n_axes):
    """`_checked_positions` for a torch `x`: a tensor on x's device."""
    positions = checked_positions(name, positions, min_ndim=2)
    _check_positions_shape(name, positions.shape, x.shape, n_axes)
    checked_same_device(name, positions, x.device)
    return positions


def _check_positions_shape(name, shape, x_shape, n_axes):
    if shape[0] != n_axes or shape[-1] != x_shape[-2]:
        raise ValueError(
            f"{name} must have shape ({n_axes}, ..., T) with T = x.shape[-2] = "
            f"{x_shape[-2]}, got shape {tuple(shape)}"
        )
    checked_position_dims(name, tuple(shape[1:-1]), x_shape, f"({n_axes}, B, 1, T)")


def _sections_for(d: int, mrope_section, interleaved) -> np.ndarray:
    """Pair axes, checked against the rotary width d (sections add up to d/2)."""
    axes = mrope_pair_axes(mrope_section, interleaved=interleaved)
    if 2 * len(axes) != d:
        raise ValueError(
            f"mrope_section must add up to d/2 = {d // 2} for d = x.shape[-1] = {d}, "
            f"got {tuple(mrope_section)} (sum {len(axes)})"
        )
    return axes


# --8<-- [start:rotate_by_axes]
def rotate_by_axes(x, positions, pair_axis, inv_freq):
    # --8<-- [end:rotate_by_axes]
    r"""Rotate pair i of x by `positions[pair_axis[i]] * inv_freq[i]` (NumPy).

    Parameters
    ----------
    x : numpy.ndarray of shape (..., T, d)
        Queries or keys.
    positions : numpy.ndarray of shape (n_axes, ..., T)
        One row of positions per axis, broadcastable against x's leading dims.
    pair_axis : integer array of shape (d/2,)
        Axis each pair follows (from `mrope_pair_axes`, say).
    inv_freq : array of shape (d/2,)
        Frequency of each pair.

    Returns
    -------
    numpy.ndarray
        Float64, x's shape broadcast with positions' leading dims. Pair layout
        "half": pair i is `(x[i], x[i + d/2])`.

    Notes
    -----
    $a' = a \cos\varphi_i - b \sin\varphi_i$,
    $b' = b \cos\varphi_i + a \sin\varphi_i$ with
    $\varphi_i = p_{\mathrm{axis}(i)}\, \theta_i$. With one axis this is plain RoPE.
    """
    # --8<-- [start:rotate_by_axes-body]
    x = checked_array("x", x, min_ndim=2, floating=False)  # (..., T, d)
    x = x.astype(np.float64)  # integer x too, as in apply_rope
    half = checked_even("x.shape[-1]", x.shape[-1]) // 2
    theta = checked_array("inv_freq", inv_freq, ndim=1, last_dim=half, floating=False)
    positions = _checked_positions("positions", positions, x.shape)  # (n_axes, ..., T)
    pair_axis = checked_indices("pair_axis", pair_axis, half, len(positions))
    per_pair = np.moveaxis(positions[pair_axis], 0, -1)  # (..., T, d/2)
    angle = per_pair.astype(np.float64) * theta.astype(np.float64)  # (..., T, d/2)
    cos, sin = np.cos(angle), np.sin(angle)
    x1, x2 = np.split(x, 2, axis=-1)  # pair i = (x[i], x[i + d/2])
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


# --8<-- [end:rotate_by_axes-body]


def _rotate_by_axes_torch(x, positions, pair_axis, inv_freq):
    """Torch twin of [`rotate_by_axes`][]: float32/float64 work, x.dtype out;
    inv_freq a NumPy array (the defaults: taken in float64 for float64 x or
    positions, else float32) or a tensor on x's device; angles in the widest of
    them, as in `rope.apply_rope_torch`."""
    work, inv_freq = work_dtype(x), rope._angle_frequencies(inv_freq, x, positions)
    index = torch.from_numpy(pair_axis).to(x.device)
    per_pair = positions.to(inv_freq.dtype)[index].movedim(0, -1)  # (..., T, d/2)
    angle = per_pair * inv_freq
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    # pair i = (x[i], x[i + d/2]): rope's half-layout rotation
    return rope._rotate_torch(x.to(work), cos, sin, "half").to(x.dtype)


# --8<-- [start:apply_mrope]
def apply_mrope(
    x, positions_thw, *, mrope_section, base=10000.0, interleaved=False, inv_freq=None
):
    # --8<-- [end:apply_mrope]
    r"""Qwen2-VL's multimodal RoPE (NumPy, float64).

    Parameters
    ----------
    x : numpy.ndarray of shape (..., T, d)
        Queries or keys, e.g. `(B, H, T, d)`.
    positions_thw : integer array of shape (3, ..., T)
        Temporal, height and width position of every token; for (B, H, T, d)
        pass `(3, B, 1, T)` (HF's `(3, B, T)` is refused: it would pair with H).
        Text tokens have all three equal.
    mrope_section : sequence of int
        Pairs per section, adding up to d/2 (Qwen2-VL: `(16, 24, 24)`).
    base : float, default 10000.0
        RoPE base (`rope_theta`).
    interleaved : bool, default False
        Qwen3-VL's cyclic assignment instead of consecutive sections
        (`mrope_pair_axes`, which says which sections interleave).
    inv_freq : array of shape (d/2,), optional
        Frequencies of a scaling method (`posenc_docs.scaling`; a config's
        `rope_scaling` with `mrope_section` goes to `from_rope_scaling`) instead
        of $b^{-2i/d}$. The method's `attention_factor` is not applied here:
        multiply the rotated q and k by it (the logits grow by its square), as
        Hugging Face multiplies cos and sin by it.

    Returns
    -------
    numpy.ndarray
        Float64, x's shape broadcast with positions' leading dims.

    Notes
    -----
    Pair layout "half": pair i is `(x[i], x[i + d/2])`, turned by
    $p_{\mathrm{axis}(i)}\, b^{-2i/d}$, where axis(i) is the section of pair i
    (`mrope_pair_axes`). With `t = h = w` it is 1-D RoPE.
    """
    # --8<-- [start:apply_mrope-body]
    x = checked_array("x", x, min_ndim=2, floating=False)  # (..., T, d)
    d = checked_even("x.shape[-1]", x.shape[-1])
    pair_axis = _sections_for(d, mrope_section, interleaved)
    positions = _checked_positions("positions_thw", positions_thw, x.shape, 3)
    base = checked_real("base", base, gt=1)  # checked even beside an inv_freq
    theta = rope.inv_freq(d, base) if inv_freq is None else inv_freq  # (d/2,)
    return rotate_by_axes(x, positions, pair_axis, theta)


# --8<-- [end:apply_mrope-body]


def apply_mrope_torch(
    x, positions_thw, *, mrope_section, base=10000.0, interleaved=False, inv_freq=None
):
    """Torch twin of [`apply_mrope`][] (same arguments; tensors in, positions and
    a floating `inv_freq` on x's device).

    Returns
    -------
    torch.Tensor
        x's dtype, x's shape broadcast with the positions' leading dims.

    Notes
    -----
    Same formula and pair layout ("half"). Angles, cos and sin are float32
    (float64 for float64 x, and angles float64 for float64 positions or
    `inv_freq`, as in `rope.apply_rope_torch`); the result has x's dtype.
    Differentiable in x and in a tensor `inv_freq`.
    """
    x = checked_tensor("x", x, min_ndim=2)
    d = checked_even("x.shape[-1]", x.shape[-1])
    pair_axis = _sections_for(d, mrope_section, interleaved)
    positions = _checked_positions_torch("positions_thw", positions_thw, x, 3)
    base = checked_real("base", base, gt=1)  # checked even beside an inv_freq
    if inv_freq is None:
        return _rotate_by_axes_torch(x, positions, pair_axis, rope.inv_freq(d, base))
    theta = checked_frequencies("inv_freq", inv_freq, ndim=1, last_dim=d // 2)
    checked_same_device("inv_freq", theta, x.device)
    return _rotate_by_axes_torch(x, positions, pair_axis, theta)


def _axial_frequencies(d: int, base: float):
    """Pair axes (rows first, then columns) and frequencies for width d."""
    d = checked_even("x.shape[-1]", d)
    quarter = checked_even("x.shape[-1] / 2", d // 2) // 2  # d divisible by 4
    theta = rope.inv_freq(2 * quarter, checked_real("base", base, gt=1))  # (d/4,)
    return np.repeat([0, 1], quarter), np.tile(theta, 2)  # (d/2,) each


# --8<-- [start:axial_rope_2d]
def axial_rope_2d(x, positions_hw, *, base=10000.0):
    # --8<-- [end:axial_rope_2d]
    r"""2-D axial RoPE for image patches, as in Qwen2-VL's vision tower (NumPy).

    Parameters
    ----------
    x : numpy.ndarray of shape (..., T, d)
        Patch queries or keys; d divisible by 4.
    positions_hw : integer array of shape (2, ..., T)
        Row and column of every patch, in the order the patches come (e.g.
        `grid_positions`, row-major; a Qwen2-VL checkpoint orders its patches in
        `spatial_merge_size` blocks, so take their positions from its own order).
    base : float, default 10000.0
        RoPE base.

    Returns
    -------
    numpy.ndarray
        Float64, x's shape broadcast with positions' leading dims.

    Notes
    -----
    Pair layout "half": pair i is `(x[i], x[i + d/2])`. Pairs
    $i < d/4$ turn by $\text{row} \cdot b^{-4i/d}$, pairs $i \ge d/4$ by
    $\text{column} \cdot b^{-4(i - d/4)/d}$: each axis gets a d/2-wide RoPE.
    """
    # --8<-- [start:axial_rope_2d-body]
    x = checked_array("x", x, min_ndim=2, floating=False)  # (..., T, d)
    pair_axis, theta = _axial_frequencies(x.shape[-1], base)
    positions = _checked_positions("positions_hw", positions_hw, x.shape, 2)
    return rotate_by_axes(x, positions, pair_axis, theta)


# --8<-- [end:axial_rope_2d-body]


def axial_rope_2d_torch(x, positions_hw, *, base=10000.0):
    """Torch twin of [`axial_rope_2d`][] (same arguments; tensors in, positions on
    x's device).

    Returns
    -------
    torch.Tensor
        x's dtype, x's shape broadcast with the positions' leading dims.

    Notes
    -----
    Same formula and pair layout ("half"); float32 work (float64 for float64 x).
    """
    x = checked_tensor("x", x, min_ndim=2)
    pair_axis, theta = _axial_frequencies(x.shape[-1], base)
    positions = _checked_positions_torch("positions_hw", positions_hw, x, 2)
    return _rotate_by_axes_torch(x, positions, pair_axis, theta)


# --8<-- [start:grid_positions]
def grid_positions(height: int, width: int) -> np.ndarray:
    # --8<-- [end:grid_positions]
    r"""Row and column of each patch of a height x width grid, row-major.

    Parameters
    ----------
    height : int
        Rows of patches.
    width : int
        Columns of patches.

    Returns
    -------
    numpy.ndarray
        Integers, shape `(2, height * width)`: `[rows, columns]`.

    Notes
    -----
    Patch $k = r \cdot \text{width} + c$ has row r and column c. Qwen2-VL's
    vision tower orders its patches otherwise: in 2 x 2 blocks
    (`spatial_merge_size`), block after block.
    """
    # --8<-- [start:grid_positions-body]
    height, width = checked_int("height", height), checked_int("width", width)
    rows, cols = np.divmod(np.arange(height * width), width)
    return np.stack([rows, cols])  # (2, h*w)


# --8<-- [end:grid_positions-body]


# --8<-- [start:text_image_positions]
def text_image_positions(n_before: int, height: int, width: int, n_after: int):
    # --8<-- [end:text_image_positions]
    """M-RoPE positions of text, one image (height x width merged patches), text.

    Parameters
    ----------
    n_before : int
        Text tokens before the image (>= 0).
    height : int
        Rows of merged patches.
    width : int
        Columns of merged patches.
    n_after : int
        Text tokens after the image (>= 0).

    Returns
    -------
    numpy.ndarray
        Integers, shape `(3, n_before + height*width + n_after)`: rows t, h, w.

    Notes
    -----
    As Hugging Face's `get_rope_index` for Qwen2-VL: text token k gets
    `t = h = w = k`; with `s = n_before`, patch (r, c) gets `t = s`,
    `h = s + r`, `w = s + c`; the text after the image resumes at
    `s + max(height, width)`, not at `s + height*width`.
    """
    # --8<-- [start:text_image_positions-body]
    n_before = checked_int("n_before", n_before, minimum=0)
    n_after = checked_int("n_after", n_after, minimum=0)
    height, width = checked_int("height", height), checked_int("width", width)
    rows, cols = grid_positions(height, width)  # (h*w,) each
    text = np.arange(n_before)  # (n_before,)
    image = n_before + np.stack([np.zeros_like(rows), rows, cols])  # (3, h*w)
    after = n_before + max(height, width) + np.arange(n_after)  # (n_after,)
    return np.concatenate([np.stack([text] * 3), image, np.stack([after] * 3)], 1)


# --8<-- [end:text_image_positions-body]
