"""Minimal scaled dot-product attention, for the demonstrations on the site.

`attention` is the float64 NumPy reference and `attention_torch` its PyTorch
twin. `self_attention` (and `self_attention_torch`) projects one sequence to
queries, keys and values and lets a positional scheme act: add a table to `x`
first, `rotate` q and k (RoPE), or pass a `bias` (ALiBi).
"""

import math

import numpy as np
import torch

from posenc_docs import _checks


def _future_keys(q_len: int, k_len: int) -> np.ndarray:
    """(q_len, k_len) bool, True where key j lies after query r.

    Query r sits at position `k_len - q_len + r` (queries are the last keys).
    """
    query_pos = np.arange(k_len - q_len, k_len)[:, None]  # (q, 1)
    return np.arange(k_len)[None, :] > query_pos  # (q, k)


def _check_shapes(q, k, v, bias, causal) -> None:
    """Raise a ValueError naming the argument whose shape does not fit."""
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"need q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv); got q "
            f"{tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
        )
    if q.shape[-1] == 0:  # the logits are divided by sqrt(d)
        raise ValueError(f"q must have a head width d >= 1, got shape {tuple(q.shape)}")
    if k.shape[-2] == 0 < q.shape[-2]:  # a softmax over no keys has no value
        raise ValueError(
            f"k must hold at least one key for {q.shape[-2]} queries, "
            f"got shape {tuple(k.shape)}"
        )
    if causal and q.shape[-2] > k.shape[-2]:
        raise ValueError(
            f"causal needs Tq <= Tk, got Tq={q.shape[-2]}, Tk={k.shape[-2]}"
        )
    try:
        lead = _checks.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    except ValueError:  # e.g. 8 query heads against 2 key heads: repeat k and v
        raise ValueError(
            f"q's and k's leading dims must broadcast (for grouped-query attention "
            f"repeat k and v per group first), got q {tuple(q.shape)}, "
            f"k {tuple(k.shape)}"
        ) from None
    _checks.checked_broadcasts_into(
        "v's leading dims", v.shape[:-2], lead, "q's and k's leading dims"
    )
    scores = (*lead, q.shape[-2], k.shape[-2])
    if bias is not None:
        _checks.checked_broadcasts_into("bias", bias.shape, scores, "the logits' shape")


def _scale(scale, d: int) -> float:
    """The logits' factor: 1/sqrt(d) by default, else a checked `scale` > 0."""
    if scale is None:
        return 1 / math.sqrt(d)
    return _checks.checked_real("scale", scale, gt=0)


def _checked_arrays(q, k, v, bias, causal, return_weights):
    """q, k, v (and bias) as float64 arrays, after checking every argument."""
    _checks.checked_bool("causal", causal)
    _checks.checked_bool("return_weights", return_weights)
    q, k, v = (
        _checks.checked_array(name, a, min_ndim=2, floating=False).astype(np.float64)
        for name, a in (("q", q), ("k", k), ("v", v))
    )
    if bias is not None:
        bias = _checks.checked_array("bias", bias, min_ndim=0, floating=False)
        bias = bias.astype(np.float64)
    _check_shapes(q, k, v, bias, causal)
    return q, k, v, bias


def attention(q, k, v, *, bias=None, causal=False, return_weights=False, scale=None):
    r"""Scaled dot-product attention (NumPy, float64).

    Parameters
    ----------
    q : array_like
        Queries, shape `(..., Tq, d)`.
    k : array_like
        Keys, shape `(..., Tk, d)`.
    v : array_like
        Values, shape `(..., Tk, dv)`.
    bias : array_like, optional
        Added to the scaled logits; broadcastable to `(..., Tq, Tk)`.
    causal : bool, default False
        Mask keys after each query; query r sits at position `Tk - Tq + r`.
    return_weights : bool, default False
        Also return the attention weights `(..., Tq, Tk)`.
    scale : float, optional
        The logits' factor s > 0, as `scaled_dot_product_attention`'s `scale`;
        None means $1/\sqrt{d}$. Gemma 2 and 3: `query_pre_attn_scalar ** -0.5`
        (Gemma 1: the default; Gemma 3n and 4: 1);
        DeepSeek with YaRN: `scaling.yarn_mscale(factor, mscale_all_dim) ** 2`
        over $\sqrt{d}$; T5, whose bias goes on unscaled logits: 1.

    Returns
    -------
    numpy.ndarray or tuple of numpy.ndarray
        `out` of shape `(..., Tq, dv)`, and the weights if asked for.

    Notes
    -----
    $w = \mathrm{softmax}(s\, q k^\top + \mathrm{bias})$ over keys, $s = 1/\sqrt{d}$
    by default; $\mathrm{out} = w\, v$. q is scaled by s before the product
    (torch's math backend of `scaled_dot_product_attention` scales q and k each
    by $\sqrt{s}$), so 16-bit logits do not overflow first.
    A query whose every key is masked ($-\infty$) gets weights 0 and output 0,
    as in torch's, not NaN.
    """
    q, k, v, bias = _checked_arrays(q, k, v, bias, causal, return_weights)
    scores = q * _scale(scale, q.shape[-1]) @ np.swapaxes(k, -1, -2)  # (..., Tq, Tk)
    scores = scores if bias is None else scores + bias
    if causal:
        scores = np.where(_future_keys(q.shape[-2], k.shape[-2]), -np.inf, scores)
    top = scores.max(axis=-1, keepdims=True, initial=-np.inf)  # no query: empty
    masked = np.isneginf(top)  # every key masked: weights 0, not 0 / 0
    weights = np.exp(scores - np.where(masked, 0.0, top))
    weights /= np.where(masked, 1.0, weights.sum(axis=-1, keepdims=True))
    out = weights @ v  # (..., Tq, dv)
    return (out, weights) if return_weights else out


def _checked_tensors(q, k, v, bias, causal, return_weights):
    """Check every argument of attention_torch; return bias, cast to q's dtype
    under torch.autocast (as autocast casts scaled_dot_product_attention's mask:
    q is then in the autocast dtype, a bias built outside it is not)."""
    _checks.checked_bool("causal", causal)
    _checks.checked_bool("return_weights", return_weights)
    q = _checks.checked_computable("q", _checks.checked_tensor("q", q, min_ndim=2))
    for name, t in (("k", k), ("v", v)):
        _checks.checked_tensor(name, t, min_ndim=2)
        _checks.checked_same_device(name, t, q.device)
        _checks.checked_same_dtype(name, t, q.dtype, "q")
    if bias is not None:
        _checks.checked_tensor("bias", bias, min_ndim=0)
        _checks.checked_same_device("bias", bias, q.device)
    _check_shapes(q, k, v, bias, causal)
    kind = q.device.type  # meta has no autocast: asking about it raises
    autocast = torch.amp.is_autocast_available(kind) and torch.is_autocast_enabled(kind)
    if bias is not None and autocast and bias.is_floating_point():
        bias = bias.to(q.dtype)
    if bias is not None:  # alibi_bias_torch(dtype=...)
        _checks.checked_same_dtype("bias", bias, q.dtype, "q")
    return bias


def attention_torch(
    q, k, v, *, bias=None, causal=False, return_weights=False, scale=None
):
    r"""Torch twin of [`attention`][] (same arguments): scaled dot-product attention.

    q, k and v are tensors of one dtype and device; `bias` (optional) is a
    tensor of that dtype on that device (under `torch.autocast`, where q from a
    projection is in the autocast dtype, a bias of another floating dtype is
    cast to q's, as autocast casts `scaled_dot_product_attention`'s mask, and so
    rounded: in bfloat16 an ALiBi bias is exact only for power-of-two slopes and
    distances up to 256).

    Returns
    -------
    torch.Tensor or tuple of torch.Tensor
        As attention, in q's dtype (under `torch.autocast`, the autocast dtype,
        as `scaled_dot_product_attention`'s); differentiable.

    Notes
    -----
    $w = \mathrm{softmax}(s\, q k^\top + \mathrm{bias})$ ($s$ = `scale`, default
    $1/\sqrt{d}$), with $-\infty$ for masked keys; q scaled first. A query whose
    every key is masked gets weights 0, output 0 and gradients 0 (as
    `scaled_dot_product_attention`), not NaN.
    """
    bias = _checked_tensors(q, k, v, bias, causal, return_weights)
    scores = q * _scale(scale, q.shape[-1]) @ k.transpose(-1, -2)  # (..., Tq, Tk)
    scores = scores if bias is None else scores + bias
    if causal:  # key j after query r, at k_len - q_len + r (as _future_keys)
        q_len, k_len = q.shape[-2], k.shape[-2]
        keys = torch.arange(k_len, device=scores.device)  # (k,)
        future = keys > keys[k_len - q_len :, None]  # (q, k)
        scores = scores.masked_fill(future, -math.inf)
    masked = scores.isneginf().all(dim=-1, keepdim=True)  # (..., Tq, 1)
    weights = torch.softmax(scores.masked_fill(masked, 0.0), dim=-1)
    weights = weights.masked_fill(masked, 0.0)  # every key masked: no NaN
    out = weights @ v  # (..., Tq, dv)
    return (out, weights) if return_weights else out


def _check_projections(x, weights, rotate) -> None:
    """Raise if a projection does not take x's width or rotate is not callable."""
    if rotate is not None and not callable(rotate):
        raise TypeError(f"rotate must be callable or None, got {rotate!r}")
    for name, w in weights.items():
        empty = w.ndim == 2 and w.shape[1] == 0 and name != "w_v"  # d_v = 0: empty
        if w.ndim != 2 or w.shape[0] != x.shape[-1] or empty:
            raise ValueError(
                f"{name} must have shape (d_model, d_head) with d_model = "
                f"x.shape[-1] = {x.shape[-1]} and d_head >= 1, got {tuple(w.shape)}"
            )


# --8<-- [start:self_attention]
def self_attention(x, w_q, w_k, w_v, *, rotate=None, bias=None, causal=False):
    # --8<-- [end:self_attention]
    r"""One attention head over the sequence `x` of shape `(..., T, d_model)`.

    Parameters
    ----------
    x : array_like
        The sequence, shape `(..., T, d_model)`.
    w_q : array_like
        Query projection, shape `(d_model, d_head)`.
    w_k : array_like
        Key projection, shape `(d_model, d_head)`.
    w_v : array_like
        Value projection, shape `(d_model, d_v)`.
    rotate : callable, optional
        Applied to q and k (e.g. RoPE at positions 0..T-1).
    bias : array_like, optional
        Added to the scaled logits (e.g. ALiBi).
    causal : bool, default False
        Mask keys after each query.

    Returns
    -------
    numpy.ndarray
        Shape `(..., T, d_v)`.

    Notes
    -----
    $q, k, v = x W_q, x W_k, x W_v$; if given, `rotate` (e.g. RoPE at
    positions 0..T-1) is applied to q and k only; then attention.
    Without any of `rotate`/`bias`/`causal` (and nothing added to `x`)
    the result is permutation equivariant: permuting the rows of `x`
    permutes the output rows the same way, so word order is invisible.
    """
    # --8<-- [start:self_attention-body]
    x = _checks.checked_array("x", x, min_ndim=2, floating=False)
    named = {"w_q": w_q, "w_k": w_k, "w_v": w_v}
    w = {n: _checks.checked_array(n, a, floating=False) for n, a in named.items()}
    _check_projections(x, w, rotate)
    q, k, v = x @ w["w_q"], x @ w["w_k"], x @ w["w_v"]  # (..., T, d_head)
    if rotate is not None:
        q, k = rotate(q), rotate(k)
    return attention(q, k, v, bias=bias, causal=causal)


# --8<-- [end:self_attention-body]


def self_attention_torch(x, w_q, w_k, w_v, *, rotate=None, bias=None, causal=False):
    r"""Torch twin of [`self_attention`][] (same arguments, tensors in).

    Returns
    -------
    torch.Tensor
        Shape `(..., T, d_v)`, x's dtype (under `torch.autocast`, the autocast
        dtype of the projections); differentiable.

    Notes
    -----
    $q, k, v = x W_q, x W_k, x W_v$ with $W_q$ and $W_k$ of shape
    `(d_model, d_head)`, $W_v$ of shape `(d_model, d_v)`; `rotate` (e.g. RoPE)
    acts on q and k only; then attention_torch.
    """
    x = _checks.checked_tensor("x", x, min_ndim=2)
    w = {"w_q": w_q, "w_k": w_k, "w_v": w_v}
    for name, t in w.items():
        _checks.checked_tensor(name, t)
        _checks.checked_same_device(name, t, x.device)
        _checks.checked_same_dtype(name, t, x.dtype, "x")
    _check_projections(x, w, rotate)
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # (..., T, d_head)
    if rotate is not None:
        q, k = rotate(q), rotate(k)
    return attention_torch(q, k, v, bias=bias, causal=causal)
