"""Numbers behind Part III, page 2: raising the RoPE base (``rope_theta``).

Notation as in `posenc_docs.scaling`: d rotary dim, b base, L0 training length,
theta_i = b^(-2i/d). The turn census is Part II's (``part2_extension.turn_census``).
"""

# --8<-- [start:setup]
from functools import lru_cache

import numpy as np

from posenc_docs import rope, scaling, sinusoidal
from posenc_docs.pages import models, part2_extension
from posenc_docs.pages.format import fixed, markdown_table

GRID_STEP = 0.005  # smallest_base tries bases 10**0.005 (1.2 %) apart
# --8<-- [end:setup]

COARSE_STEP = 10 * GRID_STEP  # the page's example of a grid too coarse

BASE_MODELS = (
    "Llama-2-7B",
    "Yi-6B",
    "Llama-3-8B",
    "CodeLlama-7B",
    "Qwen2.5-7B-Instruct",
)


def census_table(names=BASE_MODELS) -> str:
    """Per model: base, training length L0, pairs that turn / never turn within L0."""
    rows = []
    for name in names:
        m = models.get(name)
        L = m.max_position_embeddings
        c = part2_extension.turn_census(m.rotary_dim, m.rope_theta, L)
        rows.append(
            (name, f"{m.rope_theta:,.0f}", f"{L:,}", c.full_turn,
             c.n_pairs - c.full_turn, f"{100 * c.slowest_fraction:.2f}%")
        )  # fmt: skip
    header = ("model", "rope_theta", "L₀", "turn within L₀", "never turn", "slowest")
    return markdown_table(header, rows)


# --8<-- [start:equivalent_ntk_factor]
def equivalent_ntk_factor(d: int, base: float, new_base: float) -> float:
    # --8<-- [end:equivalent_ntk_factor]
    """The NTK-aware factor s whose base ``b s^(d/(d-2))`` is ``new_base``.

    Notes
    -----
    NTK-aware scaling sets ``b' = b s^(d/(d-2))``, so ``s = (b'/b)^((d-2)/d)``:
    raising the base from b to b' is NTK-aware scaling by that s.
    """
    # --8<-- [start:equivalent_ntk_factor-body]
    return (new_base / base) ** ((d - 2) / d)


# --8<-- [end:equivalent_ntk_factor-body]


def pairs_meeting_new_angles(d, base, length, new_base, new_length) -> int:
    r"""Pairs whose angles within ``new_length`` at ``new_base`` leave the range
    they met within ``length`` at ``base``.

    Notes
    -----
    Pair i met the angles $[0, L_0 \theta_i]$ (every angle, once
    $L_0 \theta_i \ge 2\pi$); at the new base and length it meets
    $[0, L \theta'_i]$. It meets new ones if $L_0 \theta_i < 2\pi$ and
    $L \theta'_i > L_0 \theta_i$.
    """
    met = length * rope.inv_freq(d, base)
    meets = new_length * rope.inv_freq(d, new_base)
    return int(np.count_nonzero((met < 2 * np.pi) & (meets > met)))


def ntk_frequency_gap(d: int, base: float, new_base: float) -> float:
    """Max relative gap between ``scaling.ntk`` at the equivalent s and base b'."""
    s = equivalent_ntk_factor(d, base, new_base)
    ntk, _ = scaling.ntk(d, base, factor=s)
    return float(np.max(np.abs(ntk / rope.inv_freq(d, new_base) - 1)))


# --8<-- [start:cosine_sum]
def cosine_sum(m, d: int, base: float) -> np.ndarray:
    # --8<-- [end:cosine_sum]
    r"""$B_m = \sum_{i=0}^{d/2-1} \cos(m \theta_i)$ for every distance in ``m``.

    Notes
    -----
    For q = k with independent entries of variance $\sigma^2$,
    $E[q^\top R_m q] = 2 \sigma^2 B_m$ (the trace of $R_m$ is $2 B_m$): two
    identical tokens m apart keep a positive expected score while $B_m \ge 0$.
    """
    # --8<-- [start:cosine_sum-body]
    # RoPE's theta_i are the sinusoid's omega_i, so B_m is Part I's dot product
    # PE(p) . PE(p + m): the sum of cos(m theta_i) over the d/2 pairs.
    return sinusoidal.offset_similarity(m, d, base)  # m's shape


def min_cosine_sum(d: int, base: float, length: int) -> float:
    # --8<-- [end:cosine_sum-body]
    """The smallest $B_m$ over the distances m = 0 .. ``length``."""
    # --8<-- [start:cosine_sum-body2]
    return float(cosine_sum(np.arange(length + 1), d, base).min())


@lru_cache(maxsize=32)
def smallest_base(d: int, length: int, start: float = 1e3, step: float = GRID_STEP):
    # --8<-- [end:cosine_sum-body2]
    """First base on the log grid ``start * 10**(k * step)`` with min B_m >= 0.

    ``min_cosine_sum`` is not monotone in the base, so a larger base can fail
    again, and a coarser grid can step over a narrow range of bases that hold.
    """
    # --8<-- [start:cosine_sum-body3]
    k, near = 0, negative_distance(d, start, length)
    while near is not None:  # the next grid base usually fails near the same m
        k += 1
        near = negative_distance(d, start * 10.0 ** (k * step), length, near)
    return float(start * 10.0 ** (k * step))


def negative_distance(
    d: int, base: float, length: int, near: int = 0, block: int = 512
):
    # --8<-- [end:cosine_sum-body3]
    """A distance m <= ``length`` with B_m < 0, or None if min B_m >= 0.

    Distances are taken ``block`` at a time: first around ``near``, then from 0.
    """
    # --8<-- [start:cosine_sum-body4]
    for first in (max(0, near - block // 2), *range(0, length + 1, block)):
        m = np.arange(first, min(first + block, length + 1))
        sums = cosine_sum(m, d, base)
        if sums.min() < 0:
            return int(m[np.argmin(sums)])  # the most negative of this block
    return None


# --8<-- [end:cosine_sum-body4]


def next_grid_base(d: int, length: int) -> tuple[float, float]:
    """The grid base after ``smallest_base(d, length)`` and its min B_m: how narrow
    the range of bases that hold can be."""
    after = smallest_base(d, length) * 10.0**GRID_STEP
    return after, min_cosine_sum(d, after, length)


def bound_table(names=BASE_MODELS) -> str:
    """Per model: min B_m within its L, and the smallest grid base for that L."""
    rows = []
    for name in names:
        m = models.get(name)
        d, b, L = m.rotary_dim, m.rope_theta, m.max_position_embeddings
        low = min_cosine_sum(d, b, L)
        rows.append(
            (name, f"{b:,.0f}", f"{L:,}", fixed(low, 2),
             "holds" if low >= 0 else "fails", f"{smallest_base(d, L):,.0f}")
        )  # fmt: skip
    header = (
        "model",
        "rope_theta",
        "L",
        "min B_m, m ≤ L",
        "B_m ≥ 0",
        "first grid base",
    )
    return markdown_table(header, rows)
