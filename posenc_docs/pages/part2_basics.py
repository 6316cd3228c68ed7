"""Small computations behind the explanations of Part II, sections 01-05.

Each function returns one number (or a small table) that a page quotes, so the
text never carries a pasted value. The schemes themselves live in
`posenc_docs.sinusoidal`, `posenc_docs.rope` and `posenc_docs.alibi`.
"""

from functools import lru_cache

import numpy as np

from posenc_docs import alibi, attention, learned, rope, sinusoidal
from posenc_docs.pages import pitfalls
from posenc_docs.pages.format import markdown_table


def limit_wavelength(base: float = 10000.0) -> float:
    r"""$2\pi \cdot base$: the period the slowest pair approaches but never reaches.

    Notes
    -----
    The slowest pair of a width-$d$ encoding has period
    $2\pi\, base^{(d-2)/d}$, which is $base^{-2/d}$ times this value.
    """
    return 2 * np.pi * base


@lru_cache(maxsize=16)
def nearest_distinct_positions(d: int, max_offset: int, base: float = 10000.0):
    r"""The offset ``k`` in ``1..max_offset`` whose encodings are closest.

    Returns
    -------
    tuple of (int, float)
        ``(k, distance)``, the same for every starting position ``p``.

    Notes
    -----
    The distance depends on the offset only:

    $$
    \lVert PE(p+k) - PE(p) \rVert^2 = d - 2\sum_{i} \cos(k\,\omega_i)
    $$
    """
    best_k, best_sq = 0, np.inf
    for start in range(1, max_offset + 1, 8192):  # chunks keep memory small
        k = np.arange(start, min(start + 8192, max_offset + 1))
        squared = d - 2 * sinusoidal.offset_similarity(k, d, base)  # (chunk,)
        j = int(np.argmin(squared))
        if squared[j] < best_sq:
            best_k, best_sq = int(k[j]), float(squared[j])
    return best_k, float(np.sqrt(max(best_sq, 0.0)))


def rotation_degrees(position: float, pair: int, d: int, base: float = 10000.0):
    r"""How far RoPE turns pair ``pair`` at ``position``, in degrees: $m\theta_i$."""
    return float(np.degrees(position * rope.inv_freq(d, base)[pair]))


def _power_of_two(slope: float) -> str:
    """A slope as TeX, ``2^{-3.5}`` (ASCII minus: this goes into KaTeX)."""
    return f"2^{{{np.log2(slope):g}}}"


def alibi_slope_powers(n_heads: int, first: int = 0, *, elided: bool = False) -> str:
    """TeX for the slopes of heads ``first`` + 1 to ``n_heads`` (the reference
    code's) as powers of two, comma-separated; ``elided``: the first two, dots
    and the last, ``2^{-1}, 2^{-2}, \\dots, 2^{-8}`` for 8 heads."""
    powers = [_power_of_two(m) for m in alibi.alibi_slopes(n_heads)[first:]]
    if elided and len(powers) > 3:
        powers = [*powers[:2], "\\dots", powers[-1]]
    return ", ".join(powers)


def alibi_slope_table(n_heads: int) -> str:
    """Markdown table: head, the reference code's slope as a power of two and as
    a number, and $2^{-8k/n}$ for the same head, the paper's sentence applied to
    every head count (`posenc_docs.pages.pitfalls.prose_alibi_slopes`)."""
    slopes, naive = alibi.alibi_slopes(n_heads), pitfalls.prose_alibi_slopes(n_heads)
    rows = []
    for head, (m, wrong) in enumerate(zip(slopes, naive, strict=True), start=1):
        rows.append([head, f"${_power_of_two(m)}$", f"{m:.5f}", f"{wrong:.5f}"])
    header = ["head", "slope (reference code)", "value", "$2^{-8k/n}$"]
    return markdown_table(header, rows)


def gpt2_parameter_count(
    vocab: int = 50257, n_positions: int = 1024, d: int = 768, n_layer: int = 12
) -> int:
    r"""Trainable numbers in GPT-2 (defaults: GPT-2 small), tied output head.

    Notes
    -----
    Token and position tables, then per block two LayerNorms ($2d$ each),
    the fused qkv projection ($d \cdot 3d + 3d$), the output projection
    ($d^2 + d$) and an MLP of width $4d$; a final LayerNorm.
    """
    block = 2 * 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * (4 * d * d) + 5 * d
    return vocab * d + n_positions * d + n_layer * block + 2 * d


def bert_parameter_count(
    vocab: int = 30522, n_positions: int = 512, d: int = 768, n_layer: int = 12
) -> int:
    r"""Trainable numbers in BERT (defaults: BERT-base uncased), with pooler.

    Notes
    -----
    Token, position and 2 segment tables plus a LayerNorm; per block q, k, v
    and output projections ($4(d^2+d)$), two LayerNorms and an MLP of width
    $4d$; a $d \times d$ pooler.
    """
    embeddings = (vocab + n_positions + 2) * d + 2 * d
    block = 4 * (d * d + d) + 2 * 2 * d + 2 * (4 * d * d) + 5 * d
    return embeddings + n_layer * block + d * d + d


@lru_cache(maxsize=16)  # 04 reads its min and its max: one sweep
def rope_decay_range(start: int, stop: int, d: int = 128, base: float = 10000.0):
    """Smallest and largest relative upper bound over distances start..stop."""
    distances = np.arange(start, stop + 1)  # (stop - start + 1,)
    bound = rope.relative_upper_bound(distances, d, base)
    return float(bound.min()), float(bound.max())


def normalized_step(length: int) -> float:
    """How much one step is worth in ``p / (T - 1)``, position over length."""
    return 1 / (length - 1)


def raw_index_ratio(position: int, embedding_std: float) -> float:
    """How many times the raw index ``position`` exceeds a typical embedding entry."""
    return position / embedding_std


def pair_divisor(pair: int, d: int, base: float = 10000.0) -> float:
    r"""The divisor $base^{2i/d}$ of pair $i$ (its wavelength over $2\pi$)."""
    return float(sinusoidal.wavelengths(d, base)[pair] / (2 * np.pi))


def slowest_pair_shortfall(d: int, base: float = 10000.0) -> tuple[float, float]:
    r"""How far the slowest pair stays below $2\pi \cdot base$: (fraction, positions).

    Notes
    -----
    The slowest wavelength is $base^{-2/d}$ times the limit, so the fraction is
    $1 - base^{-2/d}$.
    """
    limit, slowest = limit_wavelength(base), sinusoidal.wavelengths(d, base)[-1]
    return 1 - base ** (-2 / d), float(limit - slowest)


def learned_share(n_positions: int, d: int, total_parameters: int) -> float:
    """Share of a model's parameters that its learned position table takes."""
    return learned.parameter_count(n_positions, d) / total_parameters


def alibi_penalty(n_heads: int, distance, head: int = -1) -> float:
    r"""What head ``head`` of ``n_heads`` subtracts at ``distance``: $m\,(i - j)$."""
    return float(alibi.alibi_slopes(n_heads)[head] * distance)


def alibi_reach(n_heads: int, penalty: float, head: int = -1) -> float:
    """The distance at which head ``head`` subtracts ``penalty``."""
    return float(penalty / alibi.alibi_slopes(n_heads)[head])


def alibi_weight_factor(n_heads: int, distance, head: int = 0) -> float:
    r"""The factor $e^{-m (i - j)}$ the penalty puts on a key's attention weight."""
    return float(np.exp(-alibi_penalty(n_heads, distance, head)))


def alibi_shrink(n_heads: int, distance, head: int = 0) -> float:
    r"""By how much the penalty shrinks a key's weight: $e^{m (i - j)}$."""
    return float(np.exp(alibi_penalty(n_heads, distance, head)))


def uniform_causal_weight(position: int, length: int = 100) -> float:
    """Weight causal attention with all-zero queries and keys gives token 0."""
    zeros = np.zeros((length, 4))  # (T, d): q = k = 0, so every score is 0
    first = np.eye(length)[:1].T  # (T, 1): value 1 on token 0 only
    return float(attention.attention(zeros, zeros, first, causal=True)[position, 0])
