"""Numbers behind Part III, chapter 5 (Windows, caches and sinks).

Gemma values are Hugging Face's defaults (transformers 5.24: ``Gemma2Config`` and
``Gemma3TextConfig`` with no arguments); ``tests/test_part3_windows.py`` reads them
from the installed transformers. Published checkpoints set their own: the one
given here, Gemma 3 4B, is from copies of the text config of
``google/gemma-3-4b-it`` (``num_hidden_layers`` 34, ``head_dim`` 256,
``sliding_window`` 1024, ``rope_theta`` 1e6, ``rope_local_base_freq`` 1e4,
``sliding_window_pattern`` 6); the hub file itself was not read here. Mistral 7B
v0.1's window is in ``posenc_docs.pages.models``; its depth is from the paper.
"""

from dataclasses import dataclass

from posenc_docs import windows
from posenc_docs.pages import part2_extension
from posenc_docs.pages.format import count, fixed, markdown_table

MISTRAL_LAYERS = 32  # Jiang et al. 2023, "Mistral 7B", Table 1 (n_layers)


@dataclass(frozen=True)
class LocalGlobal:
    """One Gemma-style stack: Hugging Face's defaults or a published config."""

    name: str
    num_layers: int
    pattern: int  # every pattern-th layer is global
    window: int  # sliding_window of the local layers
    head_dim: int
    local_base: float  # rope_theta of the local layers
    global_base: float  # rope_theta of the global layers
    global_factor: float = 1.0  # linear rope_scaling of the global layers


GEMMA2 = LocalGlobal("Gemma 2", 26, 2, 4096, 256, 10_000.0, 10_000.0)
GEMMA3 = LocalGlobal("Gemma 3", 26, 6, 4096, 256, 10_000.0, 1_000_000.0)
GEMMA3_4B = LocalGlobal("Gemma 3 4B", 34, 6, 1024, 256, 10_000.0, 1_000_000.0, 8.0)


def window_reach(num_layers: int, window: int) -> int:
    """Farthest offset information can travel through ``num_layers`` windowed layers.

    Each layer moves information at most ``window - 1`` positions back (a query
    sees itself and the ``window - 1`` keys before it), so k layers reach
    ``k (window - 1)``. Mistral's paper says k x window: its window is the
    ``window`` keys before the query, plus the query.
    """
    return num_layers * (window - 1)


def kv_cache_share(stack: LocalGlobal, length: int) -> float:
    """Cached keys of the stack at ``length`` tokens, as a share of all-global.

    Local layers keep at most ``window`` keys, global layers every key.
    """
    types = windows.layer_types(stack.num_layers, stack.pattern)
    kept = sum(min(length, stack.window) if t == "sliding_attention" else length
               for t in types)  # fmt: skip
    return kept / (stack.num_layers * length)


def layer_counts(stack: LocalGlobal) -> dict:
    """Number of local and of global layers."""
    types = windows.layer_types(stack.num_layers, stack.pattern)
    return {"local": types.count("sliding_attention"),
            "global": types.count("full_attention")}  # fmt: skip


def locals_per_global(stack: LocalGlobal) -> int:
    """Local layers in one period of the pattern, the period ending in its global."""
    return windows.layer_types(stack.pattern, stack.pattern).count("sliding_attention")


def cache_table(
    stacks=(GEMMA2, GEMMA3, GEMMA3_4B), lengths=(8192, 32768, 131072)
) -> str:
    """Markdown: local/global counts and KV-cache share at several lengths."""
    header = ["stack", "local : global"] + [count(n) for n in lengths]
    rows = []
    for stack in stacks:
        n = layer_counts(stack)
        shares = [f"{fixed(100 * kv_cache_share(stack, m), 0)}%" for m in lengths]
        rows.append([stack.name, f"{n['local']} : {n['global']}", *shares])
    return markdown_table(header, rows)


def local_turns(stack: LocalGlobal) -> part2_extension.TurnCensus:
    """Turn census of the local layers: offsets never exceed the window."""
    return part2_extension.turn_census(stack.head_dim, stack.local_base, stack.window)


def global_turns(stack: LocalGlobal, length: int) -> part2_extension.TurnCensus:
    """Turn census of the global layers over ``length`` positions, divided by their
    linear ``rope_scaling`` factor (position interpolation)."""
    return part2_extension.turn_census(
        stack.head_dim, stack.global_base, length / stack.global_factor
    )
