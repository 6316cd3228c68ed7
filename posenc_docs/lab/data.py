"""The lab's synthetic language: a seeded order-k Markov source (NumPy only).

Token t is drawn from ``P(x_t | x_{t-k} .. x_{t-1})``, a table with one row of
``vocab`` probabilities per context. Only the last k tokens matter, and their
order matters, so a model must know which token came *just* before. Because the
table is known, the best achievable loss is known exactly.
"""

# --8<-- [start:setup]
import numpy as np

# --8<-- [end:setup]


# --8<-- [start:transition_table]
def transition_table(vocab: int, order: int, concentration: float, seed: int):
    """Random next-token table, shape ``(vocab,) * order + (vocab,)``.

    Notes
    -----
    Each row ``P(. | context)`` is an independent Dirichlet draw with every
    parameter equal to ``concentration``; small values (< 1) give peaked rows,
    i.e. a language in which the last ``order`` tokens predict the next well.
    """
    if vocab < 2 or order < 1 or concentration <= 0:
        raise ValueError(
            f"need vocab >= 2, order >= 1, concentration > 0; got vocab={vocab}, "
            f"order={order}, concentration={concentration}"
        )
    rng = np.random.default_rng(seed)
    rows = rng.dirichlet(np.full(vocab, concentration), size=vocab**order)
    return rows.reshape((vocab,) * order + (vocab,))  # (V, ..., V, V)


# --8<-- [end:transition_table]


# --8<-- [start:stationary]
def _context_chain(table: np.ndarray) -> np.ndarray:
    """Transition matrix between contexts, ``(V**k, V**k)``: (a.., b) -> (.., b, c)."""
    vocab, order = table.shape[-1], table.ndim - 1
    rows = table.reshape(vocab**order, vocab)  # (contexts, next token)
    chain = np.zeros((vocab**order, vocab**order))
    shifted = (np.arange(vocab**order) * vocab) % vocab**order  # drop oldest token
    for nxt in range(vocab):
        chain[np.arange(vocab**order), shifted + nxt] = rows[:, nxt]
    return chain


def stationary(table: np.ndarray, tol: float = 1e-15) -> np.ndarray:
    """Stationary distribution of the last-k-tokens context, shape ``(V,) * k``.

    Notes
    -----
    The context ``s_t = (x_{t-k+1} .. x_t)`` is a Markov chain with matrix
    ``Q``; ``pi`` solves ``pi Q = pi``, ``sum(pi) = 1``. Dirichlet rows are
    positive, so every context reaches every other in k steps, ``pi`` is
    unique, and applying ``Q`` to any start converges to it (power iteration).
    """
    chain = _context_chain(table)
    pi = np.full(len(chain), 1 / len(chain))  # (V**k,) start: uniform
    for _ in range(100_000):
        pi, previous = pi @ chain, pi
        if np.abs(pi - previous).max() < tol:
            return (pi / pi.sum()).reshape(table.shape[:-1])
    raise ValueError("the context chain did not converge; is the table periodic?")


# --8<-- [end:stationary]


# --8<-- [start:entropy_rate]
def entropy_rate(table: np.ndarray) -> float:
    """Loss of the best possible model with k or more tokens of context, in nats.

    Notes
    -----
    The conditional entropy of the stationary process,
    ``H = -sum_s pi(s) sum_c P(c | s) ln P(c | s)`` over contexts s and next
    tokens c, and ``exp(H)`` is the perplexity floor: no model can do better on
    average.
    """
    pi = stationary(table)[..., None]  # (V, ..., V, 1)
    plogp = np.where(table > 0, table * np.log(np.where(table > 0, table, 1)), 0.0)
    return float(-(pi * plogp).sum())


# --8<-- [end:entropy_rate]


# --8<-- [start:window_floor]
def _entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def context_entropy(table: np.ndarray, c: int) -> float:
    """Best loss (nats) of a prediction that has read the ``c`` tokens before it.

    Notes
    -----
    ``H(X_c | X_0 .. X_{c-1})`` from the stationary marginals: c = 0 predicts
    from token frequencies alone; from c = k on it is the entropy rate ``H``.
    """
    if c >= table.ndim - 1:
        return entropy_rate(table)
    pi = stationary(table)  # (V,) * k, the last k tokens

    def joint(n):  # H(X_0 .. X_{n-1}): the marginal of n consecutive tokens
        return _entropy(pi.sum(axis=tuple(range(pi.ndim - n)))) if n else 0.0

    return joint(c + 1) - joint(c)


def window_floor(table: np.ndarray, length: int) -> float:
    """Best mean loss (nats) of ``length`` next-token predictions from scratch.

    Notes
    -----
    Prediction t of a window (t = 0 .. length-1) has read t + 1 tokens. With
    c < k tokens read, the best loss is ``H(X_c | X_0 .. X_{c-1})``
    (`context_entropy`); with c >= k it is the entropy rate ``H``. So the
    window mean is a little above ``H`` and falls towards it as length grows.
    """
    if length < 1:
        raise ValueError(f"length must be >= 1, got {length}")
    short = [
        context_entropy(table, c) for c in range(1, min(table.ndim - 1, length + 1))
    ]
    return (sum(short) + (length - len(short)) * entropy_rate(table)) / length


# --8<-- [end:window_floor]


# --8<-- [start:sample]
def sample(table: np.ndarray, n_seq: int, length: int, seed: int) -> np.ndarray:
    """``n_seq`` independent stationary sequences of ``length`` tokens (int64).

    Notes
    -----
    The first k tokens come from the stationary distribution, every later one
    from the table given the k before it, so any window of any sequence is
    distributed like any other: every position is equally hard after the first k.
    """
    rng = np.random.default_rng(seed)
    vocab, order = table.shape[-1], table.ndim - 1
    pi = stationary(table).reshape(-1)
    start = rng.choice(pi.size, size=n_seq, p=pi / pi.sum())  # (n_seq,)
    out = np.empty((n_seq, max(length, order)), dtype=np.int64)
    out[:, :order] = np.stack(np.unravel_index(start, (vocab,) * order), axis=1)
    cdf = np.cumsum(table.reshape(-1, vocab), axis=1)  # (contexts, V)
    uniform = rng.random((n_seq, length))  # (n_seq, length)
    for t in range(order, length):
        ctx = np.ravel_multi_index(tuple(out[:, t - order : t].T), table.shape[:-1])
        out[:, t] = (uniform[:, t, None] > cdf[ctx]).sum(axis=1)
    return np.minimum(out[:, :length], vocab - 1)  # guard cdf[-1] < 1 rounding


# --8<-- [end:sample]


# --8<-- [start:passkey_sequences]
def passkey_sequences(table: np.ndarray, n_seq: int, length: int, depth, config, seed):
    """``n_seq`` filler sequences of ``length + 1`` tokens with a key planted in each.

    ``depth`` is where the key sits, from 0 (the first token) to 1 (just before
    the question); None draws it uniformly for every sequence. ``config`` gives
    K (``key_len``), D (``key_vocab``) and V (``vocab``); ``seed`` is anything
    ``numpy.random.default_rng`` takes.

    Notes
    -----
    Tokens ``0 .. V-1`` are the Markov filler, ``V .. V+D-1`` the D digits and
    ``V+D`` the marker. A sequence is filler with ``marker k_1 .. k_K`` written
    over it at position ``p = round(depth * span)``, ``span = length - 2K - 1``,
    and ends with the question ``marker k_1 .. k_K``: the model reads the first
    ``length`` tokens, and its predictions at the last K of them must be the
    key. The K digits are distinct, so each one occurs once before the question.
    """
    rng = np.random.default_rng(seed)
    K, V = config.key_len, config.vocab
    marker, span = V + config.key_vocab, length - 2 * K - 1
    filler_seed = int(rng.integers(2**32))
    out = sample(table, n_seq, length + 1, seed=filler_seed)  # (n_seq, length + 1)
    keys = V + np.argsort(rng.random((n_seq, config.key_vocab)), axis=1)[:, :K]
    if depth is None:
        where = rng.integers(0, span + 1, size=n_seq)  # (n_seq,)
    else:
        where = np.full(n_seq, round(depth * span))
    rows = np.arange(n_seq)[:, None]  # (n_seq, 1)
    out[rows, where[:, None] + np.arange(K + 1)] = np.c_[np.full(n_seq, marker), keys]
    out[:, -K - 1], out[:, -K:] = marker, keys
    return out


def passkey_distance(length: int, depth: float, key_len: int) -> int:
    """Tokens from the planted marker to the question's marker."""
    return length - key_len - round(depth * (length - 2 * key_len - 1))


# --8<-- [end:passkey_sequences]
