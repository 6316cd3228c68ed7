"""Sinusoidal positional encoding (Vaswani et al., 2017, section 3.5).

Layout: sin on even dimensions, cos on odd dimensions, so pair ``i`` is the
two dimensions ``(2i, 2i+1)``, as in the paper.
"""

# --8<-- [start:setup]
import numpy as np

# --8<-- [end:setup]
import torch


# --8<-- [start:checks]
def _check_width_and_base(d: int, base: float) -> None:
    if not isinstance(d, (int, np.integer)) or d <= 0 or d % 2:
        raise ValueError(f"d must be a positive even integer, got {d!r}")
    if base <= 1:
        raise ValueError(f"base must be greater than 1, got {base!r}")


# --8<-- [end:checks]


# --8<-- [start:encode]
def encode(pos, d: int, base: float = 10000.0) -> np.ndarray:
    r"""Sinusoidal encoding of one position or an array of positions.

    Parameters
    ----------
    pos : float or array_like
        Position(s); any shape ``S``.
    d : int
        Model width; positive and even.
    base : float
        Wavelength base, 10000 in the paper; must exceed 1.

    Returns
    -------
    numpy.ndarray
        Shape ``S + (d,)``, float64.

    Notes
    -----
    $$
    PE(pos, 2i) = \sin(pos\,\omega_i),\quad
    PE(pos, 2i+1) = \cos(pos\,\omega_i),\quad
    \omega_i = base^{-2i/d}
    $$
    """
    _check_width_and_base(d, base)
    omega = base ** (-np.arange(0, d, 2) / d)  # (d/2,) one frequency per pair
    angle = np.multiply.outer(np.asarray(pos, dtype=np.float64), omega)  # S + (d/2,)
    out = np.empty(angle.shape[:-1] + (d,))
    out[..., 0::2] = np.sin(angle)
    out[..., 1::2] = np.cos(angle)
    return out


# --8<-- [end:encode]


def table(n_positions: int, d: int, base: float = 10000.0) -> np.ndarray:
    """The encoding matrix for positions ``0 .. n_positions-1``, shape ``(n, d)``.

    Notes
    -----
    Row ``pos`` is :func:`encode` ``(pos, d, base)``.
    """
    if not isinstance(n_positions, (int, np.integer)) or n_positions < 0:
        raise ValueError(
            f"n_positions must be a non-negative integer, got {n_positions!r}"
        )
    return encode(np.arange(n_positions), d, base)


def wavelengths(d: int, base: float = 10000.0) -> np.ndarray:
    r"""Period, in positions, of each sin/cos pair, shape ``(d/2,)``.

    Notes
    -----
    $$
    \lambda_i = 2\pi / \omega_i = 2\pi\, base^{2i/d}
    $$

    The longest is $2\pi\, base^{(d-2)/d}$, just short of
    $2\pi\, base$.
    """
    _check_width_and_base(d, base)
    return 2 * np.pi * base ** (np.arange(0, d, 2) / d)


# --8<-- [start:offset_similarity]
def offset_similarity(k, d: int, base: float = 10000.0) -> np.ndarray:
    r"""Dot product ``PE(pos) . PE(pos + k)``; the same for every ``pos``.

    Notes
    -----
    Each pair contributes
    $\sin a \sin b + \cos a \cos b = \cos(b - a) = \cos(k\,\omega_i)$, so

    $$
    PE(pos)\cdot PE(pos+k) = \sum_{i=0}^{d/2-1} \cos(k\,\omega_i)
    $$
    """
    _check_width_and_base(d, base)
    omega = base ** (-np.arange(0, d, 2) / d)
    return np.cos(np.multiply.outer(np.asarray(k, dtype=np.float64), omega)).sum(-1)


# --8<-- [end:offset_similarity]


# --8<-- [start:shift_matrix]
def shift_matrix(k: float, d: int, base: float = 10000.0) -> np.ndarray:
    r"""The ``(d, d)`` matrix ``M_k`` with ``PE(pos + k) = M_k @ PE(pos)`` for all pos.

    Notes
    -----
    Block diagonal; pair ``i`` (dimensions ``2i, 2i+1``, holding sin, cos) gets

    $$
    \begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\
    -\sin k\omega_i & \cos k\omega_i \end{pmatrix}
    $$

    by the angle-addition formulas. It does not depend on ``pos``.
    """
    _check_width_and_base(d, base)
    m = np.zeros((d, d))
    for i, w in enumerate(base ** (-np.arange(0, d, 2) / d)):
        c, s = np.cos(k * w), np.sin(k * w)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, s], [-s, c]]
    return m


# --8<-- [end:shift_matrix]


# --8<-- [start:module]
class SinusoidalPositionalEncoding(torch.nn.Module):
    """Adds the fixed sinusoidal table to token embeddings of shape ``(B, T, d)``.

    Notes
    -----
    ``forward(x, offset)`` returns ``x + PE[offset : offset + T]``. Nothing is
    learned; the table grows on demand because every position is defined.
    """

    def __init__(self, d: int, base: float = 10000.0, max_len: int = 2048):
        super().__init__()
        _check_width_and_base(d, base)
        self.d, self.base = d, base
        self.register_buffer("pe", self._build(max_len), persistent=False)

    def _build(self, n: int) -> torch.Tensor:
        return torch.from_numpy(table(n, self.d, self.base)).float()  # (n, d)

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        if x.shape[-1] != self.d:
            raise ValueError(f"last dim of x must be d={self.d}, got {x.shape[-1]}")
        T = x.shape[-2]
        if offset + T > self.pe.shape[0]:
            self.pe = self._build(offset + T).to(self.pe.device)
        return x + self.pe[offset : offset + T].to(x.dtype)  # (B, T, d)


# --8<-- [end:module]
