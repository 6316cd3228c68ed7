"""Part III, page 2: a raised base, its NTK-aware factor and the cosine-sum bound."""

import math
import re
import runpy
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs import rope
from posenc_docs.pages import models, part3_base

EXAMPLES = Path(__file__).resolve().parents[1] / "posenc_docs" / "examples"


@settings(max_examples=30, deadline=None)
@given(
    d=st.sampled_from([16, 64, 128]),
    base=st.floats(1e3, 1e5),
    ratio=st.floats(1.0, 1e3),
)
def test_a_raised_base_is_ntk_aware_scaling_by_the_equivalent_factor(d, base, ratio):
    assert part3_base.ntk_frequency_gap(d, base, base * ratio) < 1e-9
    s = part3_base.equivalent_ntk_factor(d, base, base * ratio)
    slowest = rope.inv_freq(d, base)[-1] / rope.inv_freq(d, base * ratio)[-1]
    assert slowest == pytest.approx(s, rel=1e-9)  # the slowest pair slows by s


@pytest.mark.parametrize(
    ("m", "d", "base"), [(0, 8, 1e4), (7, 16, 1e4), (3000, 128, 5e5)]
)
def test_cosine_sum_is_half_the_trace_of_the_rotation(m, d, base):
    trace = np.trace(rope.rotation_matrix(m, d, base))
    assert part3_base.cosine_sum(m, d, base) == pytest.approx(trace / 2, abs=1e-9)


def test_cosine_sum_against_a_scalar_loop():
    d, base = 32, 10000.0
    for m in (0, 1, 100, 4095):
        loop = sum(math.cos(m * base ** (-2 * i / d)) for i in range(d // 2))
        assert part3_base.cosine_sum(m, d, base) == pytest.approx(loop, abs=1e-9)


@pytest.mark.parametrize("length", [1024, 4096])
def test_smallest_base_is_the_first_grid_point_that_holds(length):
    b = part3_base.smallest_base(128, length)
    assert part3_base.min_cosine_sum(128, b, length) >= 0
    assert part3_base.min_cosine_sum(128, b / 10**part3_base.GRID_STEP, length) < 0


@settings(max_examples=60, deadline=None)
@given(
    d=st.sampled_from([8, 64, 128]),
    exponent=st.floats(3.0, 7.0),
    length=st.integers(0, 5000),
    near=st.integers(0, 5000),
    block=st.integers(1, 2048),
)
def test_negative_distance_finds_a_negative_sum_exactly_when_there_is_one(
    d, exponent, length, near, block
):
    base, near = 10.0**exponent, min(near, length)
    m = part3_base.negative_distance(d, base, length, near, block)
    if part3_base.min_cosine_sum(d, base, length) >= 0:
        assert m is None
    else:
        assert 0 <= m <= length and part3_base.cosine_sum(m, d, base) < 0


def test_every_grid_base_before_the_smallest_fails():
    b = part3_base.smallest_base(128, 4096)
    step = part3_base.GRID_STEP
    grid = 10.0 ** np.arange(3.0, np.log10(b) - step / 2, step)
    assert len(grid) > 200
    assert all(part3_base.min_cosine_sum(128, g, 4096) < 0 for g in grid)
    assert part3_base.min_cosine_sum(128, b, 4096) >= 0


def test_a_coarser_grid_steps_over_bases_that_hold():
    fine = part3_base.smallest_base(128, 4096)
    coarse = part3_base.smallest_base(128, 4096, step=part3_base.COARSE_STEP)
    assert fine < coarse / 1.2  # the page's note says so with these numbers


def test_census_rows_match_a_wavelength_count():
    table = part3_base.census_table(("Llama-2-7B", "CodeLlama-7B"))
    for name in ("Llama-2-7B", "CodeLlama-7B"):
        m = models.get(name)
        d, b, L = m.rotary_dim, m.rope_theta, m.max_position_embeddings
        turning = sum(2 * math.pi * b ** (2 * i / d) < L for i in range(d // 2))
        assert f"| {turning} | {d // 2 - turning} |" in table


def test_bound_table_marks_qwen_as_failing_and_llama3_as_holding():
    rows = part3_base.bound_table().splitlines()
    assert "fails" in next(r for r in rows if r.startswith("| Qwen2.5"))
    assert "holds" in next(r for r in rows if r.startswith("| Llama-3-8B"))


def test_example_prints_the_equivalent_factor(capsys):
    runpy.run_path(str(EXAMPLES / "part3_base" / "raised_base.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "s = 93.06" in out
    assert re.search(r"\n 1,000,000 +37 +27 ", out)  # pairs that turn, never do


def test_qwen25_raised_its_base_only_for_the_last_pretraining_stage():
    """Qwen2.5 Technical Report (arXiv:2412.15115) section 3.3: a first phase at
    4,096 tokens, then 32,768 tokens with the RoPE base raised from 10,000 to
    1,000,000 (ABF). The published config holds only the end state."""
    from posenc_docs.pages import quoted

    qwen = models.get("Qwen2.5-7B-Instruct")
    assert quoted.get("qwen25_initial_rope_theta").value == 10_000
    assert quoted.get("qwen25_initial_context").value == 4096
    assert (qwen.rope_theta, qwen.max_position_embeddings) == (1_000_000, 32_768)
    assert "2412.15115, section 3.3" in quoted.cite("qwen25_initial_rope_theta")


def test_cosine_sum_figure_keeps_every_dip_and_its_alt_names_the_first_ones():
    """The figure draws each bin's lowest B_m over every distance, and its alt text
    names where each base first goes below zero (brute force, outer product)."""
    from posenc_docs.figures import BY_SLUG
    from posenc_docs.figures.style import log_binned

    m = np.arange(32769)  # B_0 = 64: the first negative distance is the same
    first, lowest = {}, {}
    for base in (1e4, 5e5, 1e6, 5e6):
        sums = np.cos(np.outer(m, base ** (-np.arange(0, 128, 2) / 128))).sum(axis=1)
        below = np.flatnonzero(sums < 0)
        first[base] = int(m[below[0]]) if below.size else None
        lowest[base] = sums.min()
        x, low, _, _ = log_binned(sums, 1500)
        assert low.min() == sums.min() and x[0] == 1 and np.all(np.diff(x) > 0)
    assert first == {1e4: 1707, 5e5: 18438, 1e6: 27115, 5e6: None}
    alt = BY_SLUG["part3_base-cosine-sums"].alt
    for distance in first.values():
        assert distance is None or f"{distance:,}" in alt
    assert round(lowest[5e5]) == -4 and "down to about minus 4" in alt
    assert -1 < lowest[1e6] < 0 and "1 million only just" in alt


def test_pairs_meeting_new_angles_against_a_scalar_loop():
    """Pair i's largest angle, position by position, against the range it met."""

    def loop(d, base, length, new_base, new_length):
        count = 0
        for i in range(d // 2):
            met = max(m * base ** (-2 * i / d) for m in range(length + 1))
            meets = max(m * new_base ** (-2 * i / d) for m in range(new_length + 1))
            count += met < 2 * math.pi and meets > met
        return count

    for args in [(128, 1e4, 4096, 1e6, 16384), (128, 1e4, 4096, 1e4, 16384),
                 (64, 500.0, 300, 2e3, 1000), (32, 1e4, 100, 1e5, 5000)]:  # fmt: skip
        assert part3_base.pairs_meeting_new_angles(*args) == loop(*args), args


def test_code_llamas_base_shows_no_pair_an_angle_llama_2_did_not():
    """The page's point: at 16,384 Llama 2's base gives 18 pairs angles they never
    met in pre-training at 4,096; Code Llama's base gives none."""
    llama2, code = models.get("Llama-2-7B"), models.get("CodeLlama-7B")
    d, L0, L = (
        code.rotary_dim,
        llama2.max_position_embeddings,
        code.max_position_embeddings,
    )
    met = partial(part3_base.pairs_meeting_new_angles, d, llama2.rope_theta, L0)
    assert met(llama2.rope_theta, L) == 18
    assert met(code.rope_theta, L) == 0


def test_at_32k_the_first_base_that_holds_is_followed_by_one_that_fails():
    """The page's warning that a verdict is fragile: a base 1.2 % above the first
    grid base that holds fails, by a wide margin, in a plain sum of cosines."""
    first = part3_base.smallest_base(128, 32768)
    after, low = part3_base.next_grid_base(128, 32768)
    assert after == pytest.approx(first * 10**0.005, rel=1e-12)
    theta = after ** (-np.arange(0, 128, 2) / 128)
    sums = np.cos(np.arange(32769)[:, None] * theta).sum(axis=1)
    assert low == pytest.approx(sums.min(), abs=1e-9) and low < -1
