"""Figures for Part III, page 1: T5's relative position buckets."""

import matplotlib.pyplot as plt
import numpy as np

from posenc_docs import relative_bias
from posenc_docs.figures.spec import FigureSpec
from posenc_docs.figures.style import data_colour, themed
from posenc_docs.pages import models


def buckets_by_distance(name: str, reach: int, *, theme: str):
    """Bucket of every signed distance key - query, encoder and decoder."""
    model = models.get(name)
    num_buckets = model.extra["relative_attention_num_buckets"]
    max_distance = model.extra["relative_attention_max_distance"]
    distance = np.arange(-reach, reach + 1)
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
        for k, (label, bidirectional) in enumerate(
            [("encoder (bidirectional)", True), ("decoder (causal)", False)]
        ):
            bucket = relative_bias.t5_relative_position_bucket(
                distance,
                bidirectional=bidirectional,
                num_buckets=num_buckets,
                max_distance=max_distance,
            )
            ax.step(distance, bucket, where="mid", color=data_colour(k),
                    linewidth=1.8, label=label)  # fmt: skip
        for x in (-max_distance, max_distance):
            ax.axvline(x, color=colors["muted"], linestyle="--", linewidth=1)
            # Each line's own label, on its inner side where no curve runs.
            ax.annotate(f"max_distance\n{x:+d}".replace("-", "\N{MINUS SIGN}"),
                        xy=(x, num_buckets / 4), xytext=(4 if x < 0 else -4, 0),
                        textcoords="offset points", ha="left" if x < 0 else "right",
                        va="center", fontsize=9, color=colors["muted"])  # fmt: skip
        ax.set_xlabel("relative position j − i (key minus query), tokens")
        ax.set_ylabel("bucket")
        ax.set_ylim(-1, num_buckets)
        ax.set_title(f"{name}: {num_buckets} buckets", fontsize=11)
        ax.grid(True, alpha=0.6)
        fig.legend(loc="outside lower center", ncols=2, fontsize=9)
    return fig


FIGURES = [
    FigureSpec(
        slug="part3_relative-buckets",
        draw=buckets_by_distance,
        params={"name": "T5 v1.1 base", "reach": 160},
        alt=(
            "Bucket index of T5 v1.1 base against the signed distance from -160 to "
            "160 tokens, a staircase. Encoder: distances 0 to 7 into the past get "
            "buckets 0 to 7, longer ones share ever wider buckets, and bucket 15 "
            "holds every distance from 91 on; keys ahead of the query use buckets "
            "17 to 31 the same way (distance 0 counts as the past, so bucket 16 is "
            "never used). Decoder: every key ahead is bucket 0, and the "
            "past uses all 32 buckets, exact up to 15 tokens, with bucket 31 from "
            "113 on. Dashed lines mark max_distance, plus and minus 128."
        ),
    ),
]
