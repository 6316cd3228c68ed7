"""Sliding-window attention, local/global layer patterns and KV-cache positions.

- `sliding_window_mask` (NumPy) and `sliding_window_mask_torch`: the
  causal mask of a layer that sees only the last `window` keys (Mistral 7B v0.1,
  the local layers of Gemma 2 and 3). `True` means "may attend", as in Hugging
  Face's `masking_utils`.
- `layer_types`: which layers are local (`"sliding_attention"`) and which
  global (`"full_attention"`) in a Gemma-style repeating pattern.
- `rolling_cache_positions` and `sink_cache_positions`: which tokens a
  KV cache holds while decoding, and at which RoPE positions they are attended:
  absolute positions (a plain rolling window) or positions re-assigned within the
  cache (StreamingLLM's attention sinks, Xiao et al., 2023).
"""

# --8<-- [start:setup]
import numpy as np
import torch

from posenc_docs._checks import checked_device, checked_int, checked_query_len

# --8<-- [end:setup]

LAYER_TYPES = ("sliding_attention", "full_attention")


def _check_mask_args(q_len, k_len, window) -> tuple[int, int, int]:
    q_len, k_len = checked_query_len(q_len, k_len)
    return q_len, k_len, checked_int("window", window)


# --8<-- [start:sliding_window_mask]
def sliding_window_mask(q_len: int, k_len: int, window: int) -> np.ndarray:
    # --8<-- [end:sliding_window_mask]
    r"""Causal sliding-window mask: which keys each query may attend to.

    Parameters
    ----------
    q_len : int
        Number of queries; they are the *last* `q_len` of the `k_len`
        positions (decoding with a cache: `q_len = 1`).
    k_len : int
        Number of keys.
    window : int
        Keys a query sees, itself included (`sliding_window` in HF configs).

    Returns
    -------
    numpy.ndarray
        Boolean, shape `(q_len, k_len)`; True where attention is allowed. For
        `attention.attention`, which takes an additive bias, pass
        `bias=np.where(mask, 0.0, -np.inf)`.

    Notes
    -----
    Query row r sits at position $i = k_{len} - q_{len} + r$; key j is visible iff
    $i - \text{window} < j \le i$. With `window >= k_len` it is the causal mask.
    """
    # --8<-- [start:sliding_window_mask-body]
    q_len, k_len, window = _check_mask_args(q_len, k_len, window)
    i = np.arange(k_len - q_len, k_len)[:, None]  # (q, 1) query positions
    j = np.arange(k_len)[None, :]  # (1, k) key positions
    return (j <= i) & (j > i - window)  # (q, k)


# --8<-- [end:sliding_window_mask-body]


def sliding_window_mask_torch(q_len: int, k_len: int, window: int, *, device=None):
    r"""Torch twin of [`sliding_window_mask`][] (a `torch.bool` tensor).

    Parameters
    ----------
    q_len : int
        Number of queries (the last `q_len` of the keys).
    k_len : int
        Number of keys.
    window : int
        Keys a query sees, itself included.
    device : str or torch.device, optional
        Where the mask is made; None means torch's default device.

    Returns
    -------
    torch.Tensor
        `torch.bool`, shape `(q_len, k_len)`. torch's
        `scaled_dot_product_attention` takes it as `attn_mask`;
        `attention.attention_torch` takes an additive bias:
        `bias=torch.zeros_like(mask, dtype=q.dtype).masked_fill(~mask, -torch.inf)`
        (on the mask's device).

    Notes
    -----
    Same rule: key j visible to the query at $i = k_{len} - q_{len} + r$ iff
    $i - \text{window} < j \le i$.
    """
    q_len, k_len, window = _check_mask_args(q_len, k_len, window)
    device = checked_device("device", device)
    i = torch.arange(k_len - q_len, k_len, device=device)[:, None]  # (q, 1)
    j = torch.arange(k_len, device=device)[None, :]  # (1, k)
    return (j <= i) & (j > i - window)  # (q, k)


# --8<-- [start:layer_types]
def layer_types(num_layers: int, pattern: int) -> list[str]:
    # --8<-- [end:layer_types]
    r"""Local and global layers of a Gemma-style stack.

    Parameters
    ----------
    num_layers : int
        Decoder layers.
    pattern : int
        Period of the pattern: every `pattern`-th layer is global (Gemma 2: 2,
        alternating; Gemma 3: 6, five local layers then one global).
        1 makes every layer global.

    Returns
    -------
    list of str
        `"sliding_attention"` or `"full_attention"` for each layer.

    Notes
    -----
    Layer l (from 0) is global iff $(l + 1) \bmod \text{pattern} = 0$, as in Hugging
    Face's `Gemma2Config` / `Gemma3TextConfig` when `layer_types` is unset.
    """
    # --8<-- [start:layer_types-body]
    num_layers = checked_int("num_layers", num_layers)
    pattern = checked_int("pattern", pattern)
    return [LAYER_TYPES[(layer + 1) % pattern == 0] for layer in range(num_layers)]


# --8<-- [end:layer_types-body]


# --8<-- [start:rolling_cache_positions]
def rolling_cache_positions(window: int, step: int):
    # --8<-- [end:rolling_cache_positions]
    r"""Tokens a rolling KV cache holds at a decoding step, and their positions.

    Parameters
    ----------
    window : int
        Keys attended, the current token included (`sliding_window`).
    step : int
        Index of the token being decoded (0 for the first).

    Returns
    -------
    tokens : numpy.ndarray
        The cached tokens, an integer array, the current token last.
    positions : numpy.ndarray
        The RoPE positions they are attended at: the absolute ones, since keys
        are rotated before caching.

    Notes
    -----
    tokens $\max(0, \text{step} - \text{window} + 1), \dots, \text{step}$ (what
    Hugging Face's `DynamicSlidingWindowLayer` returns), and `positions = tokens`: the
    query-key offsets stay below `window` while the positions grow.
    """
    # --8<-- [start:rolling_cache_positions-body]
    window = checked_int("window", window)
    step = checked_int("step", step, minimum=0)
    tokens = np.arange(max(0, step - window + 1), step + 1)  # (<= window,)
    return tokens, tokens.copy()


# --8<-- [end:rolling_cache_positions-body]


# --8<-- [start:sink_cache_positions]
def sink_cache_positions(n_sink: int, window: int, step: int):
    # --8<-- [end:sink_cache_positions]
    """StreamingLLM: the first tokens plus a rolling window, positions re-assigned.

    Parameters
    ----------
    n_sink : int
        Attention-sink tokens kept from the start (StreamingLLM uses 4).
    window : int
        Most recent tokens kept, the current token included.
    step : int
        Index of the token being decoded.

    Returns
    -------
    tokens : numpy.ndarray
        The cached tokens, an integer array: sinks first, current token last.
    positions : numpy.ndarray
        The RoPE positions they are attended at: `0, 1, ..., len(tokens) - 1`.

    Notes
    -----
    Once `step >= n_sink + window`, tokens are `0..n_sink-1` and
    `step-window+1..step`; positions count places *in the cache*, so no
    offset exceeds `n_sink + window - 1` however long the stream. Keys are
    cached without rotation and rotated at their cache position (paper, 3.2).
    """
    # --8<-- [start:sink_cache_positions-body]
    n_sink = checked_int("n_sink", n_sink, minimum=0)
    window, step = checked_int("window", window), checked_int("step", step, 0)
    recent = np.arange(max(n_sink, step - window + 1), step + 1)
    tokens = np.concatenate([np.arange(min(n_sink, step + 1)), recent])
    return tokens, np.arange(len(tokens))


# --8<-- [end:sink_cache_positions-body]
