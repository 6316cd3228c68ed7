"""Minimal scaled dot-product attention, for the demonstrations on the site.

:func:`attention` takes NumPy arrays (computed in float64) or torch tensors.
:func:`self_attention` projects one sequence to queries, keys and values and
lets a positional scheme act: add a table to ``x`` first, ``rotate`` q and k
(RoPE), or pass a ``bias`` (ALiBi).
"""

import math

import numpy as np
import torch


def _future_keys(q_len: int, k_len: int) -> np.ndarray:
    """(q_len, k_len) bool, True where key j lies after query r.

    Query r sits at position ``k_len - q_len + r`` (queries are the last keys).
    """
    query_pos = np.arange(k_len - q_len, k_len)[:, None]  # (q, 1)
    return np.arange(k_len)[None, :] > query_pos  # (q, k)


def _check_shapes(q, k, v, causal: bool) -> None:
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"need q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv); got q "
            f"{tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
        )
    if causal and q.shape[-2] > k.shape[-2]:
        raise ValueError(
            f"causal needs Tq <= Tk, got Tq={q.shape[-2]}, Tk={k.shape[-2]}"
        )


# --8<-- [start:attention]
def attention(q, k, v, *, bias=None, causal=False, return_weights=False):
    """Scaled dot-product attention for NumPy arrays or torch tensors.

    Parameters
    ----------
    q, k, v : array or tensor
        Shapes ``(..., Tq, d)``, ``(..., Tk, d)``, ``(..., Tk, dv)``.
    bias : array or tensor, optional
        Added to the scaled logits; broadcastable to ``(..., Tq, Tk)``.
    causal : bool
        Mask keys after each query; query r sits at position ``Tk - Tq + r``.
    return_weights : bool
        Also return the attention weights ``(..., Tq, Tk)``.

    Notes
    -----
    ``weights = softmax(q k^T / sqrt(d) + bias)`` over keys; ``out = weights v``.
    """
    _check_shapes(q, k, v, causal)
    future = _future_keys(q.shape[-2], k.shape[-2]) if causal else None
    if isinstance(q, np.ndarray):
        q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
        scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])  # (..., Tq, Tk)
        scores = scores if bias is None else scores + bias
        scores = scores if future is None else np.where(future, -np.inf, scores)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
    else:
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])  # (..., Tq, Tk)
        scores = scores if bias is None else scores + bias
        if future is not None:
            scores = scores.masked_fill(
                torch.as_tensor(future, device=scores.device), -math.inf
            )
        weights = torch.softmax(scores, dim=-1)
    out = weights @ v  # (..., Tq, dv)
    return (out, weights) if return_weights else out


# --8<-- [end:attention]


# --8<-- [start:self_attention]
def self_attention(x, w_q, w_k, w_v, *, rotate=None, bias=None, causal=False):
    """One attention head over the sequence ``x`` of shape ``(..., T, d_model)``.

    Notes
    -----
    ``q, k, v = x W_q, x W_k, x W_v``; if given, ``rotate`` (e.g. RoPE at
    positions 0..T-1) is applied to q and k only; then :func:`attention`.
    Without any of ``rotate``/``bias``/``causal`` (and nothing added to ``x``)
    the result is permutation equivariant: permuting the rows of ``x``
    permutes the output rows the same way, so word order is invisible.
    """
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # (..., T, d_head)
    if rotate is not None:
        q, k = rotate(q), rotate(k)
    return attention(q, k, v, bias=bias, causal=causal)


# --8<-- [end:self_attention]
