"""Sinusoidal positional encoding (Vaswani et al., 2017, section 3.5).

Layout: sin on even dimensions, cos on odd dimensions, so pair `i` is the
two dimensions `(2i, 2i+1)`, as in the paper.
"""

# --8<-- [start:setup]
import numpy as np

# --8<-- [end:setup]
import torch

from posenc_docs import rope, scaling

# --8<-- [start:checks]
from posenc_docs._checks import (  # each raises TypeError/ValueError naming the arg
    checked_array,
    checked_computable,
    checked_even,
    checked_int,
    checked_real,
    checked_tensor,
)

# --8<-- [end:checks]


# --8<-- [start:encode]
def encode(pos, d: int, base: float = 10000.0) -> np.ndarray:
    # --8<-- [end:encode]
    r"""Sinusoidal encoding of one position or an array of positions.

    Parameters
    ----------
    pos : float or array_like
        Position(s), numbers of any shape `S` (not a torch tensor of 1+ dims).
    d : int
        Model width; positive and even.
    base : float, default 10000.0
        Wavelength base, 10000 in the paper; finite and > 1.

    Returns
    -------
    numpy.ndarray
        Shape `S + (d,)`, float64.

    Notes
    -----
    $$
    \begin{aligned}
    PE(pos, 2i) &= \sin(pos\,\omega_i), \\
    PE(pos, 2i+1) &= \cos(pos\,\omega_i), \\
    \omega_i &= base^{-2i/d}
    \end{aligned}
    $$
    """
    # --8<-- [start:encode-body]
    d, base = checked_even("d", d), checked_real("base", base, gt=1)
    pos = checked_array("pos", pos, min_ndim=0, floating=False)  # shape S
    omega = base ** (-np.arange(0, d, 2) / d)  # (d/2,) one frequency per pair
    angle = np.multiply.outer(pos.astype(np.float64), omega)  # S + (d/2,)
    out = np.empty(angle.shape[:-1] + (d,))
    out[..., 0::2] = np.sin(angle)
    out[..., 1::2] = np.cos(angle)
    return out


# --8<-- [end:encode-body]


def table(n_positions: int, d: int, base: float = 10000.0) -> np.ndarray:
    """The encoding matrix for positions `0 .. n_positions-1`, shape `(n, d)`.

    Parameters
    ----------
    n_positions : int
        Number of positions (>= 0).
    d : int
        Model width; positive and even.
    base : float, default 10000.0
        Wavelength base; finite and > 1.

    Returns
    -------
    numpy.ndarray of shape (n_positions, d)
        float64.

    Notes
    -----
    Row `pos` is `encode(pos, d, base)`; `n_positions` is an integer >= 0.
    """
    return encode(np.arange(checked_int("n_positions", n_positions, 0)), d, base)


def wavelengths(d: int, base: float = 10000.0) -> np.ndarray:
    r"""Period, in positions, of each sin/cos pair, shape `(d/2,)`.

    Parameters
    ----------
    d : int
        Model width; positive and even.
    base : float, default 10000.0
        Wavelength base; finite and > 1.

    Returns
    -------
    numpy.ndarray of shape (d/2,)
        float64, in positions.

    Notes
    -----
    $$
    \lambda_i = 2\pi / \omega_i = 2\pi\, base^{2i/d}
    $$

    The longest is $2\pi\, base^{(d-2)/d}$: $2\pi\, base$ times $base^{-2/d}$,
    which nears 1 only as d grows.
    """
    return scaling.wavelengths(rope.inv_freq(d, base))  # (d/2,)


def offset_similarity(k, d: int, base: float = 10000.0) -> np.ndarray:
    r"""Dot product $PE(pos) \cdot PE(pos + k)$; the same for every pos.

    Parameters
    ----------
    k : float or array_like
        Offset(s) k.
    d : int
        Model width; positive and even.
    base : float, default 10000.0
        Wavelength base; finite and > 1.

    Returns
    -------
    numpy.ndarray or numpy.float64
        float64, k's shape.

    Notes
    -----
    Each pair contributes
    $\sin a \sin b + \cos a \cos b = \cos(b - a) = \cos(k\,\omega_i)$, so

    $$
    \begin{aligned}
    &PE(pos)\cdot PE(pos+k) \\
    &\qquad = \sum_{i=0}^{d/2-1} \cos(k\,\omega_i)
    \end{aligned}
    $$
    """
    omega = rope.inv_freq(d, base)  # (d/2,), the same frequencies as RoPE's
    k = checked_array("k", k, min_ndim=0, floating=False).astype(np.float64)
    return np.cos(np.multiply.outer(k, omega)).sum(-1)  # shape of k


# --8<-- [start:shift_matrix]
def shift_matrix(k: float, d: int, base: float = 10000.0) -> np.ndarray:
    # --8<-- [end:shift_matrix]
    r"""The (d, d) matrix $M_k$ with $PE(pos + k) = M_k\, PE(pos)$ for all pos.

    Parameters
    ----------
    k : float
        The offset.
    d : int
        Model width; positive and even.
    base : float, default 10000.0
        Wavelength base; finite and > 1.

    Returns
    -------
    numpy.ndarray of shape (d, d)
        float64.

    Notes
    -----
    Block diagonal; pair `i` (dimensions `2i, 2i+1`, holding sin, cos) gets

    $$
    \begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\
    -\sin k\omega_i & \cos k\omega_i \end{pmatrix}
    $$

    by the angle-addition formulas. It does not depend on `pos`.
    """
    # --8<-- [start:shift_matrix-body]
    d, base = checked_even("d", d), checked_real("base", base, gt=1)
    k = checked_real("k", k)
    m = np.zeros((d, d))
    for i, w in enumerate(base ** (-np.arange(0, d, 2) / d)):
        c, s = np.cos(k * w), np.sin(k * w)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return m


# --8<-- [end:shift_matrix-body]


class SinusoidalPositionalEncoding(torch.nn.Module):
    """Adds the fixed sinusoidal table to token embeddings of shape `(B, T, d)`.

    Parameters
    ----------
    d : int
        Model width; positive and even.
    base : float, default 10000.0
        Wavelength base; finite and > 1.
    max_len : int, default 2048
        Rows built up front (positive); rows past them are computed for the
        call that needs them.

    Notes
    -----
    `forward(x, offset)` returns `x + PE[offset : offset + T]` for a
    floating-point `x` of shape `(..., T, d)` (integer `x` is a TypeError)
    and an integer `offset >= 0`; the output has the dtype of `x` (float64 `x`
    gets rows computed in float64, equal to `table`). Nothing is
    learned, and every position is defined: a decoding step at position 200,000
    computes one row, not a 200,000-row table; inside a `torch.compile` graph
    (`fullgraph=True` too) such rows are computed in torch ops, equal to
    `encode` to a few ulps. The table is not in `state_dict`; it is computed
    again on every move (`.to`, `.half()`, `to_empty`).
    """

    def __init__(self, d: int, base: float = 10000.0, max_len: int = 2048):
        super().__init__()
        self.d, self.base = checked_even("d", d), checked_real("base", base, gt=1)
        max_len = checked_int("max_len", max_len)
        table_rows = self._build(max_len, torch.get_default_device(), torch.float32)
        self.register_buffer("pe", table_rows, persistent=False)

    def _build(self, n: int, device, dtype) -> torch.Tensor:
        return torch.from_numpy(table(n, self.d, self.base)).to(device, dtype)  # (n, d)

    def _apply(self, fn, recurse=True):
        """.to()/.half()/to_empty() pick the table's device and dtype; its rows are
        then computed again there (a moved-to-empty table would be garbage)."""
        super()._apply(fn, recurse)
        self.pe = self._build(self.pe.shape[0], self.pe.device, self.pe.dtype)
        return self

    def _rows(self, offset: int, T: int, dtype: torch.dtype) -> torch.Tensor:
        """Rows `offset .. offset + T - 1`: the table's, or past it computed for
        just these positions, in the table's device and dtype (`.half()`, say).
        For float64 x they are always computed, so they never carry a float32
        table's rounding."""
        wide = dtype == torch.float64
        if offset + T <= self.pe.shape[0] and not wide:
            return self.pe[offset : offset + T]  # (T, d)
        dtype, device = dtype if wide else self.pe.dtype, self.pe.device
        if torch.compiler.is_compiling():  # a graph cannot call NumPy: in torch
            return self._rows_traced(offset, T).to(device, dtype)
        rows = encode(np.arange(offset, offset + T), self.d, self.base)  # (T, d)
        return torch.from_numpy(rows).to(device, dtype)

    def _rows_traced(self, offset, T: int) -> torch.Tensor:
        """`encode`'s rows `offset .. offset + T - 1` in float64 torch ops, for a
        `torch.compile` graph (equal to `encode` to a few ulps)."""
        pairs = torch.arange(0, self.d, 2, dtype=torch.float64, device=self.pe.device)
        omega = self.base ** (-pairs / self.d)  # (d/2,)
        positions = torch.arange(T, dtype=torch.float64, device=self.pe.device)
        angle = (positions + offset)[:, None] * omega  # (T, d/2)
        return torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(-2)  # (T, d)

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """Add the table's rows `offset .. offset + T - 1` to x.

        Parameters
        ----------
        x : torch.Tensor
            Floating-point input, shape `(..., T, d)`.
        offset : int, default 0
            Position of the first token (>= 0).

        Returns
        -------
        torch.Tensor
            `x` plus the rows, in the dtype of `x`.
        """
        x = checked_tensor("x", x, min_ndim=2, last_dim=self.d)  # (..., T, d)
        checked_computable("x", x)  # x + the encoding is in x's dtype
        offset, T = checked_int("offset", offset, minimum=0), x.shape[-2]
        rows = self._rows(offset, T, x.dtype).to(device=x.device, dtype=x.dtype)
        return x + rows  # (..., T, d)
