"""Rotary position embedding (RoPE; Su et al., RoFormer, 2021).

RoPE rotates each pair of query/key features by an angle proportional to the
token's position m: pair i turns by ``m * theta_i`` with
``theta_i = base^(-2i/d)``. Two pair layouts exist and are *not*
interchangeable without permuting the q/k weights:

- ``"interleaved"``: pair i is ``(x[2i], x[2i+1])`` (RoFormer, GPT-J, Meta llama).
- ``"half"``: pair i is ``(x[i], x[i + d/2])`` (GPT-NeoX, Hugging Face LLaMA).

NumPy functions are the float64 reference. Torch paths never form angles in
bf16/fp16: angles, cos and sin are float32 (float64 if given), and only the
result is cast back to the input dtype.
"""

import numpy as np
import torch

LAYOUTS = ("interleaved", "half")


# --8<-- [start:inv_freq]
def inv_freq(d: int, base: float = 10000.0) -> np.ndarray:
    """Rotation frequencies of the d/2 pairs (NumPy, float64).

    Parameters
    ----------
    d : int
        Rotary dimension (positive, even).
    base : float
        The RoPE base b (``rope_theta``), > 1.

    Returns
    -------
    numpy.ndarray
        Shape ``(d/2,)``, from 1 down to about 1/base.

    Notes
    -----
    ``theta_i = base^(-2i/d)`` for i = 0..d/2-1 (RoFormer eq. 15).
    """
    if d <= 0 or d % 2:
        raise ValueError(f"d must be a positive even integer, got {d}")
    if base <= 1:
        raise ValueError(f"base must be > 1, got {base}")
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)


# --8<-- [end:inv_freq]

_default_inv_freq = inv_freq  # parameters named ``inv_freq`` shadow the function


# --8<-- [start:angles]
def angles(positions, inv_freq):
    """Rotation angle of every pair at every position.

    Parameters
    ----------
    positions : array or tensor, shape ``(..., T)``
        Token positions m (integers, or floats for interpolated positions).
    inv_freq : array or tensor, shape ``(d/2,)``
        Pair frequencies theta_i.

    Returns
    -------
    numpy.ndarray or torch.Tensor
        Shape ``(..., T, d/2)``. NumPy: float64. Torch (if either input is a
        tensor): float64 if either input is float64, else float32.

    Notes
    -----
    ``angle[..., t, i] = positions[..., t] * theta_i``. bf16 keeps 8 significant
    bits: integers are exact only up to 256 (1001 rounds to 1000), and theta_i
    and the product are each rounded by up to 0.4% (2 radians on an angle of
    1000). So torch inputs are upcast to float32 before multiplying.
    """
    if not isinstance(positions, torch.Tensor) and not isinstance(
        inv_freq, torch.Tensor
    ):
        positions, inv_freq = np.asarray(positions), np.asarray(inv_freq)
        return np.multiply.outer(positions.astype(np.float64), inv_freq)
    device = (positions if isinstance(positions, torch.Tensor) else inv_freq).device
    positions = torch.as_tensor(positions, device=device)
    inv_freq = torch.as_tensor(inv_freq, device=device)
    wide = torch.float64 in (positions.dtype, inv_freq.dtype)
    work = torch.float64 if wide else torch.float32
    return positions.to(work)[..., None] * inv_freq.to(work)  # (..., T, d/2)


# --8<-- [end:angles]


def _check_rope_args(x_shape, positions_shape, theta, layout="interleaved"):
    """Raise a ValueError naming the argument if shapes or layout are wrong."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    if len(x_shape) < 2:
        raise ValueError(f"x must have shape (..., T, d), got {tuple(x_shape)}")
    T, d = x_shape[-2], x_shape[-1]
    if d == 0 or d % 2:
        raise ValueError(f"d = x.shape[-1] must be positive and even, got {d}")
    if theta is not None and tuple(theta.shape) != (d // 2,):
        raise ValueError(
            f"inv_freq must have shape (d/2,) = ({d // 2},) for d = x.shape[-1] = "
            f"{d}, got {tuple(theta.shape)}"
        )
    if len(positions_shape) == 0 or positions_shape[-1] != T:
        raise ValueError(
            f"positions must have shape (..., T) with T = x.shape[-2] = {T}, "
            f"got shape {tuple(positions_shape)}"
        )
    try:
        np.broadcast_shapes(tuple(positions_shape[:-1]), tuple(x_shape[:-2]))
    except ValueError:
        raise ValueError(
            f"positions shape {tuple(positions_shape)} does not broadcast against "
            f"x shape {tuple(x_shape)} (for (B, H, T, d) pass (B, 1, T))"
        ) from None


def _prepare(x, positions, base, theta, layout="interleaved"):
    """Check the arguments; return positions and inv_freq in x's library."""
    if isinstance(x, np.ndarray):
        theta = None if theta is None else np.asarray(theta, dtype=np.float64)
        positions = np.asarray(positions)
    elif isinstance(x, torch.Tensor):
        theta = None if theta is None else torch.as_tensor(theta, device=x.device)
        if not isinstance(positions, torch.Tensor):  # keep float64 positions
            positions = np.asarray(positions)
        positions = torch.as_tensor(positions, device=x.device)
    else:
        raise TypeError(f"x must be a numpy.ndarray or torch.Tensor, got {type(x)}")
    _check_rope_args(x.shape, positions.shape, theta, layout)
    if theta is None:
        theta = _default_inv_freq(x.shape[-1], base)
        if isinstance(x, torch.Tensor):  # same dtype as the rotation: float32/64
            theta = torch.from_numpy(theta).to(x.device, _work_dtype(x))
    return positions, theta


def _work_dtype(x: torch.Tensor) -> torch.dtype:
    """float64 stays float64; every other dtype is rotated in float32."""
    if not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor, got {x.dtype}")
    return torch.float64 if x.dtype == torch.float64 else torch.float32


# --8<-- [start:_rotate_complex_torch]
def _rotate_complex_torch(x: torch.Tensor, cis: torch.Tensor) -> torch.Tensor:
    """Multiply pairs (x[2i], x[2i+1]) as complex numbers by ``cis``."""
    pairs = x.unflatten(-1, (-1, 2))  # (..., T, d/2, 2), a view
    try:
        as_complex = torch.view_as_complex(pairs)
    except RuntimeError:  # strides that cannot be read as complex
        as_complex = torch.view_as_complex(pairs.contiguous())
    return torch.view_as_real(as_complex * cis).flatten(-2)  # (..., T, d)


# --8<-- [end:_rotate_complex_torch]


# --8<-- [start:_rotate_torch]
def _rotate_torch(x, cos, sin, layout):
    """Rotate x (..., T, d) by cos/sin (..., T, d/2) of the same dtype."""
    if layout == "interleaved":
        return _rotate_complex_torch(x, torch.complex(cos, sin))
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]  # pair i = (x[i], x[i + d/2])
    if torch.is_grad_enabled() and (x.requires_grad or cos.requires_grad):
        # out= kernels record no autograd graph, so differentiable inputs take cat
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)
    shape = torch.broadcast_shapes(x1.shape, cos.shape)[:-1]
    out = torch.empty((*shape, 2 * half), dtype=x.dtype, device=x.device)
    out1, out2 = out[..., :half], out[..., half:]  # views: no temporaries
    torch.mul(x1, cos, out=out1).addcmul_(x2, sin, value=-1)  # x1 cos - x2 sin
    torch.mul(x2, cos, out=out2).addcmul_(x1, sin)  # x2 cos + x1 sin
    return out


# --8<-- [end:_rotate_torch]


# --8<-- [start:_apply_rope_numpy]
def _apply_rope_numpy(x, positions, theta, layout):
    """NumPy float64 reference: rotate pairs of x (..., T, d) by m * theta_i."""
    x = np.asarray(x, dtype=np.float64)
    angle = angles(positions, theta)  # (..., T, d/2)
    cos, sin = np.cos(angle), np.sin(angle)
    if layout == "interleaved":
        x1, x2 = x[..., 0::2], x[..., 1::2]  # pair i = (x[2i], x[2i+1])
    else:
        x1, x2 = np.split(x, 2, axis=-1)  # pair i = (x[i], x[i + d/2])
    out1, out2 = x1 * cos - x2 * sin, x2 * cos + x1 * sin  # (..., T, d/2) each
    if layout == "interleaved":
        return np.stack([out1, out2], axis=-1).reshape(*out1.shape[:-1], -1)
    return np.concatenate([out1, out2], axis=-1)  # (..., T, d)


# --8<-- [end:_apply_rope_numpy]


# --8<-- [start:apply_rope]
def apply_rope(x, positions, *, base=10000.0, layout="interleaved", inv_freq=None):
    """Rotate the feature pairs of x by their positions' angles.

    Parameters
    ----------
    x : numpy.ndarray or torch.Tensor, shape ``(..., T, d)``
        Queries or keys, e.g. ``(B, H, T, d)``.
    positions : array or tensor, shape ``(T,)`` or broadcastable ``(..., T)``
        Position m of each token; leading dims align right with x's, so
        per-sequence positions for ``(B, H, T, d)`` are ``(B, 1, T)``.
    base : float
        RoPE base, used only when ``inv_freq`` is None.
    layout : {"interleaved", "half"}
        Pair layout: ``(x[2i], x[2i+1])`` or ``(x[i], x[i + d/2])``.
    inv_freq : array or tensor, shape ``(d/2,)``, optional
        Frequencies to use instead of ``base^(-2i/d)`` (e.g. from a scaling method).

    Returns
    -------
    numpy.ndarray (float64) or torch.Tensor (x.dtype)
        Same shape as x (broadcast with positions' leading dims).

    Notes
    -----
    For pair ``(a, b)`` of a token at position m,
    ``a' = a cos(m theta_i) - b sin(m theta_i)``,
    ``b' = b cos(m theta_i) + a sin(m theta_i)``.
    Torch: cos/sin in float32 (float64 for float64 x), result cast to x.dtype;
    the interleaved layout is computed as Meta's complex product (one pass).
    """
    positions, theta = _prepare(x, positions, base, inv_freq, layout)
    if isinstance(x, np.ndarray):
        return _apply_rope_numpy(x, positions, theta, layout)
    work = _work_dtype(x)
    angle = angles(positions, theta)  # (..., T, d/2), float32 or float64
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    return _rotate_torch(x.to(work), cos, sin, layout).to(x.dtype)


# --8<-- [end:apply_rope]


# --8<-- [start:apply_rope_complex]
def apply_rope_complex(x, positions, *, base=10000.0, inv_freq=None):
    """RoPE in Meta's complex form (interleaved layout; equals :func:`apply_rope`).

    Parameters
    ----------
    x : numpy.ndarray or torch.Tensor, shape ``(..., T, d)``
    positions : array or tensor, shape ``(T,)`` or broadcastable ``(..., T)``
    base : float
        RoPE base, used only when ``inv_freq`` is None.
    inv_freq : array or tensor, shape ``(d/2,)``, optional

    Returns
    -------
    numpy.ndarray (float64) or torch.Tensor (x.dtype)

    Notes
    -----
    Pair i is read as ``z_i = x[2i] + j x[2i+1]`` and multiplied by
    ``e^(j m theta_i)``; real and imaginary parts go back to ``2i`` and ``2i+1``.
    NumPy uses complex128; torch complex64 (complex128 for float64 x).
    """
    positions, theta = _prepare(x, positions, base, inv_freq)
    if isinstance(x, np.ndarray):
        x = x.astype(np.float64)
        z = x[..., 0::2] + 1j * x[..., 1::2]  # (..., T, d/2) complex128
        rotated = z * np.exp(1j * angles(positions, theta))
        return np.stack([rotated.real, rotated.imag], -1).reshape(*z.shape[:-1], -1)
    work = _work_dtype(x)
    angle = angles(positions, theta).to(work)  # (..., T, d/2)
    cis = torch.polar(torch.ones_like(angle), angle)  # e^(j m theta_i)
    return _rotate_complex_torch(x.to(work), cis).to(x.dtype)


# --8<-- [end:apply_rope_complex]


def _check_head_dim(d) -> int:
    if isinstance(d, bool) or not isinstance(d, int | np.integer) or d <= 0 or d % 2:
        raise ValueError(f"d must be a positive even integer, got {d!r}")
    return int(d)


# --8<-- [start:interleaved_to_half_permutation]
def interleaved_to_half_permutation(d: int) -> np.ndarray:
    """Row order converting one head's q/k weight rows from interleaved to half.

    Parameters
    ----------
    d : int
        Head (rotary) dimension, even.

    Returns
    -------
    numpy.ndarray
        Integer indices ``perm``, shape ``(d,)``, with
        ``W_half = W_interleaved[perm]`` (Meta checkpoint -> Hugging Face).

    Notes
    -----
    New row ``c*d/2 + i`` takes old row ``2i + c`` (c = 0, 1): the
    interleaved pair ``(2i, 2i+1)`` becomes the half pair ``(i, i + d/2)``, so
    the same two features turn by the same angle and ``q . k`` is unchanged.
    This is ``permute`` in HF's ``convert_llama_weights_to_hf``, applied to
    W_q and W_k only (W_v and W_o are untouched). For a ``(n_heads*d, hidden)``
    weight apply it within each head: :func:`permute_qk_weight`.
    """
    d = _check_head_dim(d)
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])  # (d,)


# --8<-- [end:interleaved_to_half_permutation]


# --8<-- [start:half_to_interleaved_permutation]
def half_to_interleaved_permutation(d: int) -> np.ndarray:
    """Row order converting one head's q/k weight rows from half to interleaved.

    Parameters
    ----------
    d : int
        Head (rotary) dimension, even.

    Returns
    -------
    numpy.ndarray
        Integer indices ``perm``, shape ``(d,)``, with
        ``W_interleaved = W_half[perm]`` (Hugging Face -> Meta layout).

    Notes
    -----
    New row ``2i + c`` takes old row ``c*d/2 + i`` (c = 0, 1); the inverse of
    :func:`interleaved_to_half_permutation`.
    """
    half = _check_head_dim(d) // 2
    first, second = np.arange(half), np.arange(half, 2 * half)
    return np.stack([first, second], axis=-1).reshape(-1)  # 0, d/2, 1, d/2+1, ...


# --8<-- [end:half_to_interleaved_permutation]


# --8<-- [start:permute_qk_weight]
def permute_qk_weight(w, n_heads: int, perm):
    """Permute the rows of every head of a q or k projection weight (or bias).

    Parameters
    ----------
    w : numpy.ndarray or torch.Tensor, shape ``(n_heads*d, ...)``
        Rows are output features, head after head (``nn.Linear.weight`` layout).
    n_heads : int
        Heads in w: ``n_heads`` for W_q, ``n_kv_heads`` for W_k.
    perm : integer array, shape ``(d,)``
        From :func:`interleaved_to_half_permutation` or its inverse.

    Returns
    -------
    numpy.ndarray or torch.Tensor
        Same shape as w; row ``h*d + r`` is old row ``h*d + perm[r]``.
    """
    d = len(perm)
    if w.shape[0] != n_heads * d:
        raise ValueError(
            f"w.shape[0] must be n_heads * len(perm) = {n_heads} * {d}, "
            f"got w.shape = {tuple(w.shape)}"
        )
    if isinstance(w, torch.Tensor):
        perm = torch.as_tensor(np.asarray(perm), device=w.device)
    per_head = w.reshape(n_heads, d, *w.shape[1:])  # (n_heads, d, ...)
    return per_head[:, perm].reshape(w.shape)


# --8<-- [end:permute_qk_weight]


# --8<-- [start:RotaryEmbedding]
class RotaryEmbedding(torch.nn.Module):
    """RoPE for (B, H, T, d) queries and keys, with a float32 cos/sin cache.

    Parameters
    ----------
    d : int
        Head (rotary) dimension, even.
    base : float
        RoPE base, used only when ``inv_freq`` is None.
    max_len : int
        Positions cached up front; the cache grows when a call needs more.
    layout : {"half", "interleaved"}
        Pair layout (HF LLaMA checkpoints: "half"; Meta checkpoints: "interleaved").
    inv_freq : array or tensor, shape ``(d/2,)``, optional
        Frequencies from a scaling method, instead of ``base^(-2i/d)``.
    attention_factor : float
        Multiplies both cos and sin, i.e. the length of every rotated pair, so
        ``q . k`` (the logits) scale by ``attention_factor**2`` (YaRN's mscale).

    Notes
    -----
    ``forward(q, k, offset)`` rotates token t by ``(offset + t) theta_i``; with a
    KV cache pass ``offset = past_len`` so new tokens continue the positions.
    ``inv_freq`` and the cache stay float32 through ``.to(dtype)``/``.half()``
    (only the device follows), so a bf16 model keeps exact angles; float64
    inputs are therefore rotated with float32-accurate cos/sin.
    """

    _FLOAT32_BUFFERS = ("inv_freq", "cos_cached", "sin_cached")

    def __init__(
        self,
        d,
        *,
        base=10000.0,
        max_len=2048,
        layout="half",
        inv_freq=None,
        attention_factor=1.0,
    ):
        super().__init__()
        d = _check_head_dim(d)
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
        if max_len <= 0:
            raise ValueError(f"max_len must be positive, got {max_len}")
        theta = _default_inv_freq(d, base) if inv_freq is None else inv_freq
        theta = torch.as_tensor(theta, dtype=torch.float32)
        if tuple(theta.shape) != (d // 2,):
            raise ValueError(f"inv_freq must have shape ({d // 2},), got {theta.shape}")
        self.d, self.layout = d, layout
        self.attention_factor = float(attention_factor)
        self.register_buffer("inv_freq", theta, persistent=False)
        self.register_buffer("cos_cached", torch.empty(0), persistent=False)
        self.register_buffer("sin_cached", torch.empty(0), persistent=False)
        self._build_cache(max_len)

    def _build_cache(self, length: int) -> None:
        positions = torch.arange(length, device=self.inv_freq.device)
        angle = angles(positions, self.inv_freq)  # (length, d/2) float32
        self.cos_cached = angle.cos() * self.attention_factor
        self.sin_cached = angle.sin() * self.attention_factor

    def _apply(self, fn, recurse=True):
        """Let .to()/.cuda() move the float32 buffers but never change their dtype."""
        kept = {name: getattr(self, name) for name in self._FLOAT32_BUFFERS}
        super()._apply(fn, recurse)
        for name, buffer in kept.items():
            setattr(self, name, buffer.to(getattr(self, name).device))
        return self

    def _rotate(self, x: torch.Tensor, offset: int, name: str) -> torch.Tensor:
        if x.ndim < 2 or x.shape[-1] != self.d:
            raise ValueError(
                f"{name} must be (..., T, d={self.d}), got {tuple(x.shape)}"
            )
        work, T = _work_dtype(x), x.shape[-2]
        cos = self.cos_cached[offset : offset + T].to(x.device, work)  # (T, d/2)
        sin = self.sin_cached[offset : offset + T].to(x.device, work)
        return _rotate_torch(x.to(work), cos, sin, self.layout).to(x.dtype)

    def forward(self, q: torch.Tensor, k: torch.Tensor, offset: int = 0):
        """Rotate q and k, (B, H, T, d), as positions offset .. offset + T - 1."""
        if offset < 0:
            raise ValueError(f"offset must be >= 0, got {offset}")
        needed = offset + max(q.shape[-2], k.shape[-2])
        if needed > self.cos_cached.shape[0]:  # grow geometrically
            self._build_cache(max(needed, 2 * self.cos_cached.shape[0]))
        return self._rotate(q, offset, "q"), self._rotate(k, offset, "k")


# --8<-- [end:RotaryEmbedding]
