"""T5's bucketed relative position bias (Raffel et al., JMLR 2020).

T5 adds no vector to the tokens. Every attention layer adds a learned scalar
`table[bucket(j - i), h]` to the logit of query i and key j in head h; the table
is learned by the first layer of each stack and shared by the others. The
bucket of a signed distance is exact for short distances and logarithmic up to
`max_distance`, beyond which all distances share one bucket.
`t5_relative_position_bucket` (NumPy) and its torch twin
`t5_relative_position_bucket_torch` compute the bucket; `t5_bias`
and `t5_bias_torch` gather a `(num_buckets, n_heads)` table into the
`(n_heads, q_len, k_len)` bias.
"""

import math

import numpy as np
import torch

from posenc_docs._checks import (
    checked_array,
    checked_bool,
    checked_even,
    checked_int,
    checked_integer_dtype,
    checked_query_len,
    checked_tensor,
)

_FARTHEST = 2**63 - 1  # int64's largest: abs() and negation of +-_FARTHEST are exact


def _bucket_layout(bidirectional, num_buckets, max_distance, name="num_buckets"):
    """(buckets per direction, exact buckets, max_distance), checked; the bucket
    count is called `name` in errors."""
    if checked_bool("bidirectional", bidirectional):
        per_side = checked_even(name, num_buckets, minimum=4) // 2
    else:
        per_side = checked_int(name, num_buckets, minimum=2)
    max_exact = per_side // 2
    max_distance = checked_int("max_distance", max_distance, minimum=max_exact + 1)
    return per_side, max_exact, max_distance


# --8<-- [start:t5_relative_position_bucket]
def t5_relative_position_bucket(
    relative_position, *, bidirectional=True, num_buckets=32, max_distance=128
):
    # --8<-- [end:t5_relative_position_bucket]
    r"""Bucket index of each signed distance `key - query` (NumPy reference).

    Parameters
    ----------
    relative_position : integer array, any shape
        `j - i` for key position j and query position i (negative: the past).
    bidirectional : bool, default True
        True (encoder): half the buckets for each sign. False (decoder): keys
        after the query all fall in bucket 0, where the causal mask hides them.
    num_buckets : int, default 32
        Buckets in total (even and >= 4 when bidirectional, >= 2 otherwise).
    max_distance : int, default 128
        Distances from here on share the last bucket of their side (the log
        formula would put them past it); more than the exact buckets, which
        number num_buckets/4 bidirectional and num_buckets/2 otherwise. The log
        spacing reaches that bucket earlier: at distance 91 for the defaults,
        bidirectional.

    Returns
    -------
    numpy.ndarray or numpy.int64
        int64, same shape (a scalar for a scalar), values in `[0, num_buckets)`.

    Notes
    -----
    With n buckets per side, $e = \lfloor n/2 \rfloor$, distance $r = |j - i|$
    and $D$ = `max_distance`: the bucket is r if $r < e$, else
    $\min\bigl(n - 1,\ e + \lfloor \ln(r/e) / \ln(D/e) \cdot (n - e) \rfloor\bigr)$.
    Bidirectional keys after the query ($j > i$) add n. Logs are float64.
    """
    # --8<-- [start:t5_relative_position_bucket-body]
    rel = checked_array(
        "relative_position", relative_position, min_ndim=0, floating=False
    )
    unsigned = checked_integer_dtype("relative_position", rel).dtype == np.uint64
    rel = rel.astype(np.int64)  # no wrap in abs() or negation of narrower ints
    if unsigned:  # a uint64 past int64's range wrapped to a negative: undo
        rel = np.where(rel < 0, _FARTHEST, rel)
    rel = np.maximum(rel, -_FARTHEST)  # int64's smallest has no positive twin
    n, exact, max_distance = _bucket_layout(bidirectional, num_buckets, max_distance)
    if bidirectional:
        side, distance = np.where(rel > 0, n, 0), np.abs(rel)
    else:
        side, distance = 0, np.maximum(-rel, 0)  # keys after the query: bucket 0
    ratio = np.maximum(distance, exact) / exact  # >= 1: no log(0)
    steps = np.log(ratio) / math.log(max_distance / exact) * (n - exact)
    far = np.minimum(exact + steps.astype(np.int64), n - 1)
    return (side + np.where(distance < exact, distance, far)).astype(np.int64)


# --8<-- [end:t5_relative_position_bucket-body]


# --8<-- [start:t5_relative_position_bucket_torch]
def t5_relative_position_bucket_torch(
    relative_position, *, bidirectional=True, num_buckets=32, max_distance=128
):
    # --8<-- [end:t5_relative_position_bucket_torch]
    """Torch twin of [`t5_relative_position_bucket`][] (same arguments, a tensor in).

    Returns
    -------
    torch.Tensor
        int64 buckets in [0, num_buckets), relative_position's shape and device.

    Notes
    -----
    Same formula; the logarithms are taken in float64 like the reference.
    (Hugging Face's `T5Attention._relative_position_bucket` takes them in
    float32, so at a few distances whose bucket lies at or next to a whole
    number it can be one bucket higher or lower.)
    """
    # --8<-- [start:t5_relative_position_bucket_torch-body]
    rel = checked_tensor(
        "relative_position", relative_position, min_ndim=0, floating=False
    )
    unsigned = checked_integer_dtype("relative_position", rel).dtype == torch.uint64
    rel = rel.long()  # no wrap in abs() or negation of narrower ints
    if unsigned:  # a uint64 past int64's range wrapped to a negative: undo
        rel = torch.where(rel < 0, _FARTHEST, rel)
    rel = rel.clamp(min=-_FARTHEST)  # int64's smallest has no positive twin
    n, exact, max_distance = _bucket_layout(bidirectional, num_buckets, max_distance)
    if bidirectional:
        side, distance = (rel > 0).long() * n, rel.abs()
    else:
        side, distance = 0, (-rel).clamp(min=0)
    ratio = distance.clamp(min=exact).double() / exact
    steps = ratio.log() / math.log(max_distance / exact) * (n - exact)
    far = (exact + steps.long()).clamp(max=n - 1)
    return side + torch.where(distance < exact, distance, far)


# --8<-- [end:t5_relative_position_bucket_torch-body]


def _checked_bias_args(table, q_len, k_len, bidirectional, max_distance):
    """Check the table's shape, its bucket count and the lengths; return the
    lengths as ints."""
    if table.ndim != 2:
        raise ValueError(
            f"table must have shape (num_buckets, n_heads), got {tuple(table.shape)}"
        )
    _bucket_layout(bidirectional, table.shape[0], max_distance, name="table.shape[0]")
    return checked_query_len(q_len, k_len)


# --8<-- [start:t5_bias]
def t5_bias(table, q_len, k_len, *, bidirectional=True, max_distance=128):
    # --8<-- [end:t5_bias]
    r"""Relative position bias of one layer from its bucket table (NumPy).

    Parameters
    ----------
    table : array of shape (num_buckets, n_heads)
        The learned biases (HF `relative_attention_bias.weight`, held by the
        first layer of each stack and used by all of its layers).
    q_len : int
        Number of queries; they are the *last* `q_len` key positions.
    k_len : int
        Number of keys.
    bidirectional : bool, default True
        As in `t5_relative_position_bucket`.
    max_distance : int, default 128
        As in `t5_relative_position_bucket`.

    Returns
    -------
    numpy.ndarray
        float64, shape `(n_heads, q_len, k_len)`, added to the logits.

    Notes
    -----
    $\mathrm{bias}_{h,r,j} = \mathrm{table}[\mathrm{bucket}(j - i), h]$ with
    $i = k_{len} - q_{len} + r$. T5 adds it to unscaled logits $q k^\top$ (no
    $1/\sqrt{d}$): to match a T5 checkpoint, call `attention` with `scale=1.0`
    (its default divides by $\sqrt{d}$).
    """
    # --8<-- [start:t5_bias-body]
    table = checked_array("table", table, floating=False)  # integers: float64 out
    q_len, k_len = _checked_bias_args(table, q_len, k_len, bidirectional, max_distance)
    query_pos = np.arange(k_len - q_len, k_len)  # (q,)
    relative = np.arange(k_len)[None, :] - query_pos[:, None]  # (q, k)
    bucket = t5_relative_position_bucket(
        relative,
        bidirectional=bidirectional,
        num_buckets=table.shape[0],
        max_distance=max_distance,
    )
    return np.moveaxis(table.astype(np.float64)[bucket], -1, 0)  # (H, q, k)


# --8<-- [end:t5_bias-body]


def t5_bias_torch(table, q_len, k_len, *, bidirectional=True, max_distance=128):
    r"""Torch twin of [`t5_bias`][] (same arguments, `table` a tensor).

    Returns
    -------
    torch.Tensor
        Shape `(n_heads, q_len, k_len)`, `table`'s dtype and device; it keeps
        `table`'s grad.

    Notes
    -----
    Same formula, $\mathrm{bias}_{h,r,j} = \mathrm{table}[\mathrm{bucket}(j - i), h]$;
    the gather is
    differentiable in `table`.
    """
    table = checked_tensor("table", table)
    q_len, k_len = _checked_bias_args(table, q_len, k_len, bidirectional, max_distance)
    keys = torch.arange(k_len, device=table.device)
    relative = keys[None, :] - keys[k_len - q_len :, None]  # (q, k)
    bucket = t5_relative_position_bucket_torch(
        relative,
        bidirectional=bidirectional,
        num_buckets=table.shape[0],
        max_distance=max_distance,
    )
    return table[bucket].permute(2, 0, 1)  # (H, q, k)
