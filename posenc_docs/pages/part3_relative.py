"""Numbers behind Part III, page 1: T5's buckets and what the bias costs.

Every function takes plain numbers or a ``models.ModelConfig`` and returns numbers
or a Markdown table; the page calls them from macros and the example prints them.
"""

import math

import numpy as np
import torch

from posenc_docs import relative_bias
from posenc_docs.pages.format import markdown_table
from posenc_docs.pages.models import ModelConfig


def bucket_edges(*, bidirectional=True, num_buckets=32, max_distance=128, reach=4096):
    """``(bucket, nearest, farthest)`` distance into the past of every bucket.

    Distances run 0..``reach``; the last bucket's ``farthest`` is ``reach`` (it
    holds every longer distance too). Only the past side: with
    ``bidirectional`` the future side mirrors it, shifted by num_buckets / 2.
    """
    distance = np.arange(reach + 1)
    bucket = relative_bias.t5_relative_position_bucket(
        -distance,
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    )
    used = np.unique(bucket)
    return [
        (int(b), int(distance[bucket == b][0]), int(distance[bucket == b][-1]))
        for b in used
    ]


def exact_buckets(**kwargs) -> int:
    """How many buckets of `bucket_edges` hold a single distance."""
    return sum(near == far for _, near, far in bucket_edges(**kwargs)[:-1])


def bucket_table(**kwargs) -> str:
    """Markdown table of `bucket_edges`: one row per bucket; the last holds every
    distance from its first on, however far (not just up to ``reach``)."""
    rows = []
    for bucket, near, far in bucket_edges(**kwargs):
        span = f"{near:,}" if near == far else f"{near:,} – {far:,}"
        size = f"{far - near + 1:,}"
        if far == kwargs.get("reach", 4096):
            span, size = f"{near:,} and beyond", "no limit"
        rows.append((bucket, span, size))
    return markdown_table(("bucket", "distances into the past", "how many"), rows)


def index_before_floor(distance: int, *, num_buckets: int, max_distance: int) -> float:
    r"""Bucket of a key ``distance`` tokens before the query (bidirectional, past
    the exact buckets) before the floor, in float64.

    $e + \ln(r/e) / \ln(D/e) \cdot (n - e)$ with n = num_buckets/2 buckets a side,
    e = n/2 of them exact (the reference's `_bucket_layout`, which checks them),
    r = distance, D = max_distance.
    """
    n, exact, _ = relative_bias._bucket_layout(True, num_buckets, max_distance)
    log_share = math.log(distance / exact) / math.log(max_distance / exact)
    return exact + log_share * (n - exact)


def float32_log_bucket(distance: int, *, num_buckets: int, max_distance: int) -> int:
    """The bucket of a key ``distance`` tokens before the query (bidirectional, past
    the exact buckets) with the logarithm in float32, as Hugging Face's
    ``T5Attention._relative_position_bucket`` takes it."""
    n, exact, _ = relative_bias._bucket_layout(True, num_buckets, max_distance)
    ratio = torch.tensor(float(distance)) / exact  # float32, as .float() there
    steps = torch.log(ratio) / math.log(max_distance / exact) * (n - exact)
    return min(n - 1, exact + int(steps.to(torch.int64)))


def bias_entries(model: ModelConfig, seq_len: int) -> int:
    """Numbers in one stack's materialised bias, ``(H, L, L)``, for L tokens."""
    return model.num_heads * seq_len * seq_len


def bias_gib(model: ModelConfig, seq_len: int, bytes_per_number: int = 4) -> float:
    """Size of `bias_entries` in GiB (float32 by default)."""
    return bias_entries(model, seq_len) * bytes_per_number / 2**30


def shaw_vectors(max_relative_position: int) -> int:
    """Distinct relative vectors per projection in Shaw et al.: offsets -k..k."""
    return 2 * max_relative_position + 1


def speed_share(words_per_second: dict, name: str, reference: str) -> float:
    """``name``'s training speed as a fraction of ``reference``'s."""
    return words_per_second[name] / words_per_second[reference]
