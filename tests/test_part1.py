"""The claims Part I makes about the source article, recomputed from first principles.

Golden values are either the article's printed numbers (to check where it is right)
or computed here from the paper's formulas with scalar math.
"""

import math
import re
import runpy
from pathlib import Path

import numpy as np
import pytest
import torch

from posenc_docs import alibi, sinusoidal
from posenc_docs.figures import BY_SLUG, part1

EXAMPLES = Path(__file__).resolve().parents[1] / "posenc_docs" / "examples"


def sinusoid(pos: int, dim: int, d: int) -> float:
    angle = pos / 10000.0 ** (2 * (dim // 2) / d)
    return math.sin(angle) if dim % 2 == 0 else math.cos(angle)


def dot(a: int, b: int, d: int) -> float:
    return sum(sinusoid(a, j, d) * sinusoid(b, j, d) for j in range(d))


@pytest.mark.parametrize(
    "printed, places, value",
    [
        (0.8415, 4, lambda: sinusoid(1, 0, 8)),
        (0.9093, 4, lambda: sinusoid(2, 0, 8)),
        (0.5403, 4, lambda: sinusoid(1, 1, 8)),
        (-0.4161, 4, lambda: sinusoid(2, 1, 8)),
        (3.5353, 4, lambda: dot(7, 8, 8)),
        (3.5353, 4, lambda: dot(30, 31, 8)),
        (2.5637, 4, lambda: dot(7, 9, 8)),
        (2.5637, 4, lambda: dot(30, 32, 8)),
        (4.0, 4, lambda: dot(7, 7, 8)),
        (6283, 0, lambda: 2 * math.pi * 1000),
    ],
)
def test_the_articles_d8_numbers_are_right(printed, places, value):
    assert round(value(), places) == printed


def test_the_slowest_clock_at_d512_is_not_2pi_times_10000():
    longest = sinusoidal.wavelengths(512)[-1]
    assert longest == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert 60_000 < longest < 2 * math.pi * 10000 - 2000  # tens of thousands
    assert sinusoidal.wavelengths(512)[0] == pytest.approx(2 * math.pi)  # "~6"


def test_a_1024_row_table_has_no_row_for_index_1024():
    table = torch.nn.Embedding(1024, 768)
    assert table(torch.tensor([1023])).shape == (1, 768)
    with pytest.raises(IndexError):
        table(torch.tensor([1024]))


def test_alibi_penalty_keeps_growing_linearly():
    slopes = alibi.alibi_slopes(8)
    bias = alibi.alibi_bias(8, 1, 50_001)[:, 0, :]  # query at position 50,000
    np.testing.assert_allclose(bias[:, 50_000 - 512], -slopes * 512)
    np.testing.assert_allclose(bias[:, 0], -slopes * 50_000)
    assert slopes[-1] == 2.0**-8


@pytest.mark.parametrize(
    "script, needle",
    [
        ("part1_d8_seed_check.py", "agrees"),
        ("part1_learned_wall.py", "IndexError - index out of range in self"),
    ],
)
def test_examples_print_what_the_pages_describe(script, needle, capsys):
    runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    out = capsys.readouterr().out
    assert needle in out
    assert "DIFFERS" not in out


def test_word_order_example_shows_zero_then_clear_differences(capsys):
    runpy.run_path(str(EXAMPLES / "part1_word_order.py"), run_name="__main__")
    found = re.findall(
        r"largest difference, any word:\s+(\S+)", capsys.readouterr().out
    )
    gaps = [float(g) for g in found]
    assert len(gaps) == 3 and gaps[0] < 1e-12 and min(gaps[1:]) > 0.1


def test_part1_figures_are_registered_with_the_widget_set():
    for slug in ("part1-encoding-matrix", "part1-two-positions", "part1-offset-curves"):
        assert BY_SLUG[slug] in part1.FIGURES


def test_insertion_diagram_draws_three_marked_insertion_points():
    fig = part1.insertion_points(theme="light")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("insertion\npoint") for t in texts) == 3
