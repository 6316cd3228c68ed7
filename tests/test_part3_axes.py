"""Tests for posenc_docs.pages.part3_axes and the chapter's examples."""

import math
import re
import runpy
from pathlib import Path

import numpy as np
import pytest

from posenc_docs.pages import part3_axes

EXAMPLES = (
    Path(__file__).resolve().parents[1] / "posenc_docs" / "examples" / "part3_axes"
)


def test_constants_are_hugging_face_defaults():
    qwen2_vl = pytest.importorskip("transformers.models.qwen2_vl")
    from transformers.models.qwen2_vl import modeling_qwen2_vl
    from transformers.models.qwen3_vl import configuration_qwen3_vl, modeling_qwen3_vl

    text = qwen2_vl.configuration_qwen2_vl.Qwen2VLTextConfig()
    assert text.rope_parameters["rope_theta"] == part3_axes.QWEN2_VL_THETA
    assert "mrope_section" not in text.rope_parameters  # so the module default holds
    two = modeling_qwen2_vl.Qwen2VLRotaryEmbedding(text)
    assert tuple(two.mrope_section) == part3_axes.QWEN2_VL_SECTION
    text3 = configuration_qwen3_vl.Qwen3VLTextConfig()
    assert text3.rope_parameters["rope_theta"] == part3_axes.QWEN3_VL_THETA
    three = modeling_qwen3_vl.Qwen3VLTextRotaryEmbedding(text3)
    assert tuple(three.mrope_section) == part3_axes.QWEN3_VL_SECTION
    assert part3_axes.HEAD_DIM == 128


def test_consecutive_sections_give_width_the_slowest_pairs():
    base, d = 1e6, 128
    temporal, height, width = part3_axes.axis_pairs((16, 24, 24), base)
    assert (temporal.first_pair, height.first_pair, width.first_pair) == (0, 16, 40)
    # pair 40 turns at base^(-80/128): wavelength 2 pi 10^3.75
    assert width.fastest_wavelength == pytest.approx(2 * math.pi * 10**3.75)
    assert width.slowest_wavelength == pytest.approx(2 * math.pi * base ** (126 / d))
    assert width.fastest_degrees == pytest.approx(math.degrees(32 * 10**-3.75))
    assert width.fastest_degrees < 1 < height.fastest_degrees


def test_interleaving_gives_every_axis_a_fast_pair():
    rows = part3_axes.axis_pairs((24, 20, 20), 1e6, interleaved=True)
    assert [r.first_pair for r in rows] == [0, 1, 2]
    assert [r.n_pairs for r in rows] == [24, 20, 20]
    # pair 2 (width): wavelength 2 pi base^(4/128)
    assert rows[2].fastest_wavelength == pytest.approx(2 * math.pi * 1e6 ** (4 / 128))
    table = part3_axes.axis_table((24, 20, 20), 1e6, interleaved=True)
    assert table.count("\n") == 4 and "| width | 20 |" in table


def run(script, capsys):
    runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    return capsys.readouterr().out


def test_flattened_grid_shows_the_wrap_and_the_vertical_neighbours(capsys):
    out = run("flattened_grid.py", capsys)
    rows = {
        line[:5]: [float(v) for v in line[17:].split()] for line in out.splitlines()[1:]
    }
    assert len(rows) == 3  # right, wrap, below (two "below" rows, equal)
    right, wrap = rows["right"], rows["wrap "]
    assert right[0] == wrap[0]  # 1-D: wrap-around looks like a right neighbour
    assert right[1] != pytest.approx(wrap[1])  # 2-D: it does not
    below = [line for line in out.splitlines() if line.startswith("below")]
    assert below[0][17:] == below[1][17:]  # 2-D (and 1-D): same offset, same score


def test_text_image_example_prints_positions_and_zero_difference(capsys):
    out = run("text_image_positions.py", capsys)
    assert "w [0, 1, 2, 3, 4, 2, 3, 4, 5, 6]" in out
    diff = float(re.search(r"max \|diff\| = (\S+)", out).group(1))
    assert diff < 1e-12
    assert np.isfinite(diff)
