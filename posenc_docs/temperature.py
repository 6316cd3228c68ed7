"""Position-dependent attention temperature, and which layers skip RoPE.

Long inputs flatten attention: with n keys to share it, the softmax spreads out as
n grows. Three published rules sharpen it again by scaling the logits with a
factor that depends on position (or on the context length):

- `llama4_attention_scale`: Llama 4's `attn_temperature_tuning`, applied
  to the queries of its NoPE layers, `1 + attn_scale ln(1 + floor((p+1)/F))`.
- `qwen_logn_scale`: Qwen(-7B)'s `use_logn_attn`, `max(1, log_L(p+1))`.
- `yarn_logit_scale`: YaRN's temperature, `g(s)^2` with
  `g(s) = 0.1 ln s + 1` (`posenc_docs.scaling.yarn_mscale`), here with the
  factor s set to the length a query has reached, `s = max(1, (p+1)/L)`.

Each returns the factor the attention *logits* of a query at position p are
multiplied by (p counted from 0). `nope_layers` gives the layers of a
Llama 4 stack that use no rotary embedding at all (iRoPE).

NumPy functions are the float64 reference; `_torch` twins compute in float32
(float64 for float64 positions).
"""

import numpy as np
import torch

from posenc_docs._checks import (
    checked_array,
    checked_int,
    checked_int_list,
    checked_positions,
    checked_real,
    work_dtype,
)


def _work(positions: torch.Tensor) -> torch.Tensor:
    """Positions as float64 if given so, else float32."""
    return positions.to(work_dtype(positions))


# --8<-- [start:llama4_attention_scale]
def llama4_attention_scale(positions, *, floor_scale=8192, attn_scale=0.1):
    # --8<-- [end:llama4_attention_scale]
    r"""Llama 4's attention-temperature factor for queries on its NoPE layers.

    Parameters
    ----------
    positions : array
        Query positions p, from 0 (any shape).
    floor_scale : int, default 8192
        `floor_scale` in the config: the step length F, in tokens.
    attn_scale : float, default 0.1
        `attn_scale` in the config: the strength a.

    Returns
    -------
    numpy.ndarray or numpy.float64
        Float64, positions' shape (a NumPy float for one position); 1 for
        p + 1 < F.

    Notes
    -----
    $\tau(p) = 1 + a \ln(1 + \lfloor (p + 1) / F \rfloor)$, a staircase that steps every
    F tokens. Hugging Face's `Llama4TextAttention` multiplies the NoPE layers'
    queries by it (after their projection; the keys are not scaled).
    """
    # --8<-- [start:llama4_attention_scale-body]
    p = checked_array("positions", positions, min_ndim=0, floating=False)
    F = checked_int("floor_scale", floor_scale)
    a = checked_real("attn_scale", attn_scale, ge=0)
    return 1.0 + a * np.log1p(np.floor((p.astype(np.float64) + 1.0) / F))


# --8<-- [end:llama4_attention_scale-body]


def llama4_attention_scale_torch(positions, *, floor_scale=8192, attn_scale=0.1):
    r"""Torch twin of [`llama4_attention_scale`][] (same arguments, a tensor in).

    Returns
    -------
    torch.Tensor
        Float32 (float64 for float64 positions), of the positions' shape and device.

    Notes
    -----
    $\tau(p) = 1 + a \ln(1 + \lfloor (p + 1) / F \rfloor)$, with F = `floor_scale`
    and a = `attn_scale`, as in `llama4_attention_scale`.
    """
    p = _work(checked_positions("positions", positions, min_ndim=0))
    F = checked_int("floor_scale", floor_scale)
    a = checked_real("attn_scale", attn_scale, ge=0)
    return 1.0 + a * torch.log1p(torch.floor((p + 1.0) / F))


# --8<-- [start:qwen_logn_scale]
def qwen_logn_scale(positions, *, seq_length=8192):
    # --8<-- [end:qwen_logn_scale]
    r"""Qwen's log-n attention factor (`use_logn_attn`) for queries.

    Parameters
    ----------
    positions : array
        Query positions p, from 0.
    seq_length : int, default 8192
        `seq_length` in the config: the training length L >= 2 (Qwen-7B: 8192).

    Returns
    -------
    numpy.ndarray or numpy.float64
        Float64, positions' shape; 1 up to p + 1 = L.

    Notes
    -----
    $\tau(p) = \log_L(p + 1) = \ln(p + 1) / \ln L$ if $p + 1 > L$, else 1: the
    `logn_list` of Qwen's `modeling_qwen.py`, which multiplies the queries
    (after RoPE) at inference only, and only once there are more than L keys.
    """
    # --8<-- [start:qwen_logn_scale-body]
    p = checked_array("positions", positions, min_ndim=0, floating=False)
    L = checked_int("seq_length", seq_length, minimum=2)
    n = p.astype(np.float64) + 1.0  # keys a query at p attends to
    return np.where(n > L, np.log(np.maximum(n, 1.0)) / np.log(L), 1.0)[()]


# --8<-- [end:qwen_logn_scale-body]


def qwen_logn_scale_torch(positions, *, seq_length=8192):
    r"""Torch twin of [`qwen_logn_scale`][] (same arguments, a tensor in).

    Returns
    -------
    torch.Tensor
        Float32 (float64 for float64 positions), of the positions' shape and device.

    Notes
    -----
    $\tau(p) = \ln(p + 1) / \ln L$ if $p + 1 > L$, else 1, with L = `seq_length`,
    as in `qwen_logn_scale`.
    """
    p = _work(checked_positions("positions", positions, min_ndim=0))
    L = checked_int("seq_length", seq_length, minimum=2)
    n = p + 1.0
    logn = torch.log(n.clamp(min=1.0)) / np.log(L)
    return torch.where(n > L, logn, torch.ones_like(n))


# --8<-- [start:yarn_logit_scale]
def yarn_logit_scale(positions, *, original_max_position_embeddings, mscale=1.0):
    # --8<-- [end:yarn_logit_scale]
    r"""YaRN's logit factor if its scale s were set to the length reached at p.

    Parameters
    ----------
    positions : array
        Query positions p, from 0.
    original_max_position_embeddings : int
        The training length L.
    mscale : float, default 1.0
        YaRN's mscale, >= 0 (1 unless a config sets it; 0: no temperature).

    Returns
    -------
    numpy.ndarray or numpy.float64
        Float64, positions' shape; 1 up to p + 1 = L.

    Notes
    -----
    $s = \max(1, (p + 1)/L)$ and $\tau = g(s)^2$, $g(s) = 0.1\, \mu \ln s + 1$ with
    $\mu$ = `mscale` (`scaling.yarn_mscale`, HF's `get_mscale`). YaRN multiplies
    cos and sin by g, so q and k both grow by g and the logits by $g^2$. A real
    YaRN config fixes s once: every position gets the factor of that s.
    """
    # --8<-- [start:yarn_logit_scale-body]
    p = checked_array("positions", positions, min_ndim=0, floating=False)
    L = checked_int(
        "original_max_position_embeddings", original_max_position_embeddings
    )
    mscale = checked_real("mscale", mscale, ge=0)
    s = np.maximum(1.0, (p.astype(np.float64) + 1.0) / L)  # positions' shape
    return (0.1 * mscale * np.log(s) + 1.0) ** 2  # g(s)^2, g as scaling.yarn_mscale


# --8<-- [end:yarn_logit_scale-body]


def yarn_logit_scale_torch(positions, *, original_max_position_embeddings, mscale=1.0):
    r"""Torch twin of [`yarn_logit_scale`][] (same arguments, a tensor in).

    Returns
    -------
    torch.Tensor
        Float32 (float64 for float64 positions), of the positions' shape and device.

    Notes
    -----
    $(0.1\, \mu \ln s + 1)^2$ with $s = \max(1, (p + 1)/L)$ at position p.
    """
    p = _work(checked_positions("positions", positions, min_ndim=0))
    L = checked_int(
        "original_max_position_embeddings", original_max_position_embeddings
    )
    mscale = checked_real("mscale", mscale, ge=0)
    s = ((p + 1.0) / L).clamp(min=1.0)
    return (0.1 * mscale * torch.log(s) + 1.0) ** 2


# --8<-- [start:nope_layers]
def nope_layers(num_layers, *, no_rope_layers=None, no_rope_layer_interval=4):
    # --8<-- [end:nope_layers]
    r"""Layers of a Llama 4 stack that apply no rotary embedding (iRoPE).

    Parameters
    ----------
    num_layers : int
        `num_hidden_layers`.
    no_rope_layers : sequence of 0/1, optional
        The config field, one flag per layer. Despite the name, *1 means the
        layer uses RoPE* and 0 that it is a NoPE layer. None or empty: default.
    no_rope_layer_interval : int, default 4
        Default pattern: every `no_rope_layer_interval`-th layer is NoPE.

    Returns
    -------
    list of int
        Indices (from 0) of the NoPE layers.

    Notes
    -----
    Default: layer l uses RoPE iff $(l + 1) \bmod \text{interval} \ne 0$, so with 4 the
    NoPE layers are 3, 7, 11, ... (Hugging Face's `Llama4TextConfig`).
    """
    # --8<-- [start:nope_layers-body]
    num_layers = checked_int("num_layers", num_layers)
    interval = checked_int("no_rope_layer_interval", no_rope_layer_interval)
    given = [] if no_rope_layers is None else no_rope_layers
    flags = checked_int_list("no_rope_layers", given, 0)
    if not flags:  # None or empty: the default pattern (HF: `if no_rope_layers`)
        flags = [int((i + 1) % interval != 0) for i in range(num_layers)]
    if len(flags) != num_layers or max(flags) > 1:
        raise ValueError(
            f"no_rope_layers must hold {num_layers} flags 0/1, got {flags}"
        )
    return [layer for layer in range(num_layers) if not flags[layer]]


# --8<-- [end:nope_layers-body]
