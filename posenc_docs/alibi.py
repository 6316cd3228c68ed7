r"""Attention with Linear Biases (ALiBi; Press, Smith & Lewis, 2022).

ALiBi adds no vector to the tokens. Each head h adds a fixed penalty
$-m_h \cdot \text{distance}$ to its attention logits, after the $1/\sqrt{d}$ scaling.
`alibi_slopes` gives the per-head slopes m_h of the paper's reference code,
in its order (as exact powers of 2, where its `get_slopes` multiplies them out
and can be a few ulps off); `alibi_bias` (NumPy, float64) and
`alibi_bias_torch` build the `(n_heads, q_len, k_len)` bias tensor.
"""

import math

import numpy as np
import torch

from posenc_docs._checks import (
    checked_bool,
    checked_device,
    checked_float_dtype,
    checked_int,
    checked_query_len,
)


# --8<-- [start:alibi_slopes]
def alibi_slopes(n_heads: int) -> np.ndarray:
    # --8<-- [end:alibi_slopes]
    r"""Per-head ALiBi slopes, as in the paper's reference `get_slopes`.

    Parameters
    ----------
    n_heads : int
        Number of attention heads (> 0).

    Returns
    -------
    numpy.ndarray
        Float64 slopes, shape `(n_heads,)`, in the reference code's order: largest
        first when n_heads is a power of two; otherwise the c slopes of the largest
        power of two c below it, then the odd powers (which can be larger).

    Notes
    -----
    For a power of two n the slopes are a geometric sequence,
    $m_k = 2^{-8k/n}$ for $k = 1, \dots, n$ (n = 8 gives 1/2, 1/4, ..., 1/256).
    Otherwise, with $c = 2^{\lfloor \log_2 n \rfloor}$, take the c slopes for c
    heads, then the first $n - c$ of elements 0, 2, 4, ... of the slopes for 2c
    heads, i.e. $2^{-4(2j+1)/c}$: the odd powers of $2^{-4/c}$. The first of them
    is the largest slope of all; the others fall between the first ones. n = 1
    gives $2^{-8}$, the reference code's value.
    """
    # --8<-- [start:alibi_slopes-body]
    n_heads = checked_int("n_heads", n_heads)
    c = 2 ** math.floor(math.log2(n_heads))  # largest power of two <= n_heads
    k = np.arange(1, c + 1, dtype=np.float64)
    odd = np.arange(1, 2 * (n_heads - c), 2, dtype=np.float64)  # 1, 3, 5, ...
    # 2^(-8k/c), then 2^(-4 odd/c) = 2^(-8 odd/(2c)); exact when the power is whole
    return np.exp2(np.concatenate([-8.0 * k / c, -4.0 * odd / c]))  # (n_heads,)


# --8<-- [end:alibi_slopes-body]


def _checked_sizes(n_heads, q_len, k_len, causal) -> tuple[int, int, int, bool]:
    n_heads = checked_int("n_heads", n_heads)
    q_len, k_len = checked_query_len(q_len, k_len)
    return n_heads, q_len, k_len, checked_bool("causal", causal)


def alibi_bias(n_heads: int, q_len: int, k_len: int, *, causal: bool = True):
    r"""ALiBi bias to add to the scaled attention logits (NumPy, float64).

    Parameters
    ----------
    n_heads : int
        Number of heads; slopes from `alibi_slopes`.
    q_len : int
        Number of queries; they are the *last* `q_len` positions of the keys,
        as when decoding with a KV cache, so at most `k_len`.
    k_len : int
        Number of keys.
    causal : bool, default True
        True (the paper): `-inf` above the diagonal. False: the symmetric
        `-m|i - j|` variant (MPT's `full=True`), which is *not* the paper's.

    Returns
    -------
    numpy.ndarray
        Shape `(n_heads, q_len, k_len)`.

    Notes
    -----
    Query row r sits at absolute position $i = k_{len} - q_{len} + r$; key j at j.
    $\mathrm{bias}_{h,r,j} = -m_h (i - j)$ if $j \le i$, else $-\infty$ (causal).
    Softmax ignores a constant added to a row, so $+m_h j$ (fairseq) or
    BLOOM's key-index form give the same attention weights.
    """
    n_heads, q_len, k_len, causal = _checked_sizes(n_heads, q_len, k_len, causal)
    query_pos = np.arange(k_len - q_len, k_len, dtype=np.float64)  # (q,)
    distance = np.subtract.outer(query_pos, np.arange(k_len, dtype=np.float64))
    if causal:
        distance[distance < 0] = np.inf  # -m * inf = -inf: the mask comes free
    else:
        np.abs(distance, out=distance)
    neg_slopes = -alibi_slopes(n_heads)[:, None, None]  # (H, 1, 1)
    bias = np.empty((n_heads, q_len, k_len), dtype=np.float64)
    return np.multiply(neg_slopes, distance, out=bias)  # (H, q, k), one pass


def alibi_bias_torch(
    n_heads: int,
    q_len: int,
    k_len: int,
    *,
    causal: bool = True,
    dtype: torch.dtype = torch.float32,
    device=None,
) -> torch.Tensor:
    r"""Torch version of `alibi_bias`: same arguments, plus dtype/device.

    Parameters
    ----------
    n_heads : int
        Number of heads; slopes from `alibi_slopes`.
    q_len : int
        Number of queries (the last `q_len` positions of the keys).
    k_len : int
        Number of keys.
    causal : bool, default True
        As in `alibi_bias`.
    dtype : torch.dtype, default torch.float32
        A floating-point dtype (an integer one cannot hold `-inf`).
    device : str or torch.device, optional
        Where the tensor is made; None means torch's default device.

    Returns
    -------
    torch.Tensor
        Shape `(n_heads, q_len, k_len)`.

    Notes
    -----
    Same formula, $\mathrm{bias}_{h,r,j} = -m_h (k_{len} - q_{len} + r - j)$,
    $-\infty$ above the diagonal when causal. It is computed in at least float32
    and cast to `dtype` at the end, so a bfloat16 distance above 256 is never
    rounded on the way: a 16-bit bias is rounded once, by that cast. In float32
    the slope and the product are each rounded, so an entry can be 1 ulp from the
    float64 bias rounded to float32; only a head whose slope is not a power of 2
    can be (for 12 heads the last four, about 1 entry in 5 of theirs, 1 in 14 of
    all, at 512 positions).
    """
    n_heads, q_len, k_len, causal = _checked_sizes(n_heads, q_len, k_len, causal)
    dtype = checked_float_dtype("dtype", dtype)
    device = checked_device("device", device)
    work = torch.promote_types(dtype, torch.float32)
    kwargs = {"dtype": work, "device": device}
    query_pos = torch.arange(k_len - q_len, k_len, **kwargs)  # (q,)
    distance = query_pos[:, None] - torch.arange(k_len, **kwargs)  # (q, k)
    if causal:
        distance.masked_fill_(distance < 0, math.inf)
    else:
        distance.abs_()
    neg_slopes = -torch.as_tensor(alibi_slopes(n_heads), **kwargs)  # (H,)
    return (neg_slopes[:, None, None] * distance).to(dtype)  # (H, q, k)
