"""Small computations behind the demonstrations of Part I.

Each function measures one claim the pages make: that attention cannot see word
order (`permutation_gap`), that a far-away sinusoidal position looks like
nothing seen in training (`nearest_training_cosine`,
`phase_gap`), that the shift ``pos -> pos + k`` is not a
per-dimension map (`per_dimension_fit_residual`), how much of an input
vector an added position takes (`position_share`) and which RoPE pairs a
longer context turns further than training did (`angle_overshoot`).
"""

# --8<-- [start:setup]
import numpy as np

from posenc_docs._checks import checked_int
from posenc_docs.attention import self_attention
from posenc_docs.rope import inv_freq
from posenc_docs.sinusoidal import encode, table

# --8<-- [end:setup]


# --8<-- [start:toy_embeddings]
def toy_embeddings(words, d: int, seed: int = 0) -> dict:
    # --8<-- [end:toy_embeddings]
    """One random N(0, 1) vector of width ``d`` per distinct word, reproducibly.

    Parameters
    ----------
    words : iterable of str
        The vocabulary; repeats are ignored, order decides which draw a word gets.
    d : int
        Embedding width (> 0).
    seed : int
        Seed of the NumPy generator.

    Returns
    -------
    dict
        ``word -> numpy.ndarray`` of shape ``(d,)``, float64.
    """
    # --8<-- [start:toy_embeddings-body]
    d = checked_int("d", d)
    vocab = list(dict.fromkeys(words))
    rows = np.random.default_rng(seed).standard_normal((len(vocab), d))
    return dict(zip(vocab, rows, strict=True))


# --8<-- [end:toy_embeddings-body]


# --8<-- [start:random_head]
def random_head(d_model: int, d_head: int, seed: int = 0):
    # --8<-- [end:random_head]
    """Random query, key and value projections for one attention head.

    Returns
    -------
    tuple of numpy.ndarray
        ``(w_q, w_k, w_v)``, each ``(d_model, d_head)`` with entries
        N(0, 1/d_model), so projections keep roughly unit scale.
    """
    # --8<-- [start:random_head-body]
    rng = np.random.default_rng(seed)
    scale = 1 / np.sqrt(d_model)
    return tuple(scale * rng.standard_normal((d_model, d_head)) for _ in range(3))


# --8<-- [end:random_head-body]


# --8<-- [start:permutation_gap]
def permutation_gap(x, perm, head, *, added=None, rotate=None, bias=None, causal=False):
    # --8<-- [end:permutation_gap]
    r"""How far attention is from ignoring order: ``max |f(x[perm]) - f(x)[perm]|``.

    Parameters
    ----------
    x : numpy.ndarray, shape ``(T, d)``
        Token vectors in their original order.
    perm : sequence of int
        New order: row t of the shuffled input is ``x[perm[t]]``.
    head : tuple
        ``(w_q, w_k, w_v)``, e.g. from `random_head`.
    added, rotate, bias, causal
        Position signals tied to *slots*, not tokens: ``added`` (T, d) is
        added to the input, ``rotate``/``bias``/``causal`` as in
        `posenc_docs.attention.self_attention`.

    Returns
    -------
    float
        0 (up to rounding) when shuffling the tokens only shuffles the outputs.

    Notes
    -----
    With $f(x) = \mathrm{attn}(x + P)$: without $P$, mask or bias, attention
    is permutation equivariant, $f(\Pi x) = \Pi f(x)$, so the gap is 0.
    """
    # --8<-- [start:permutation_gap-body]
    x, perm = np.asarray(x, dtype=np.float64), np.asarray(perm)
    if sorted(perm.tolist()) != list(range(len(x))):
        raise ValueError(f"perm must be a permutation of 0..{len(x) - 1}, got {perm}")
    extra = 0.0 if added is None else added

    def f(tokens):  # (T, d) -> (T, d_head)
        return self_attention(
            tokens + extra, *head, rotate=rotate, bias=bias, causal=causal
        )

    return float(np.abs(f(x[perm]) - f(x)[perm]).max())


# --8<-- [end:permutation_gap-body]


def word_order_gap(
    first: str, second: str, *, d=16, seed=0, positions=False, causal=False
):
    """`permutation_gap` for two orderings of the same distinct words.

    Parameters
    ----------
    first, second : str
        Sentences with the same words in a different order ("the king is here",
        "here is the king"); words must not repeat.
    d, seed : int
        Width and seed of the toy embeddings and the random head.
    positions : bool
        Add the sinusoidal encoding of slots 0..T-1 to the input.
    causal : bool
        Use a causal mask.

    Returns
    -------
    float
        Largest difference between a word's output in ``second`` and in ``first``.
    """
    words, shuffled = first.split(), second.split()
    if len(set(words)) != len(words) or sorted(words) != sorted(shuffled):
        raise ValueError(
            f"second must reorder the distinct words of first; got {first!r} "
            f"and {second!r}"
        )
    vocab = toy_embeddings(words, d, seed)
    x = np.stack([vocab[w] for w in words])  # (T, d)
    perm = [words.index(w) for w in shuffled]
    added = table(len(words), d) if positions else None
    return permutation_gap(x, perm, random_head(d, d, seed), added=added, causal=causal)


# --8<-- [start:nearest_training_cosine]
def nearest_training_cosine(pos, train_len: int, d: int, base: float = 10000.0):
    # --8<-- [end:nearest_training_cosine]
    r"""Cosine similarity of ``PE(pos)`` to the most similar ``PE(p)``, p < train_len.

    Notes
    -----
    Every row has norm $\sqrt{d/2}$, so the cosine is
    $\max_{p < L} PE(pos) \cdot PE(p) / (d/2)$. Inside training the nearest
    row is a neighbor; far outside it can be far below 1.
    """
    # --8<-- [start:nearest_training_cosine-body]
    train_len = checked_int("train_len", train_len)
    seen = table(train_len, d, base)  # (L, d)
    return float((seen @ encode(pos, d, base)).max() / (d / 2))


# --8<-- [end:nearest_training_cosine-body]


# --8<-- [start:phase_gap]
def phase_gap(pos, train_len: int, d: int, base: float = 10000.0) -> np.ndarray:
    # --8<-- [end:phase_gap]
    r"""Per sin/cos pair: how far, in radians, ``pos`` turns it beyond training.

    Returns
    -------
    numpy.ndarray
        Shape ``(d/2,)``: 0 where the pair's angle at ``pos`` was also reached
        at some position ``0 .. train_len-1``, else its distance to the nearest
        angle reached (at most $\pi$).

    Notes
    -----
    Pair i turns by $\omega_i = base^{-2i/d}$ per position. Over positions
    $0..L-1$ it sweeps the arc $[0, a_i]$, $a_i = (L-1)\omega_i$; a pair with
    $a_i \ge 2\pi$ has seen every angle (gap 0). Otherwise, with
    $\phi = pos\,\omega_i \bmod 2\pi$, the gap is 0 if $\phi \le a_i$,
    else $\min(\phi - a_i,\ 2\pi - \phi)$.
    """
    # --8<-- [start:phase_gap-body]
    train_len = checked_int("train_len", train_len)
    omega = inv_freq(d, base)  # (d/2,) one frequency per pair
    arc = (train_len - 1) * omega
    phase = np.mod(pos * omega, 2 * np.pi)
    outside = np.minimum(np.maximum(phase - arc, 0.0), 2 * np.pi - phase)
    return np.where(arc >= 2 * np.pi, 0.0, outside)


# --8<-- [end:phase_gap-body]


# --8<-- [start:per_dimension_fit_residual]
def per_dimension_fit_residual(k, d: int, n_positions: int = 200, base=10000.0):
    # --8<-- [end:per_dimension_fit_residual]
    r"""Worst error of the best per-dimension map ``PE(p+k)_j ~ a_j PE(p)_j + b_j``.

    Notes
    -----
    For every dimension j, $a_j, b_j$ are fitted by least squares over positions
    $0..n-1$; the result is the largest remaining error. It is far from 0
    because $\sin(p\omega + k\omega)$ needs the *cosine* of the same pair:
    the shift is a 2x2 rotation per pair (``sinusoidal.shift_matrix``), not a
    scaling per dimension.
    """
    # --8<-- [start:per_dimension_fit_residual-body]
    now, later = table(n_positions, d, base), table(n_positions + k, d, base)[k:]
    worst = 0.0
    for j in range(d):
        design = np.stack([now[:, j], np.ones(n_positions)], axis=1)  # (n, 2)
        coef, *_ = np.linalg.lstsq(design, later[:, j], rcond=None)
        worst = max(worst, float(np.abs(design @ coef - later[:, j]).max()))
    return worst


# --8<-- [end:per_dimension_fit_residual-body]


# --8<-- [start:position_share]
def position_share(embedding_std: float) -> float:
    # --8<-- [end:position_share]
    r"""Share of the expected ``||e + PE||^2`` that the sinusoidal ``PE`` holds.

    Parameters
    ----------
    embedding_std : float
        Standard deviation of each entry of the token embedding e (mean 0,
        independent of the position).

    Notes
    -----
    $\|PE\|^2 = d/2$ exactly and $E\|e\|^2 = d\sigma^2$; the cross term has
    mean 0, so the share is $\frac{d/2}{d/2 + d\sigma^2} = \frac{1}{1+2\sigma^2}$
    for every width d.
    """
    # --8<-- [start:position_share-body]
    if not embedding_std >= 0:
        raise ValueError(f"embedding_std must be >= 0, got {embedding_std!r}")
    return 1 / (1 + 2 * embedding_std**2)


# --8<-- [end:position_share-body]


def angle_overshoot(scaled_inv_freq, inv_freq, train_len: int, new_len: int):
    r"""Per RoPE pair: the arc ``new_len`` positions sweep over the arc of training.

    Parameters
    ----------
    scaled_inv_freq, inv_freq : array_like, shape ``(d/2,)``
        Frequencies used at ``new_len`` and the ones used in training.
    train_len, new_len : int
        Trained and extended context lengths.

    Returns
    -------
    numpy.ndarray
        Shape ``(d/2,)``; 1.0 for pairs that turned fully in training (every
        angle seen). A value above 1 means angles the model never saw.

    Notes
    -----
    $r_i = \frac{L'\,\theta'_i}{L\,\theta_i}$ where $L\,\theta_i < 2\pi$, else 1.
    Arcs are measured by length ($L\theta_i$), not by the last position's angle
    $(L-1)\theta_i$ that `phase_gap` compares single angles with: so an unchanged
    pair gets $L'/L$ and position interpolation by $s = L'/L$ exactly 1, in the
    convention of $s$ itself (and of YaRN's turn count $r = L/\lambda$).
    """
    scaled = np.asarray(scaled_inv_freq, dtype=np.float64)
    trained = np.asarray(inv_freq, dtype=np.float64)
    if scaled.shape != trained.shape:
        raise ValueError(f"shapes differ: {scaled.shape} vs {trained.shape}")
    sweep = train_len * trained  # (d/2,) angle range seen in training
    return np.where(sweep < 2 * np.pi, new_len * scaled / sweep, 1.0)


def pairs_beyond(pos, train_len: int, d: int, radians: float = 0.5) -> int:
    """How many pairs `phase_gap` puts more than ``radians`` past training."""
    return int((phase_gap(pos, train_len, d) > radians).sum())


def ramp_wavelength(train_len: int) -> int:
    """Positions per turn past which a pair covers less than a quarter turn in
    ``train_len`` positions, so its sine only rises there: ``4 * train_len``."""
    return 4 * train_len


def pairs_overshooting(scaled_inv_freq, inv_freq, train_len: int, new_len: int):
    """How many pairs `angle_overshoot` takes past their trained angles."""
    over = angle_overshoot(scaled_inv_freq, inv_freq, train_len, new_len)  # (d/2,)
    return int((over > 1 + 1e-9).sum())  # 1e-9: rounding, not an overshoot


def encoding_norm(d: int) -> float:
    r"""$\|PE(pos)\|$, the same $\sqrt{d/2}$ at every position."""
    return float(np.linalg.norm(encode(0, d)))


def encoding_distance(k, d: int) -> float:
    r"""$\|PE(pos + k) - PE(pos)\|$, the same for every pos."""
    return float(np.linalg.norm(encode(k, d) - encode(0, d)))


def encoding_step(pos, d: int) -> np.ndarray:
    """``PE(pos + 1) - PE(pos)``: how far one step moves each dimension, ``(d,)``."""
    return encode(pos + 1, d) - encode(pos, d)
