"""Figures for Part III, chapter 5: masks of windows and sinks, local/global layers."""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from posenc_docs import windows
from posenc_docs.figures.spec import DATA_COLOURS, FigureSpec
from posenc_docs.figures.style import SEE_THROUGH, data_colour, themed
from posenc_docs.pages import part3_windows

# Rasters, which the dark variant cannot recolour, take one blue in both themes
# (the dark theme's first data colour is sky blue: style.data_colour).
RASTER_BLUE = DATA_COLOURS["light"][0]


def _sink_mask(n_tokens: int, n_sink: int, window: int) -> np.ndarray:
    """(T, T) boolean: row t marks the tokens a sink cache holds at step t."""
    mask = np.zeros((n_tokens, n_tokens), dtype=bool)
    for step in range(n_tokens):
        tokens, _ = windows.sink_cache_positions(n_sink, window, step)
        mask[step, tokens] = True
    return mask


def masks(n_tokens: int, window: int, n_sink: int, *, theme: str):
    """Causal, sliding-window and sink-cache masks side by side."""
    panels = {
        "causal": windows.sliding_window_mask(n_tokens, n_tokens, n_tokens),
        f"sliding window {window}": windows.sliding_window_mask(
            n_tokens, n_tokens, window
        ),
        f"{n_sink} sinks + window {window}": _sink_mask(n_tokens, n_sink, window),
    }
    with themed(theme) as colors:
        cmap = ListedColormap([SEE_THROUGH, RASTER_BLUE])  # 0: the grid shows
        fig, axes = plt.subplots(1, 3, figsize=(5.6, 2.5), layout="constrained")
        for ax, (title, mask) in zip(axes, panels.items(), strict=True):
            ax.set_facecolor(colors["grid"])
            ax.imshow(mask, cmap=cmap, vmin=0, vmax=1)
            ax.set_title(title, fontsize=10)
            ax.set_xticks([0, n_tokens - 1])
            ax.set_yticks([0, n_tokens - 1])
            ax.set_xlabel("key")
        axes[0].set_ylabel("query")
    return fig


def layer_mix(stacks: tuple, *, theme: str):
    """One strip per (name, num_layers, pattern): local and global layers in order."""
    with themed(theme) as colors:
        fig, axes = plt.subplots(len(stacks), 1, figsize=(5, 0.8 + 0.7 * len(stacks)),
                                 layout="constrained")  # fmt: skip
        for ax, (name, num_layers, pattern) in zip(
            np.atleast_1d(axes), stacks, strict=True
        ):
            types = windows.layer_types(num_layers, pattern)
            is_global = np.array([t == "full_attention" for t in types])
            local_global = ListedColormap([RASTER_BLUE, data_colour(5)])
            ax.imshow(is_global[None, :], aspect="auto", vmin=0, vmax=1,
                      cmap=local_global)  # fmt: skip
            ax.set_yticks([0], [name])
            ax.set_xticks(range(0, num_layers, 5))
            ax.tick_params(length=0)
            for spine in ax.spines.values():
                spine.set_visible(False)
        np.atleast_1d(axes)[-1].set_xlabel(
            "layer index (blue: local, sliding window; red-orange: global)",
            color=colors["fg"],
        )
    return fig


FIGURES = [
    FigureSpec(
        slug="part3_windows-masks",
        draw=masks,
        params={"n_tokens": 16, "window": 4, "n_sink": 2},
        alt=(
            "Three 16 by 16 attention masks, queries down and keys across, allowed "
            "entries in blue. Causal: the whole lower triangle. Sliding window 4: a "
            "band four keys wide along the diagonal. Two sinks plus window 4: the "
            "same band plus the first two key columns in every row after row 0, "
            "which has only key 0."
        ),
    ),
    FigureSpec(
        slug="part3_windows-layer-mix",
        draw=layer_mix,
        params={
            "stacks": tuple(
                (stack.name, stack.num_layers, stack.pattern)
                for stack in (part3_windows.GEMMA2, part3_windows.GEMMA3)
            )
        },
        alt=(
            "Layer types of two 26-layer stacks. Gemma 2 alternates local and "
            "global layers, starting with a local one. Gemma 3 has five local "
            "layers, then one global layer, repeated, so only layers 5, 11, 17 and "
            "23 are global."
        ),
    ),
]
