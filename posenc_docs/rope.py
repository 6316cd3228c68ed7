r"""Rotary position embedding (RoPE; Su et al., RoFormer, 2021).

RoPE rotates each pair of query/key features by an angle proportional to the
token's position m: pair i turns by $m\, \theta_i$ with
$\theta_i = b^{-2i/d}$ (b = `base`). Two pair layouts exist and are *not*
interchangeable without permuting the q/k weights:

- `"interleaved"`: pair i is `(x[2i], x[2i+1])` (RoFormer, GPT-J, Meta llama).
- `"half"`: pair i is `(x[i], x[i + d/2])` (GPT-NeoX, Hugging Face LLaMA).

The NumPy functions are the float64 reference; each `*_torch` function and
`RotaryEmbedding` is its PyTorch twin, tested equal to it. Torch paths never
form angles in bf16/fp16: angles, cos and sin are float32 (float64 if given),
and only the result is cast back to the input dtype.
"""

import numpy as np
import torch

from posenc_docs import _checks

LAYOUTS = ("interleaved", "half")


# --8<-- [start:inv_freq]
def inv_freq(d: int, base: float = 10000.0) -> np.ndarray:
    # --8<-- [end:inv_freq]
    r"""Rotation frequencies of the d/2 pairs (NumPy, float64).

    Parameters
    ----------
    d : int
        Rotary dimension (even, >= 2).
    base : float, default 10000.0
        The RoPE base b (`rope_theta`), > 1.

    Returns
    -------
    numpy.ndarray
        Shape `(d/2,)`, from 1 down to $b^{-(d-2)/d}$ (about 1/base for
        large d).

    Notes
    -----
    $\theta_i = b^{-2i/d}$ for $i = 0, \dots, d/2 - 1$ (RoFormer eq. 15).
    """
    # --8<-- [start:inv_freq-body]
    d = _checks.checked_even("d", d)
    base = _checks.checked_real("base", base, gt=1)
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)


# --8<-- [end:inv_freq-body]

_default_inv_freq = inv_freq  # parameters named `inv_freq` shadow the function


def angles(positions, inv_freq) -> np.ndarray:
    r"""Rotation angle of every pair at every position (NumPy, float64).

    Parameters
    ----------
    positions : array_like of shape (..., T)
        Token positions m (integers, or floats for interpolated positions).
    inv_freq : array_like of shape (d/2,)
        Pair frequencies $\theta_i$.

    Returns
    -------
    numpy.ndarray
        Shape `(..., T, d/2)`, float64.

    Notes
    -----
    `angle[..., t, i]` is $m_t\, \theta_i$, with $m_t$ = `positions[..., t]`.
    """
    positions = _checks.checked_array("positions", positions, floating=False)
    theta = _checks.checked_array("inv_freq", inv_freq, floating=False, ndim=1)
    return np.multiply.outer(positions.astype(np.float64), theta.astype(np.float64))


def _check_shapes(x, positions, theta) -> None:
    """Raise a ValueError naming the argument whose shape does not fit x."""
    T, d = x.shape[-2], x.shape[-1]
    _checks.checked_even("d = x.shape[-1]", d)
    if theta is not None and tuple(theta.shape) != (d // 2,):
        raise ValueError(
            f"inv_freq must have shape (d/2,) = ({d // 2},) for d = x.shape[-1] = "
            f"{d}, got {tuple(theta.shape)}"
        )
    if positions.shape[-1] != T:
        raise ValueError(
            f"positions must have shape (..., T) with T = x.shape[-2] = {T}, "
            f"got shape {tuple(positions.shape)}"
        )
    lead, x_lead = tuple(positions.shape[:-1]), tuple(x.shape[:-2])
    _checks.checked_position_dims("positions", lead, x.shape, "(B, 1, T)")
    try:
        _checks.broadcast_shapes(lead, x_lead)
    except ValueError:
        raise ValueError(
            f"positions shape {tuple(positions.shape)} does not broadcast against "
            f"x shape {tuple(x.shape)} (for (B, H, T, d) pass (B, 1, T))"
        ) from None


def _numpy_args(x, positions, base, inv_freq, layout="interleaved"):
    """Checked float64 x, positions and frequencies for the NumPy functions."""
    _checks.checked_choice("layout", layout, LAYOUTS)
    base = _checks.checked_real("base", base, gt=1)
    x = _checks.checked_array("x", x, min_ndim=2, floating=False).astype(np.float64)
    positions = _checks.checked_array("positions", positions, floating=False)
    theta = None
    if inv_freq is not None:
        theta = _checks.checked_array("inv_freq", inv_freq, floating=False)
    _check_shapes(x, positions, theta)
    if theta is None:
        theta = _default_inv_freq(x.shape[-1], base)
    return x, positions, theta


# --8<-- [start:apply_rope]
def apply_rope(x, positions, *, base=10000.0, layout="interleaved", inv_freq=None):
    # --8<-- [end:apply_rope]
    r"""Rotate the feature pairs of x by their positions' angles (NumPy, float64).

    Parameters
    ----------
    x : array_like of shape (..., T, d)
        Queries or keys, e.g. `(B, H, T, d)`.
    positions : array_like of shape (T,) or broadcastable (..., T)
        Position m of each token. Leading dims align with x's from the right:
        for `(B, H, T, d)` x, per-sequence positions are `(B, 1, T)`; for
        `(B, T, d)` x they are `(B, T)`. Fewer leading dims than x's, other than
        1s (HF's `(B, T)` position_ids for `(B, H, T, d)`), are refused. More are
        broadcast into the result, with no error: `(B, 1, T)` positions with
        `(B, T, d)` x give a `(B, B, T, d)` result.
    base : float, default 10000.0
        RoPE base, used only when `inv_freq` is None (still checked to be > 1).
    layout : str, default "interleaved"
        Pair layout. `"interleaved"` (RoFormer, GPT-J, Meta's LLaMA
        checkpoints): pair i is `(x[2i], x[2i+1])`. `"half"` (GPT-NeoX and
        Hugging Face LLaMA-family checkpoints; `RotaryEmbedding`'s default):
        pair i is `(x[i], x[i + d/2])`. The other layout raises no error; it
        gives wrong scores.
    inv_freq : array_like of shape (d/2,), optional
        Frequencies to use instead of $b^{-2i/d}$ (e.g. from a scaling method).

    Returns
    -------
    numpy.ndarray
        float64, x's shape broadcast with positions' leading dims.

    Notes
    -----
    For pair (a, b) of a token at position m,

    $$\begin{aligned}
    a' &= a \cos(m\theta_i) - b \sin(m\theta_i), \\
    b' &= b \cos(m\theta_i) + a \sin(m\theta_i).
    \end{aligned}$$
    """
    # --8<-- [start:apply_rope-body]
    x, positions, theta = _numpy_args(x, positions, base, inv_freq, layout)
    angle = angles(positions, theta)  # (..., T, d/2)
    cos, sin = np.cos(angle), np.sin(angle)
    if layout == "interleaved":
        x1, x2 = x[..., 0::2], x[..., 1::2]  # pair i = (x[2i], x[2i+1])
    else:
        x1, x2 = np.split(x, 2, axis=-1)  # pair i = (x[i], x[i + d/2])
    out1, out2 = x1 * cos - x2 * sin, x2 * cos + x1 * sin  # (..., T, d/2) each
    if layout == "interleaved":
        pairs = np.stack([out1, out2], axis=-1)  # (..., T, d/2, 2)
        return pairs.reshape(*out1.shape[:-1], 2 * out1.shape[-1])  # (..., T, d)
    return np.concatenate([out1, out2], axis=-1)  # (..., T, d)


# --8<-- [end:apply_rope-body]


def apply_rope_complex(x, positions, *, base=10000.0, inv_freq=None):
    r"""RoPE in Meta's complex form (NumPy, complex128; interleaved layout).

    Parameters
    ----------
    x : array_like of shape (..., T, d)
        Queries or keys.
    positions : array_like of shape (T,) or broadcastable (..., T)
        Position m of each token.
    base : float, default 10000.0
        RoPE base, used only when `inv_freq` is None (still checked to be > 1).
    inv_freq : array_like of shape (d/2,), optional
        Frequencies to use instead of $b^{-2i/d}$.

    Returns
    -------
    numpy.ndarray
        float64; equals `apply_rope(..., layout="interleaved")`.

    Notes
    -----
    Pair i is `(x[2i], x[2i+1])`, read as $z_i = x_{2i} + j\, x_{2i+1}$ and
    multiplied by $e^{j m \theta_i}$; real and imaginary parts go back to
    `2i` and `2i+1`.
    """
    x, positions, theta = _numpy_args(x, positions, base, inv_freq)
    z = x[..., 0::2] + 1j * x[..., 1::2]  # (..., T, d/2) complex128
    rotated = z * np.exp(1j * angles(positions, theta))
    pairs = np.stack([rotated.real, rotated.imag], -1)  # (..., T, d/2, 2)
    return pairs.reshape(*rotated.shape[:-1], 2 * rotated.shape[-1])  # (..., T, d)


def rotation_matrix(m, d: int, base: float = 10000.0, *, layout="interleaved"):
    r"""The (d, d) rotation $R_m$ that RoPE applies at position m (NumPy, float64).

    Parameters
    ----------
    m : float
        Position.
    d : int
        Rotary dimension (even, >= 2).
    base : float, default 10000.0
        RoPE base.
    layout : str, default "interleaved"
        Pair layout: `"interleaved"`, pair i is `(x[2i], x[2i+1])`;
        or `"half"`, pair i is `(x[i], x[i + d/2])`.

    Returns
    -------
    numpy.ndarray
        Shape `(d, d)`: for x of shape (d,),
        `apply_rope(x[None], [m], base=base, layout=layout)[0] == R_m @ x`.

    Notes
    -----
    Interleaved, $R_m$ is block diagonal (RoFormer eq. 15): block i is

    $$\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\
    \sin m\theta_i & \cos m\theta_i \end{pmatrix}.$$

    The half layout holds the same blocks in rows and columns i and i + d/2.
    $R_m^\top R_n = R_{n-m}$: the score $q^\top R_m^\top R_n k$ depends on
    $n - m$.
    """
    m = _checks.checked_real("m", m)
    d = _checks.checked_even("d", d)
    identity = np.eye(d)  # row j of apply_rope(identity) is R_m e_j
    return apply_rope(identity, np.full(d, m), base=base, layout=layout).T


def relative_upper_bound(distance, d: int = 128, base: float = 10000.0):
    r"""RoFormer's long-term decay bound (section 3.4.3) at each relative distance.

    Parameters
    ----------
    distance : array_like
        Relative distances m - n (any shape).
    d : int, default 128
        Rotary dimension (even, >= 2).
    base : float, default 10000.0
        RoPE base.

    Returns
    -------
    numpy.ndarray or numpy.float64
        float64, distance's shape.

    Notes
    -----
    With partial sums $S_j = \sum_{i<j} e^{\mathrm{i}(m-n)\theta_i}$ RoFormer bounds
    the score by $\max_i |h_{i+1} - h_i| \sum_j |S_j|$; this returns the
    distance-dependent factor averaged over the d/2 sums,
    $\frac{2}{d} \sum_{j=1}^{d/2} |S_j|$, which starts at $(d/2 + 1)/2$.
    """
    distance = _checks.checked_array("distance", distance, min_ndim=0, floating=False)
    phase = np.multiply.outer(distance.astype(np.float64), inv_freq(d, base))
    real = np.cumsum(np.cos(phase), axis=-1)  # (..., d/2): Re S_1 .. Re S_{d/2}
    imag = np.cumsum(np.sin(phase), axis=-1)  # real cos and sin: 8x complex exp's speed
    return np.hypot(real, imag).mean(axis=-1)  # |S_j|, averaged


# ---------------------------------------------------------------- torch


def angles_torch(positions: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    r"""Torch twin of [`angles`][] (same arguments, tensors in): every pair's angle.

    Parameters
    ----------
    positions : torch.Tensor of shape (..., T)
        Token positions m: integer, float32 or float64 (a narrower float has
        rounded them already: bf16 holds integers exactly only up to 256).
    inv_freq : torch.Tensor of shape (d/2,)
        Pair frequencies $\theta_i$, floating (16-bit or wider), on positions'
        device.

    Returns
    -------
    torch.Tensor
        Shape `(..., T, d/2)`; float64 if either input is float64, else float32.

    Notes
    -----
    bf16 keeps 8 significant bits: integers are exact only up to 256 (1001
    rounds to 1000), and $\theta_i$ and the product are each rounded by up to 0.4%
    (2 radians on an angle of 1000). So inputs are upcast to float32 first, whose
    integers are exact up to $2^{24}$ = 16,777,216; float64 goes further.
    """
    positions = _checks.checked_positions("positions", positions)
    theta = _checks.checked_frequencies("inv_freq", inv_freq, ndim=1)
    _checks.checked_same_device("inv_freq", theta, positions.device)
    work = _checks.work_dtype(positions, theta)
    return positions.to(work)[..., None] * theta.to(work)  # (..., T, d/2)


def _torch_args(x, positions, base, inv_freq, layout="interleaved"):
    """Checked x, positions and frequencies (x's device) for the torch functions."""
    _checks.checked_choice("layout", layout, LAYOUTS)
    base = _checks.checked_real("base", base, gt=1)
    x = _checks.checked_tensor("x", x, min_ndim=2)
    positions = _checks.checked_positions("positions", positions)
    _checks.checked_same_device("positions", positions, x.device)
    if inv_freq is None:
        _checks.checked_even("d = x.shape[-1]", x.shape[-1])
        inv_freq = _default_inv_freq(x.shape[-1], base)
    else:
        _checks.checked_frequencies("inv_freq", inv_freq)
    inv_freq = _angle_frequencies(inv_freq, x, positions)
    _check_shapes(x, positions, inv_freq)
    return x, positions, inv_freq


def _angle_frequencies(inv_freq, x, positions) -> torch.Tensor:
    """Frequencies to form angles with, on x's device: a NumPy array (defaults) in
    the rotation's dtype, float64 for float64 positions too; a tensor widened
    alike, to float64 for float64 x or positions."""
    work = _checks.work_dtype(x, positions)
    if isinstance(inv_freq, np.ndarray):
        return torch.from_numpy(inv_freq).to(x.device, work)
    return inv_freq.to(torch.promote_types(inv_freq.dtype, work))


def _rotate_complex_torch(x: torch.Tensor, cis: torch.Tensor) -> torch.Tensor:
    """Multiply pairs (x[2i], x[2i+1]) as complex numbers by `cis`.

    Traced, the product is written in real arithmetic: a complex view of a
    contiguous x at an odd storage offset fails inside torch's compiler, which
    drops any copy made first. (Inductor's one pass of it is slower than its
    complex product: 1.3x a clone against 1.1x, forward.)
    """
    pairs = x.unflatten(-1, (-1, 2))  # (..., T, d/2, 2), a view
    if torch.compiler.is_compiling():
        a, b = pairs.unbind(-1)  # (..., T, d/2) each
        cos, sin = torch.view_as_real(cis).unbind(-1)
        return torch.stack([a * cos - b * sin, b * cos + a * sin], -1).flatten(-2)
    try:
        as_complex = torch.view_as_complex(pairs)
    except RuntimeError:  # strides or an odd storage offset no complex view reads:
        fresh = pairs.clone(memory_format=torch.contiguous_format)  # a copy at 0
        as_complex = torch.view_as_complex(fresh)
    return torch.view_as_real(as_complex * cis).flatten(-2)  # (..., T, d)


def _across_rows(t: torch.Tensor, first: int, second: int) -> torch.Tensor:
    """A (..., T-1, 2, d/2) view of t (..., T, d), no copy.

    `[..., i, 0, :]` is `t[..., i, first:first + d/2]` and `[..., i, 1, :]` is
    `t[..., i + 1, second:second + d/2]`: one half of a row beside the other half
    of the next row, so that one strided op reaches both halves.
    """
    *lead, length, d = t.shape
    *lead_strides, row, col = t.stride()
    size = (*lead, length - 1, 2, d // 2)
    strides = (*lead_strides, row, row + (second - first) * col, col)
    return t[..., first:].as_strided(size, strides)  # from t's offset + first


def _rotate_half(x, cos, sin):
    """x (..., T, d) rotated by cos/sin (..., T, d/2) in the half layout.

    Two passes: `out = x cos`, then one addcmul that adds `+a sin` to the
    second half of row t and `-b sin` to the first half of row t + 1 for every t
    at once (through `_across_rows` views), and two one-row fix-ups at the ends.
    HF's `x cos + rotate_half(x) sin` makes five passes and two temporaries.
    """
    half, length = x.shape[-1] // 2, x.shape[-2]
    out = x * torch.cat([cos, cos], dim=-1)  # (..., T, d): (a cos, b cos)
    x = x.expand(out.shape)
    if length > 1:
        if out.stride(-2) < half * out.stride(-1):  # e.g. T innermost: no such view
            out = out.contiguous()
        sin_pairs = torch.stack([sin[..., :-1, :], -sin[..., 1:, :]], dim=-2)
        _across_rows(out, half, 0).addcmul_(_across_rows(x, 0, half), sin_pairs)
    out[..., :1, :half].addcmul_(x[..., :1, half:], sin[..., :1, :], value=-1)
    out[..., -1:, half:].addcmul_(x[..., -1:, :half], sin[..., -1:, :])
    return out


def _rotate_half_traceable(x, cos, sin):
    """`_rotate_half` in ops that `torch.compile`, `torch.func` and autograd's own
    vmap (batched grads) trace: no writes through `as_strided`, no `flatten`.
    Inductor (CPU) makes of them one vectorized pass, 1.2x a copy of x. The stacked
    cos/sin is a stored table: as two expressions, inductor computed sin and cos
    again for each of the B*H heads reading them (7x a copy)."""
    a, b = x.chunk(2, dim=-1)  # (..., T, d/2) each
    cos, sin = torch.stack([cos, sin]).unbind()  # (..., T, d/2) each, stored
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)


class _HalfRotation(torch.autograd.Function):
    """Half-layout rotation with a hand-written backward.

    The backward is the transposed rotation R_m^T g = R_(-m) g: the same two
    passes with sin negated, where autograd's own would copy the gradient twice.
    It is itself differentiable (gradient penalties, Hessian-vector products).
    The rotation is linear in x and in (cos, sin) alike, so forward-mode AD's
    tangent is R(x_t; cos, sin) + R(x; cos_t, sin_t).
    """

    @staticmethod
    def forward(ctx, x, cos, sin):
        wants_x = any(ctx.needs_input_grad[1:])  # only for cos/sin gradients
        ctx.save_for_backward(x if wants_x else None, cos, sin)
        ctx.save_for_forward(x, cos, sin)
        ctx.x_shape = x.shape
        return _rotate_half(x, cos, sin)

    @staticmethod
    def jvp(ctx, x_t, cos_t, sin_t):  # tangents may be batched (forward-mode vmap)
        x, cos, sin = ctx.saved_tensors
        tangents = []
        if x_t is not None:
            tangents.append(_rotate_half_any(x_t, cos, sin))
        if cos_t is not None or sin_t is not None:
            cos_t = torch.zeros_like(cos) if cos_t is None else cos_t
            sin_t = torch.zeros_like(sin) if sin_t is None else sin_t
            tangents.append(_rotate_half_any(x, cos_t, sin_t))
        return sum(tangents[1:], tangents[0])

    @staticmethod
    def backward(ctx, grad):  # grad (..., T, d)
        x, cos, sin = ctx.saved_tensors
        grad_x = grad_cos = grad_sin = None
        if ctx.needs_input_grad[0]:  # through vmap too (batched grads, jacobians)
            grad_x = _rotate_torch(grad, cos, -sin, "half").sum_to_size(ctx.x_shape)
        if x is not None:  # learned or differentiable frequencies
            (g1, g2), (x1, x2) = grad.chunk(2, dim=-1), x.chunk(2, dim=-1)
            grad_cos = (g1 * x1 + g2 * x2).sum_to_size(cos.shape)
            grad_sin = (g2 * x1 - g1 * x2).sum_to_size(sin.shape)
        return grad_x, grad_cos, grad_sin


def _transformed(x: torch.Tensor) -> bool:
    """Whether x is traced (torch.compile), transformed (torch.func) or batched by
    autograd's own vmap (`is_grads_batched`, `jacobian(vectorize=True)`): none of
    them takes the writes through `as_strided` views of `_rotate_half`."""
    legacy_batched = getattr(torch._C._functorch, "is_legacy_batchedtensor", None)
    return (
        torch.compiler.is_compiling()
        or torch._C._are_functorch_transforms_active()
        or (legacy_batched is not None and legacy_batched(x))  # not in every torch
    )


def _rotate_half_any(x, cos, sin):
    """`_rotate_half`, or its traceable form where any operand is transformed."""
    if any(_transformed(t) for t in (x, cos, sin)):
        return _rotate_half_traceable(x, cos, sin)
    return _rotate_half(x, cos, sin)


def _rotate_torch(x, cos, sin, layout):
    """Rotate x (..., T, d) by cos/sin (..., T, d/2) of the same dtype."""
    if layout == "interleaved":
        return _rotate_complex_torch(x, torch.complex(cos, sin))
    if _transformed(x):
        return _rotate_half_traceable(x, cos, sin)
    return _HalfRotation.apply(x, cos, sin)


def apply_rope_torch(
    x, positions, *, base=10000.0, layout="interleaved", inv_freq=None
):
    r"""Torch twin of [`apply_rope`][]: the same arguments, tensors in.

    Parameters
    ----------
    x : torch.Tensor of shape (..., T, d)
        Any floating dtype (float8 included: the rotation runs in float32 and
        only the result is cast back).
    positions : torch.Tensor of shape (T,) or broadcastable (..., T)
        Integer, float32 or float64, on x's device, aligned with x's leading
        dims as in `apply_rope`: for `(B, H, T, d)` x and Hugging Face's
        `(B, T)` position_ids, pass `position_ids[:, None, :]`.
    base : float, default 10000.0
        RoPE base, used only when `inv_freq` is None.
    layout : str, default "interleaved"
        `"interleaved"` (Meta's, RoFormer's): pair i is `(x[2i], x[2i+1])`;
        `"half"` (Hugging Face LLaMA-family checkpoints): pair i is
        `(x[i], x[i + d/2])`.
    inv_freq : torch.Tensor of shape (d/2,), optional
        Floating (16-bit or wider), on x's device: for a scaling method's NumPy
        array pass `torch.from_numpy(inv_freq)`. It may require grad: the
        rotation is differentiable in x, `inv_freq` and floating positions.

    Returns
    -------
    torch.Tensor
        x.dtype, x's shape broadcast with positions' leading dims.

    Raises
    ------
    TypeError
        An argument of the wrong kind: x, positions or `inv_freq` not a tensor
        (a NumPy array included), an integer x, bf16 or fp16 positions, a
        float8 `inv_freq`, a `layout` or `base` that is not a str or a number.
    ValueError
        A wrong value: an odd d, positions whose shape does not fit x's (e.g.
        `(B, T)` for `(B, H, T, d)` x), an `inv_freq` not of shape (d/2,), a
        tensor on another device than x, an unknown `layout`, a base <= 1.

    Notes
    -----
    $a' = a \cos(m\theta_i) - b \sin(m\theta_i)$,
    $b' = b \cos(m\theta_i) + a \sin(m\theta_i)$, as in `apply_rope`. Angles are
    float64 if x, positions or inv_freq is float64, else float32; the rotation runs
    in float32 (float64 for float64 x). Interleaved: Meta's complex product, one
    pass over x; half: two, fused into one by `torch.compile`. For one pass
    without compiling, permute a half-layout model's q and k weights once
    (`permute_qk_weight` with `half_to_interleaved_permutation`) and rotate
    interleaved: the logits $q \cdot k$ are the same.
    """
    x, positions, theta = _torch_args(x, positions, base, inv_freq, layout)
    work = _checks.work_dtype(x)
    angle = angles_torch(positions, theta)  # (..., T, d/2), float32 or float64
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    return _rotate_torch(x.to(work), cos, sin, layout).to(x.dtype)


def apply_rope_complex_torch(x, positions, *, base=10000.0, inv_freq=None):
    r"""Torch twin of [`apply_rope_complex`][] (same arguments, tensors in).

    Returns
    -------
    torch.Tensor
        x.dtype; equals `apply_rope_torch(..., layout="interleaved")`.

    Notes
    -----
    Pair i is `(x[2i], x[2i+1])` read as $x_{2i} + j\, x_{2i+1}$, times
    $e^{j m \theta_i}$ formed by `torch.polar`; complex64 (complex128 for float64).
    Under `torch.compile` the same product is traced in real arithmetic.
    """
    x, positions, theta = _torch_args(x, positions, base, inv_freq)
    work = _checks.work_dtype(x)
    angle = angles_torch(positions, theta)  # (..., T, d/2), float64 if theta is
    cis = torch.polar(torch.ones_like(angle), angle)  # e^(j m theta_i), then
    cis = cis.to(torch.promote_types(work, torch.complex64))  # rounded to x's work
    return _rotate_complex_torch(x.to(work), cis).to(x.dtype)


# ---------------------------------------------------------------- layouts


# --8<-- [start:interleaved_to_half_permutation]
def interleaved_to_half_permutation(d: int) -> np.ndarray:
    # --8<-- [end:interleaved_to_half_permutation]
    r"""Row order converting one head's q/k weight rows from interleaved to half.

    Parameters
    ----------
    d : int
        Head (rotary) dimension, even.

    Returns
    -------
    numpy.ndarray
        Integer indices `perm`, shape `(d,)`, with
        `W_half = W_interleaved[perm]` (Meta checkpoint -> Hugging Face).

    Notes
    -----
    New row $c\,d/2 + i$ takes old row $2i + c$ (c = 0, 1): the
    interleaved pair (2i, 2i+1) becomes the half pair (i, i + d/2), so
    the same two features turn by the same angle and $q \cdot k$ is unchanged.
    This is `permute` in HF's `convert_llama_weights_to_hf`, applied to
    W_q and W_k only (W_v and W_o are untouched). For a `(n_heads*d, hidden)`
    weight apply it within each head: `permute_qk_weight`.
    """
    # --8<-- [start:interleaved_to_half_permutation-body]
    d = _checks.checked_even("d", d)
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])  # (d,)


# --8<-- [end:interleaved_to_half_permutation-body]


def half_to_interleaved_permutation(d: int) -> np.ndarray:
    r"""Row order converting one head's q/k weight rows from half to interleaved.

    Parameters
    ----------
    d : int
        Head (rotary) dimension, even.

    Returns
    -------
    numpy.ndarray
        Integer indices `perm`, shape `(d,)`, with
        `W_interleaved = W_half[perm]` (Hugging Face -> Meta layout).

    Notes
    -----
    New row $2i + c$ takes old row $c\,d/2 + i$ (c = 0, 1); the inverse of
    `interleaved_to_half_permutation`.
    """
    half = _checks.checked_even("d", d) // 2
    first, second = np.arange(half), np.arange(half, 2 * half)
    return np.stack([first, second], axis=-1).reshape(-1)  # 0, d/2, 1, d/2+1, ...


def permute_qk_weight(w, n_heads: int, perm):
    r"""Permute the rows of every head of a q or k projection weight (or bias).

    Parameters
    ----------
    w : numpy.ndarray or torch.Tensor of shape (n_heads × d, ...)
        Rows are output features, head after head (`nn.Linear.weight` layout).
    n_heads : int
        Heads in w: `n_heads` for W_q, `n_kv_heads` for W_k.
    perm : integer array of shape (d,)
        A permutation of 0..d-1, e.g. from `interleaved_to_half_permutation`.

    Returns
    -------
    numpy.ndarray or torch.Tensor
        Same type and shape as w; row $h d + r$ is old row $h d + \mathrm{perm}[r]$.
    """
    n_heads = _checks.checked_int("n_heads", n_heads)
    if not isinstance(w, np.ndarray | torch.Tensor):
        raise TypeError(f"w must be a numpy.ndarray or torch.Tensor, got {w!r}")
    if w.ndim < 1:
        raise ValueError(f"w must have at least 1 dim (rows), got shape {w.shape}")
    d = w.shape[0] // n_heads
    if w.shape[0] != n_heads * d:
        raise ValueError(
            f"w.shape[0] must be a multiple of n_heads = {n_heads}, "
            f"got w.shape = {tuple(w.shape)}"
        )
    perm = _checks.checked_permutation("perm", perm, d).tolist()
    per_head = w.reshape(n_heads, d, *w.shape[1:])  # (n_heads, d, ...)
    return per_head[:, perm].reshape(w.shape)


# ---------------------------------------------------------------- module


def _checked_rotary_dim(rotary_dim, d: int) -> int:
    """RotaryEmbedding's `rotary_dim`: d when None, else even, 2 <= it <= d."""
    if rotary_dim is None:
        return d
    rotary_dim = _checks.checked_even("rotary_dim", rotary_dim)
    if rotary_dim > d:
        raise ValueError(f"rotary_dim must be <= d = {d}, got {rotary_dim}")
    return rotary_dim


@torch.inference_mode(False)  # built or updated in an inference pass, it trains
def _module_frequencies(inv_freq, rotary_dim: int, base, *, copy: bool = True):
    """RotaryEmbedding's checked float32 frequencies: (their values on the CPU,
    to rebuild from, or None for a meta tensor; the tensor on its device). With
    `copy` (building the module) the tensor is the module's own, so an in-place
    write to its buffer reaches no caller's array and no other module; without
    (taking up an assigned buffer) it is the float32 tensor assigned, so writes
    through it keep reaching the module. Neither is an inference tensor (made
    outside inference mode), which could not be written to or versioned later."""
    theta = _default_inv_freq(rotary_dim, base) if inv_freq is None else inv_freq
    values = None  # the CPU values, once known
    if not isinstance(theta, torch.Tensor):  # a NumPy array (posenc_docs.scaling)
        checked = _checks.checked_array("inv_freq", theta)
        values = torch.from_numpy(checked).float().clone()  # CPU; a copy, as is theta
        theta = values.to(torch.get_default_device())  # as nn.Linear's weight
    theta = _checks.checked_frequencies("inv_freq", theta)
    if tuple(theta.shape) != (rotary_dim // 2,):
        raise ValueError(
            f"inv_freq must have shape (rotary_dim/2,) = ({rotary_dim // 2},), got "
            f"{tuple(theta.shape)}"
        )
    if theta.requires_grad:
        raise ValueError(
            "inv_freq requires grad, but RotaryEmbedding caches cos/sin and would "
            "not train it: for learned frequencies use apply_rope_torch"
        )
    theta = theta.detach().to(torch.float32)
    if copy or theta.is_inference():  # a normal tensor, even of an inference one,
        theta = theta.clone()  # unless the module is made under inference mode
    if values is None and not theta.is_meta:
        values = theta.cpu().clone()
    return values, theta


class RotaryEmbedding(torch.nn.Module):
    r"""RoPE for (B, H, T, d) queries and keys, with a float32 cos/sin cache.

    Parameters
    ----------
    d : int
        Head width: the last dim of q and k, even.
    rotary_dim : int, optional
        Features rotated, the first `rotary_dim` of each head, even,
        `2 <= rotary_dim <= d` (GPT-NeoX's `rotary_pct`, Phi's
        `partial_rotary_factor`); the rest pass through unchanged. Default d.
        Its frequencies are $b^{-2i/r}$ with r = `rotary_dim`, and `layout` and
        `inv_freq` apply within the prefix.
    base : float, default 10000.0
        RoPE base, used only when `inv_freq` is None (still checked to be > 1).
    max_len : int, default 2048
        Positions cached up front. A call whose positions continue past the
        cache grows it (to at least twice its length); one that starts past its
        end computes its own rows and leaves the cache as it is.
    layout : str, default "half"
        Pair layout, with r = `rotary_dim`: `"half"`, pair i is
        `(x[i], x[i + r/2])` (HF LLaMA checkpoints); or `"interleaved"`, pair i
        is `(x[2i], x[2i+1])` (Meta checkpoints); i < r/2.
    inv_freq : array or tensor of shape (rotary_dim/2,), optional
        Frequencies from a scaling method, instead of $b^{-2i/r}$, e.g.
        `scaling.from_rope_scaling` of a Hugging Face config, whose
        `attention_factor` goes with them. Copied: modules built from one array
        each own their frequencies.
    attention_factor : float, default 1.0
        Multiplies both cos and sin, i.e. the length of every rotated pair, so
        $q \cdot k$ (the logits) scale by its square (YaRN's mscale); with
        `rotary_dim < d` only the rotated features are scaled, as in Hugging Face,
        so only their share of $q \cdot k$ scales by the square.

    Notes
    -----
    **Layout.** The default is `"half"` (Hugging Face's), where `apply_rope` and
    `apply_rope_torch` default to the paper's `"interleaved"`: pass `layout` to
    both to be sure.

    **Positions.** `forward(q, k, offset)` rotates token t by
    $(\text{offset} + t)\, \theta_i$; with a KV cache pass `offset = past_len`
    so new tokens continue the positions. For a batch whose rows have their own
    positions (left padding, packed sequences), pass `positions`, Hugging
    Face's `position_ids` of shape (B, T), instead.

    **Precision.** `inv_freq` and the cache stay float32 through
    `.to(dtype)`/`.half()` (only the device follows), so a bf16 model keeps
    float32 angles; float64 inputs are therefore rotated with float32-accurate
    cos/sin. float32 holds every integer position only up to $2^{24}$ =
    16,777,216: past it, neighbours share an angle (`apply_rope_torch` with
    float64 x or `inv_freq` does not).

    **Buffers and checkpoints.** `inv_freq` is the one buffer; the cache
    (`cos_cached`, `sin_cached`, whose length follows the data) is not one, so
    DDP, which by default (`broadcast_buffers=True`) broadcasts every buffer on
    each forward, works when ranks see different lengths. Both are rebuilt from
    the frequencies on each move, so a module built under
    `torch.device("meta")` works after `to_empty`. Nothing is saved in
    `state_dict` (as in Hugging Face): a checkpoint does not carry base, layout,
    `rotary_dim`, scaled frequencies or `attention_factor`; build the module
    with the same ones. A state dict that holds `inv_freq` keys (some
    checkpoints do) loads with `strict=False` or with those keys dropped; the
    module keeps its frequencies.

    **Training.** q and k are differentiable. Frequencies are not trained: an
    `inv_freq` that requires grad is refused (learned frequencies go to
    `apply_rope_torch`, which differentiates through them).

    **Changing frequencies.** Assigning `inv_freq` (a tensor, as for any
    buffer: `torch.from_numpy` of a scaling method's array) or
    `attention_factor` (as Hugging Face's dynamic-NTK update reassigns its
    buffer), or writing into `inv_freq` in place (as its LongRoPE update does),
    rebuilds the cache at the next call; a `torch.compile` graph reads no cache
    but computes cos/sin from `inv_freq` each call, so it sees them too. An
    in-place write is seen by the tensor's version counter, which a write
    through `inv_freq.data` does not advance: write under `torch.no_grad()`
    instead. Nor does DDP's buffer broadcast, which copies rank 0's `inv_freq`
    into the other ranks' with their versions kept: a write on one rank only
    leaves the others rotating with their old cache, so make such writes on
    every rank alike.

    **Compilation.** `torch.compile` is supported (one graph for the first
    offset, then one for all others, or one from the start with
    `dynamic=True`); TorchScript (`torch.jit.script`, deprecated in torch) is
    not.
    """

    def __init__(
        self,
        d,
        *,
        rotary_dim=None,
        base=10000.0,
        max_len=2048,
        layout="half",
        inv_freq=None,
        attention_factor=1.0,
    ):
        super().__init__()
        d = _checks.checked_even("d", d)
        base = _checks.checked_real("base", base, gt=1)
        self.layout = _checks.checked_choice("layout", layout, LAYOUTS)
        max_len = _checks.checked_int("max_len", max_len)
        self.attention_factor = _checks.checked_real(
            "attention_factor", attention_factor, gt=0
        )
        self.d, self.rotary_dim = d, _checked_rotary_dim(rotary_dim, d)
        self._frequencies, theta = _module_frequencies(inv_freq, self.rotary_dim, base)
        self.register_buffer("inv_freq", theta, persistent=False)
        # cos_cached and sin_cached are plain attributes, not buffers: their
        # length follows the data, and DDP broadcasts every buffer each forward
        self.cos_cached = self.sin_cached = torch.empty(0, device=theta.device)
        self._build_cache(max_len)

    def __setstate__(self, state):
        """Unpickle; a module pickled before `rotary_dim` existed rotates all d."""
        state.setdefault("rotary_dim", state["d"])
        super().__setstate__(state)

    def extra_repr(self) -> str:
        return (
            f"d={self.d}, rotary_dim={self.rotary_dim}, layout={self.layout!r}, "
            f"attention_factor={self.attention_factor}"
        )

    def _cache_source(self) -> tuple:
        """What the cache was built from: the frequency tensor itself (kept, so
        that no new tensor can take its `id`), its in-place writes (counted by
        its version) and the attention factor."""
        theta = self.inv_freq  # one assigned under inference_mode has no version
        version = None if theta.is_inference() else theta._version
        return theta, version, self.attention_factor

    def _was_changed(self) -> bool:
        """Whether inv_freq or attention_factor changed since the cache was built
        (not looked at while torch.compile traces)."""
        if torch.compiler.is_compiling():
            return False
        (theta, *rest), (built, *built_rest) = self._cache_source(), self._built_from
        return theta is not built or rest != built_rest

    def _rotation_table(self, first: int, length: int) -> tuple:
        """cos and sin (length, rotary_dim/2), float32, of positions first ..
        first + length - 1, times attention_factor."""
        positions = torch.arange(first, first + length, device=self.inv_freq.device)
        return self._rows(positions)

    def _rows(self, positions: torch.Tensor) -> tuple:
        """cos and sin (..., T, rotary_dim/2), float32, of integer positions
        (..., T), times attention_factor."""
        theta = self.inv_freq.detach().to(positions.device, torch.float32)
        angle = angles_torch(positions, theta)  # (..., T, rotary_dim/2)
        return angle.cos() * self.attention_factor, angle.sin() * self.attention_factor

    @torch.inference_mode(False)  # grown in an inference pass, it still trains
    def _build_cache(self, length: int) -> None:
        self.cos_cached, self.sin_cached = self._rotation_table(0, length)
        self._built_from = self._cache_source()

    def _refresh(self) -> None:
        """Take up a new `inv_freq` or `attention_factor` set on the module (as
        Hugging Face's dynamic RoPE updates do), checked as in `__init__`."""
        self.attention_factor = _checks.checked_real(
            "attention_factor", self.attention_factor, gt=0
        )
        # base is not read: inv_freq is given
        self._frequencies, theta = _module_frequencies(
            self.inv_freq, self.rotary_dim, None, copy=False
        )
        self.inv_freq = theta
        self._build_cache(self.cos_cached.shape[0])

    def _apply(self, fn, recurse=True):
        """.to()/.cuda()/to_empty() pick the device; inv_freq and the cache are
        then rebuilt there from the frequencies in float32, never cast (nor left
        uninitialised)."""
        if self._was_changed():  # take up a newly set inv_freq before moving
            self._refresh()
        super()._apply(fn, recurse)
        if self._frequencies is None:  # built from a meta inv_freq: no values
            raise ValueError(
                "this RotaryEmbedding was given an inv_freq on the meta device, so "
                "it has no frequencies to build: pass inv_freq with values"
            )
        self.inv_freq = self._frequencies.to(self.inv_freq.device)
        self._build_cache(self.cos_cached.shape[0])
        return self

    def _cos_sin(self, offset: int, length: int) -> tuple:
        """cos and sin (length, rotary_dim/2), float32, of positions offset ..
        offset + length - 1.

        From the cache, grown (to at least twice its length) when the positions
        continue past its end; positions that start past its end are computed
        alone, so a decoding step at position 10**6 builds no cache of a million
        rows. A `torch.compile` graph computes them from `inv_freq` as it is when
        the graph runs: read from the cache, a graph would keep a stale copy after
        an in-place write to `inv_freq` (the check of `forward` is not traced), and
        a guard on the cache's length would recompile.
        """
        # `or` stops at the first: a compiled graph never reads the cache's length
        if torch.compiler.is_compiling() or offset > self.cos_cached.shape[0]:
            return self._rotation_table(offset, length)
        end = offset + length
        if end > self.cos_cached.shape[0]:
            self._build_cache(max(end, 2 * self.cos_cached.shape[0]))
        return self.cos_cached[offset:end], self.sin_cached[offset:end]

    def _rotate(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
        """x (..., T, d) with its first r = rotary_dim features rotated by cos/sin
        (..., T, r/2), in x's dtype."""
        r, work = self.rotary_dim, _checks.work_dtype(x)
        cos, sin = cos.to(x.device, work), sin.to(x.device, work)
        prefix = x[..., :r].to(work)  # (..., T, r)
        rotated = _rotate_torch(prefix, cos, sin, self.layout).to(x.dtype)
        if r == self.d:
            return rotated
        return torch.cat([rotated, x[..., r:]], dim=-1)  # partial: the rest as it is

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, offset: int = 0, *, positions=None
    ):
        """Rotate q and k, (B, H, T, d), as positions offset .. offset + T - 1.

        Parameters
        ----------
        q : torch.Tensor
            Queries, shape `(B, H, T, d)`: the token axis is the second to last.
            A `(B, T, H, d)` tensor is not detected (its shape is as valid) and
            would be rotated by head index: transpose it first.
        k : torch.Tensor
            Keys, shape `(B, H_kv, T, d)`, the same T as q: with a KV cache,
            rotate only the new keys (the cached ones keep their rotation).
        offset : int, default 0
            Position of the first token (`past_len` with a KV cache).
        positions : torch.Tensor, optional
            Integer positions, shape `(T,)`, or `(B, T)` for 4-D q and k (Hugging
            Face's `position_ids`: one row per sequence, e.g. left padding or
            packed sequences), on q's device; instead of `offset`, which must
            then be 0. Their rows are computed, not read from the cache.

        Returns
        -------
        tuple of torch.Tensor
            The rotated q and k, in their dtypes.

        Raises
        ------
        TypeError
            q, k or positions not a tensor, an integer q or k, floating
            positions, an offset that is not an integer.
        ValueError
            A last dim other than d, q and k of different T, a negative offset,
            an offset with positions, positions whose shape or device does not
            fit q's.
        """
        offset = _checks.checked_int("offset", offset, minimum=0)
        q = _checks.checked_tensor("q", q, min_ndim=2, last_dim=self.d)
        k = _checks.checked_tensor("k", k, min_ndim=2, last_dim=self.d)
        if q.shape[-2] != k.shape[-2]:  # e.g. new queries with all cached keys
            raise ValueError(
                f"q and k must have the same length T (both are rotated from offset)"
                f", got q.shape={tuple(q.shape)}, k.shape={tuple(k.shape)}"
            )
        if self._was_changed():  # inv_freq or attention_factor set on the module
            self._refresh()
        if positions is None:
            cos, sin = self._cos_sin(offset, q.shape[-2])  # (T, rotary_dim/2)
        else:
            cos, sin = self._rows(self._checked_positions(positions, q, k, offset))
        return self._rotate(q, cos, sin), self._rotate(k, cos, sin)

    def _checked_positions(self, positions, q, k, offset) -> torch.Tensor:
        """`positions` (T,) as given, or (B, T) as (B, 1, T) for (B, H, T, d)."""
        if offset:
            raise ValueError(f"offset must be 0 when positions are given, got {offset}")
        positions = _checks.checked_tensor("positions", positions, floating=False)
        _checks.checked_integer_dtype("positions", positions)
        _checks.checked_same_device("positions", positions, q.device)
        if positions.ndim > 2 or positions.shape[-1] != q.shape[-2]:
            raise ValueError(
                f"positions must have shape (T,) or (B, T) with T = {q.shape[-2]}, "
                f"got {tuple(positions.shape)}"
            )
        if positions.ndim == 1:
            return positions
        if q.ndim != 4 or k.ndim != 4:
            raise ValueError(
                f"positions of shape (B, T) need q and k of shape (B, H, T, d), got "
                f"q {tuple(q.shape)}, k {tuple(k.shape)}"
            )
        batch = positions.shape[0]  # compared as sizes: torch.export keeps B symbolic
        if batch != 1 and (batch != q.shape[0] or batch != k.shape[0]):
            raise ValueError(
                f"positions' batch must be 1 or that of q and k, got positions "
                f"{tuple(positions.shape)}, q {tuple(q.shape)}, k {tuple(k.shape)}"
            )
        return positions[:, None, :]  # (B, 1, T): the same for every head
