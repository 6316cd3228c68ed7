r"""Partial rotary embedding: RoPE on the first `rotary_dim` features of a head.

GPT-J (`rotary_dim`), GPT-NeoX (`rotary_pct`) and Phi (`partial_rotary_factor`)
rotate only a prefix of each query and key head; the remaining features pass
through unchanged and carry no position. The rotated prefix is a RoPE head of its
own: its pair frequencies are $b^{-2i/r}$ with r = `rotary_dim`, computed from
`rotary_dim`, not from the head width. Pair layouts as in
`posenc_docs.rope`, applied *within the prefix*:

- `"half"` (GPT-NeoX, Phi): pair i is `(x[i], x[i + r/2])` for i < r/2.
- `"interleaved"` (GPT-J): pair i is `(x[2i], x[2i+1])` for i < r/2.

`rotary_dim = 0` is accepted and returns the input unchanged (nothing rotated,
as in Hugging Face when `rotary_pct` rounds to 0), broadcast with the positions'
leading dims as for any other `rotary_dim`.

In a model, `rope.RotaryEmbedding(d, rotary_dim=r)` is the module form, with a
cos/sin cache and `attention_factor` on the rotated features (GPT-NeoX's r is
`int(head_dim * rotary_pct)`). It needs `rotary_dim >= 2`: for 0, skip the
rotation.

DeepSeek-V3's RoPE slice is the *last* `qk_rope_head_dim` = r features of each
query head (its keys' is a projection of its own), so it is not a prefix for
these functions. With `rope_interleave` (its default) Hugging Face rotates the
slice's interleaved pairs and writes the result half-split:
`apply_rotary_pos_emb_interleave` on a slice equals
`rope.apply_rope(slice, positions, layout="interleaved")` indexed by
`rope.interleaved_to_half_permutation(r)` on its last axis. The permutation is the
same for queries and keys, so $q \cdot k$ is unchanged; apply it to match HF's
tensors.
"""

import numpy as np
import torch

from posenc_docs import rope
from posenc_docs._checks import (
    checked_array,
    checked_choice,
    checked_even,
    checked_frequencies,
    checked_position_dims,
    checked_real,
    checked_same_device,
    checked_tensor,
)


def _checked_config(rotary_dim, x_shape: tuple, positions, base, layout, inv_freq):
    """rotary_dim as an int, after checking it, base, layout, the length of an
    inv_freq of the right kind, and positions' leading dims against x's (here, so
    that an error shows x's shape and rotary_dim, not the prefix's width)."""
    checked_choice("layout", layout, rope.LAYOUTS)
    checked_real("base", base, gt=1)
    rotary_dim = checked_even("rotary_dim", rotary_dim, minimum=0)
    d = x_shape[-1]
    if rotary_dim > d:
        raise ValueError(
            f"rotary_dim must be <= the head width x.shape[-1] = {d}, got {rotary_dim}"
        )
    if (shape := getattr(positions, "shape", None)) is not None and len(shape) > 1:
        checked_position_dims("positions", tuple(shape[:-1]), x_shape, "(B, 1, T)")
    if inv_freq is not None and tuple(inv_freq.shape) != (rotary_dim // 2,):
        raise ValueError(
            f"inv_freq must have shape (rotary_dim/2,) = ({rotary_dim // 2},) for "
            f"rotary_dim = {rotary_dim}, got {tuple(inv_freq.shape)}"
        )
    return rotary_dim


# --8<-- [start:apply_partial_rope]
def apply_partial_rope(
    x, positions, *, rotary_dim, base=10000.0, layout="half", inv_freq=None
):
    # --8<-- [end:apply_partial_rope]
    r"""Rotate the first `rotary_dim` features of x; pass the rest through.

    Parameters
    ----------
    x : numpy.ndarray of shape (..., T, d)
        Queries or keys, e.g. `(B, H, T, d)`.
    positions : array of shape (T,) or broadcastable (..., T)
        Position m of each token.
    rotary_dim : int
        Features rotated, even, `0 <= rotary_dim <= d` (GPT-NeoX-20B: 24 of 96).
    base : float, default 10000.0
        RoPE base b.
    layout : str, default "half"
        Pair layout inside the rotated prefix `x[..., :r]`: `"half"` (GPT-NeoX,
        Phi), pair i is `(x[i], x[i + r/2])`; or `"interleaved"` (GPT-J), pair i
        is `(x[2i], x[2i+1])`; in both, i < r/2.
    inv_freq : array of shape (rotary_dim/2,), optional
        Frequencies of a scaling method instead of $b^{-2i/r}$: the method
        called with d = `rotary_dim`, or `scaling.from_rope_scaling` with the
        head width when the config's dict holds `partial_rotary_factor`. Of
        shape (0,) when `rotary_dim` is 0 (checked, not used). The method's
        `attention_factor` scales the rotated features only (Hugging Face
        multiplies cos and sin by it): multiply `out[..., :rotary_dim]`, or
        use `rope.RotaryEmbedding(d, rotary_dim=..., attention_factor=...)`.

    Returns
    -------
    numpy.ndarray
        float64, same shape as x (broadcast with positions' leading dims).

    Notes
    -----
    With r = `rotary_dim`: `out[..., :r]` is RoPE of `x[..., :r]` at m with
    pair frequencies $\theta_i = b^{-2i/r}$, $i = 0, \dots, r/2 - 1$, and
    `out[..., r:] = x[..., r:]`. So $q \cdot k$ is a function of $n - m$ in its
    first r terms and of the features alone in the other $d - r$.
    """
    # --8<-- [start:apply_partial_rope-body]
    x = checked_array("x", x, min_ndim=2, floating=False).astype(np.float64)
    if inv_freq is not None:  # its kind first, then its length against rotary_dim
        inv_freq = checked_array("inv_freq", inv_freq, ndim=1, floating=False)
    r = _checked_config(rotary_dim, x.shape, positions, base, layout, inv_freq)
    if r == 0:  # nothing rotated; positions still checked and broadcast as for r > 0
        lead = rope.apply_rope(np.zeros((*x.shape[:-1], 2)), positions).shape[:-1]
        return np.broadcast_to(x, (*lead, x.shape[-1])).copy()
    rotated = rope.apply_rope(
        x[..., :r], positions, base=base, layout=layout, inv_freq=inv_freq
    )
    passed = np.broadcast_to(x[..., r:], (*rotated.shape[:-1], x.shape[-1] - r))
    return np.concatenate([rotated, passed], axis=-1)  # (..., T, d)


# --8<-- [end:apply_partial_rope-body]


# --8<-- [start:apply_partial_rope_torch]
def apply_partial_rope_torch(
    x, positions, *, rotary_dim, base=10000.0, layout="half", inv_freq=None
):
    # --8<-- [end:apply_partial_rope_torch]
    r"""Torch twin of [`apply_partial_rope`][] (same arguments, tensors in).

    Returns
    -------
    torch.Tensor
        x's dtype, x's shape broadcast with positions' leading dims.

    Notes
    -----
    Same formula: `out[..., :r]` is `rope.apply_rope_torch` of the prefix with
    $\theta_i = b^{-2i/r}$, `out[..., r:] = x[..., r:]`. Same pair layouts,
    within the prefix: `"half"` (the default), pair i is `(x[i], x[i + r/2])`;
    `"interleaved"`, pair i is `(x[2i], x[2i+1])`. Keeps x's dtype (angles in
    float32, float64 if x, positions or `inv_freq` is float64) and is
    differentiable in x (and in a tensor `inv_freq`, as `rope.apply_rope_torch`).
    """
    # --8<-- [start:apply_partial_rope_torch-body]
    x = checked_tensor("x", x, min_ndim=2)
    if inv_freq is not None:  # its kind first, then its length against rotary_dim
        inv_freq = checked_frequencies("inv_freq", inv_freq, ndim=1)
        checked_same_device("inv_freq", inv_freq, x.device)
    r = _checked_config(rotary_dim, x.shape, positions, base, layout, inv_freq)
    if r == 0:  # nothing rotated; positions still checked and broadcast as for r > 0
        dummy = x.new_zeros((*x.shape[:-1], 2))
        shape = (*rope.apply_rope_torch(dummy, positions).shape[:-1], x.shape[-1])
        return x.expand(shape).clone()  # a new tensor, as for r > 0: not a view
    rotated = rope.apply_rope_torch(
        x[..., :r], positions, base=base, layout=layout, inv_freq=inv_freq
    )
    passed = x[..., r:].expand(*rotated.shape[:-1], x.shape[-1] - r)
    return torch.cat([rotated, passed], dim=-1)  # (..., T, d)


# --8<-- [end:apply_partial_rope_torch-body]
