"""Numbers behind Part III, chapter 6 (More than one axis): pairs per position axis.

The M-RoPE sections and bases are Hugging Face's defaults (transformers 5.24:
``Qwen2VLRotaryEmbedding`` falls back to ``mrope_section`` (16, 24, 24),
``Qwen3VLTextRotaryEmbedding`` to (24, 20, 20) interleaved, and
``Qwen2VLTextConfig`` to ``rope_theta`` 1e6, ``Qwen3VLTextConfig`` to 5e5);
``tests/test_part3_axes.py`` reads them from the installed transformers, so a change
there fails the suite.
"""

import math
from dataclasses import dataclass

import numpy as np

from posenc_docs import mrope, rope, scaling
from posenc_docs.pages.format import count, fixed, markdown_table

QWEN2_VL_SECTION = (16, 24, 24)  # HF default, consecutive sections
QWEN3_VL_SECTION = (24, 20, 20)  # HF default, interleaved
QWEN2_VL_THETA = 1e6  # HF Qwen2VLTextConfig default rope_theta
QWEN3_VL_THETA = 5e5  # HF Qwen3VLTextConfig default rope_theta
N_PAIRS = sum(QWEN2_VL_SECTION)  # 64 rotary pairs
HEAD_DIM = 2 * N_PAIRS  # 128


@dataclass(frozen=True)
class AxisPairs:
    """The rotary pairs one position axis owns, and how fast they turn."""

    axis: str
    n_pairs: int
    first_pair: int
    fastest_wavelength: float  # tokens (positions) per full turn
    slowest_wavelength: float
    fastest_degrees: float  # angle an ``offset`` along this axis gives its fastest pair


def axis_pairs(section, base, *, interleaved=False, offset=32) -> list[AxisPairs]:
    """For each axis: its pairs, their wavelengths, the angle of an offset."""
    axes = mrope.mrope_pair_axes(section, interleaved=interleaved)
    theta = rope.inv_freq(2 * len(axes), base)  # (d/2,)
    wavelength = scaling.wavelengths(theta)
    rows = []
    for k, name in enumerate(mrope.AXES):
        own = np.flatnonzero(axes == k)
        rows.append(
            AxisPairs(
                axis=name,
                n_pairs=len(own),
                first_pair=int(own[0]),
                fastest_wavelength=float(wavelength[own].min()),
                slowest_wavelength=float(wavelength[own].max()),
                fastest_degrees=math.degrees(offset * theta[own].max()),
            )
        )
    return rows


def axis_table(section, base, *, interleaved=False, offset=32) -> str:
    """Markdown table of ``axis_pairs`` for a page."""
    header = ["axis", "pairs", "λ fastest", "λ slowest", f"{offset} steps turn"]
    rows = [
        [
            a.axis,
            a.n_pairs,
            fixed(a.fastest_wavelength, 1),
            count(a.slowest_wavelength),
            f"{fixed(a.fastest_degrees, 1)}°",
        ]
        for a in axis_pairs(section, base, interleaved=interleaved, offset=offset)
    ]
    return markdown_table(header, rows)
