"""Figures for the Pitfalls page."""

import matplotlib.pyplot as plt
import numpy as np
import torch

from posenc_docs.figures.spec import FigureSpec
from posenc_docs.figures.style import themed
from posenc_docs.pages import pitfalls

VARIANT_LABELS = {
    "paper": "paper: exponent 2i/d, i = pair index",
    "dimension": "bug: exponent j/d, j = dimension index",
    "doubled": "bug: exponent 2j/d (the 2 counted twice)",
}


def exponent_bug_similarity(d: int, k: int, n_starts: int, *, theme: str):
    """``PE(p) . PE(p + k)`` against p for the paper's and two buggy exponents."""
    starts = np.arange(n_starts)
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
        for variant, label in VARIANT_LABELS.items():
            a = pitfalls.sinusoid_table(starts, d, variant)  # (n, d)
            b = pitfalls.sinusoid_table(starts + k, d, variant)
            ax.plot(starts, np.einsum("pd,pd->p", a, b), label=label, lw=1.6)
        ax.set_xlabel("start position p")
        ax.set_ylabel(f"PE(p) · PE(p + {k})")
        ax.set_title(f"Same offset, different starts (d = {d})")
        ax.grid(True, color=colors["grid"], lw=0.6)
        fig.legend(loc="outside lower center", ncols=1, fontsize=9)
    return fig


def bf16_angle_error(d: int, *, theme: str):
    """Largest cos error of RoPE angles against position, three precisions."""
    starts = 2 ** np.arange(4, 18)  # 16 .. 131,072
    lines = {
        "angles in bf16": (torch.bfloat16, None),
        "angles in float32, table stored in bf16": (torch.float32, torch.bfloat16),
        "angles in float32": (torch.float32, None),
    }
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
        for label, (dtype, cache) in lines.items():
            errors = [
                pitfalls.rope_cos_error(int(s), dtype, cache_dtype=cache, d=d)
                for s in starts
            ]
            ax.loglog(starts, np.maximum(errors, 1e-9), marker="o", ms=3, label=label)
        ax.set_xlabel("position (window of 64 starting here)")
        ax.set_ylabel("largest |cos error|")
        ax.set_title(f"RoPE cos table error vs float64 (d = {d}, base 10000)")
        ax.grid(True, which="major", color=colors["grid"], lw=0.6)
        fig.legend(loc="outside lower center", ncols=2, fontsize=9)
    return fig


FIGURES = [
    FigureSpec(
        slug="pitfalls-exponent-bug",
        draw=exponent_bug_similarity,
        params={"d": 64, "k": 1, "n_starts": 300},
        alt=(
            "Line chart of the dot product of the encodings of positions p and p + 1 "
            "for p from 0 to 299 at d = 64. With the paper's pair-index exponent the "
            "line is perfectly flat; with either dimension-index bug it wanders up and "
            "down as p changes, so the similarity no longer depends only on the offset."
        ),
    ),
    FigureSpec(
        slug="pitfalls-bf16-angles",
        draw=bf16_angle_error,
        params={"d": 128},
        alt=(
            "Log-log chart of the largest cosine error in a RoPE table against "
            "position, from 16 to 131,072. With angles computed in bf16 the cosine is "
            "already off by about 0.2 at position 16 and reaches the worst possible "
            "error, about 2, "
            "from a few hundred positions on; float32 angles grow slowly and stay "
            "below one hundredth at 131,072; a float32 table stored in bf16 sits near "
            "two thousandths until the float32 drift overtakes it."
        ),
    ),
]
