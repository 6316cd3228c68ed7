"""Small computations behind the explanations of Part II, sections 01-05.

Each function returns one number (or a small table) that a page quotes, so the
text never carries a pasted value. The schemes themselves live in
:mod:`posenc_docs.sinusoidal`, :mod:`posenc_docs.rope` and :mod:`posenc_docs.alibi`.
"""

from functools import lru_cache

import numpy as np

from posenc_docs import alibi, rope, sinusoidal
from posenc_docs._checks import checked_int
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


def scalar_shift_error(k: int, dim: int, d: int, n_positions: int = 1000) -> float:
    r"""Worst error of the best map $PE(p+k)_{dim} \approx a\,PE(p)_{dim} + b$.

    Notes
    -----
    $a, b$ are fitted by least squares over positions $0..n-1$ using one
    dimension alone. A sine cannot be predicted from itself: two positions with
    the same $\sin p$ can have different $\sin(p+k)$, so the error stays large.
    """
    pe = sinusoidal.table(n_positions + k, d)  # (n + k, d)
    now, later = pe[:n_positions, dim], pe[k:, dim]  # (n,) each
    design = np.stack([now, np.ones_like(now)], axis=1)  # (n, 2)
    coef, *_ = np.linalg.lstsq(design, later, rcond=None)
    return float(np.abs(design @ coef - later).max())


def block_shift_error(k: int, d: int, n_positions: int = 1000) -> float:
    r"""Worst error of $PE(p+k) = M_k\,PE(p)$ over positions $0..n-1$."""
    pe = sinusoidal.table(n_positions + k, d)  # (n + k, d)
    predicted = pe[:n_positions] @ sinusoidal.shift_matrix(k, d).T  # (n, d)
    return float(np.abs(predicted - pe[k:]).max())


def rope_matrix(m: float, d: int, base: float = 10000.0) -> np.ndarray:
    r"""The ``(d, d)`` RoPE rotation $R_m$ (interleaved layout).

    Notes
    -----
    Block diagonal; pair $i$ (dimensions $2i, 2i+1$) gets

    $$
    \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\
    \sin m\theta_i & \cos m\theta_i \end{pmatrix}, \qquad \theta_i = base^{-2i/d}
    $$
    """
    out = np.zeros((d, d))
    for i, theta in enumerate(rope.inv_freq(d, base)):
        c, s = np.cos(m * theta), np.sin(m * theta)
        out[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]
    return out


def rotation_degrees(position: float, pair: int, d: int, base: float = 10000.0):
    r"""How far RoPE turns pair ``pair`` at ``position``, in degrees: $m\theta_i$."""
    return float(np.degrees(position * rope.inv_freq(d, base)[pair]))


def rope_decay_bound(distance, d: int = 128, base: float = 10000.0) -> np.ndarray:
    r"""RoFormer's relative upper bound (section 3.4.3) at each relative distance.

    Notes
    -----
    With partial sums $S_j = \sum_{i=0}^{j-1} e^{\mathrm{i}\,(m-n)\,\theta_i}$ the
    score is bounded by $\max_i |h_{i+1}-h_i| \sum_j |S_j|$; this returns the
    distance-dependent factor, averaged over the $d/2$ sums:

    $$
    \frac{1}{d/2} \sum_{j=1}^{d/2} |S_j|
    $$
    """
    distance = np.asarray(distance, dtype=np.float64)
    phase = np.multiply.outer(distance, rope.inv_freq(d, base))  # (..., d/2)
    partial_sums = np.cumsum(np.exp(1j * phase), axis=-1)  # (..., d/2): S_1..S_{d/2}
    return np.abs(partial_sums).mean(axis=-1)


def seed_alibi_slopes(n_heads: int) -> np.ndarray:
    r"""$2^{-8k/n}$ for every $n$: right for powers of two only.

    Notes
    -----
    This is the rule the source article's code applies to any head count; the
    paper's code (:func:`posenc_docs.alibi.alibi_slopes`) differs when $n$ is
    not a power of two.
    """
    k = np.arange(1, n_heads + 1, dtype=np.float64)
    return 2.0 ** (-8.0 * k / n_heads)


def alibi_slope_table(n_heads: int) -> str:
    """Markdown table: head, paper slope as a power of two and as a number,
    and the value of :func:`seed_alibi_slopes` for the same head."""
    slopes, naive = alibi.alibi_slopes(n_heads), seed_alibi_slopes(n_heads)
    rows = []
    for head, (m, wrong) in enumerate(zip(slopes, naive, strict=True), start=1):
        exponent = f"{np.log2(m):g}"  # ASCII minus: this goes into KaTeX
        rows.append([head, f"$2^{{{exponent}}}$", f"{m:.5f}", f"{wrong:.5f}"])
    header = ["head", "slope (paper)", "value", "article's rule"]
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


def rope_decay_range(start: int, stop: int, d: int = 128, base: float = 10000.0):
    """Smallest and largest :func:`rope_decay_bound` over distances start..stop."""
    bound = rope_decay_bound(np.arange(start, stop + 1), d, base)  # (stop-start+1,)
    return float(bound.min()), float(bound.max())


def irope_layers(num_layers: int, no_rope_interval: int = 4) -> list[bool]:
    """Which layers rotate q and k under Llama 4's iRoPE (True = RoPE layer).

    Notes
    -----
    Every ``no_rope_interval``-th layer (1-based) uses no positional encoding
    at all; the others use RoPE. Meta calls the pattern interleaved RoPE.
    """
    num_layers = checked_int("num_layers", num_layers)
    no_rope_interval = checked_int("no_rope_interval", no_rope_interval)
    return [(layer + 1) % no_rope_interval != 0 for layer in range(num_layers)]
