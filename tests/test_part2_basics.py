"""Tests for posenc_docs.pages.part2_basics: numbers quoted in Part II 01-05."""

import cmath
import math

import numpy as np
import pytest
import torch
from hypothesis import settings

from posenc_docs import sinusoidal, temperature
from posenc_docs.pages import part1, part2_basics
from posenc_docs.pages.format import mantissa, markdown_table, percent

FAST = settings(max_examples=30, deadline=None)


def test_markdown_table_layout():
    text = markdown_table(["a", "b"], [[1, 2], [3, 4]])
    assert text.splitlines() == ["| a | b |", "|---:|---:|", "| 1 | 2 |", "| 3 | 4 |"]


def test_percent_and_mantissa_write_what_the_prose_needs():
    assert percent(0.0123, 2) == "1.23" and percent(0.3, 0) == "30"
    assert percent(-0.5, 1) == "\N{MINUS SIGN}50.0"
    assert mantissa(6.04e-5, -5, 1) == "6.0" and mantissa(7.4e-3, -3, 1) == "7.4"


def test_slowest_pair_falls_short_of_two_pi_base():
    for d in (8, 64, 512):
        slowest = 2 * math.pi * 10000 ** ((d - 2) / d)  # the paper's formula, i = d/2-1
        assert sinusoidal.wavelengths(d)[-1] == pytest.approx(slowest, rel=1e-12)
        assert slowest < part2_basics.limit_wavelength() == pytest.approx(2e4 * math.pi)


def test_nearest_positions_match_brute_force():
    d, max_offset = 8, 3000
    pe = sinusoidal.table(max_offset + 1, d)  # (n, d)
    distances = np.linalg.norm(pe[1:] - pe[0], axis=1)  # offsets 1..max_offset
    k, distance = part2_basics.nearest_distinct_positions(d, max_offset)
    assert k == int(np.argmin(distances)) + 1
    assert distance == pytest.approx(distances.min(), rel=1e-9)


def test_wide_encodings_keep_neighbours_closest():
    k, distance = part2_basics.nearest_distinct_positions(512, 20000)
    direct = np.linalg.norm(sinusoidal.encode(1, 512) - sinusoidal.encode(0, 512))
    assert k == 1 and distance == pytest.approx(direct)


def block_shift_error(k: int, d: int, n_positions: int = 1000) -> float:
    r"""Worst error of $PE(p+k) = M_k\,PE(p)$ over positions $0..n-1$."""
    pe = sinusoidal.table(n_positions + k, d)  # (n + k, d)
    predicted = pe[:n_positions] @ sinusoidal.shift_matrix(k, d).T  # (n, d)
    return float(np.abs(predicted - pe[k:]).max())


def test_a_scalar_map_cannot_shift_but_the_block_rotation_can():
    # sin(p + 1) = sin(p) cos 1 + cos(p) sin 1: one dimension alone misses the
    # cos(p) sin 1 term, whose size reaches sin 1 at p = 0.
    assert part1.per_dimension_fit_residual(1, 512, 1000) > 0.8 * math.sin(1)
    assert block_shift_error(1, 512) < 1e-10
    assert block_shift_error(37, 64) < 1e-10


def test_rotation_degrees_is_position_times_theta():
    assert part2_basics.rotation_degrees(3, 0, 128) == pytest.approx(3 * 180 / math.pi)
    theta_last = 10000 ** (-126 / 128)
    assert part2_basics.rotation_degrees(3, 63, 128) == pytest.approx(
        3 * theta_last * 180 / math.pi
    )


def paper_bound(distance: int, d: int = 128, base: float = 10000.0) -> float:
    """RoFormer 3.4.3 by scalar loops: mean over j of |sum_{i<j} e^{i r theta_i}|."""
    total, partial = 0.0, 0j
    for i in range(d // 2):
        partial += cmath.exp(1j * distance * base ** (-2 * i / d))
        total += abs(partial)
    return total / (d // 2)


def test_slope_table_lists_every_head_with_its_power_of_two():
    lines = part2_basics.alibi_slope_table(12).splitlines()
    assert len(lines) == 2 + 12
    assert lines[2].startswith("| 1 | $2^{-1}$ | 0.50000 |")
    assert lines[-1].startswith("| 12 | $2^{-3.5}$ | 0.08839 |")


def test_slope_powers_in_the_prose_are_the_papers_and_the_reference_codes():
    """ALiBi section 3: for 8 heads the slopes are 1/2^1, ..., 1/2^8; for 12, the
    reference code's get_slopes adds every other slope of 16 heads, 2^-0.5 ...
    (ofirpress/attention_with_linear_biases)."""
    assert part2_basics.alibi_slope_powers(8, elided=True) == (
        "2^{-1}, 2^{-2}, \\dots, 2^{-8}"
    )
    assert part2_basics.alibi_slope_powers(12, 8) == (
        "2^{-0.5}, 2^{-1.5}, 2^{-2.5}, 2^{-3.5}"
    )
    assert part2_basics.alibi_reach(8, 1) == 256  # failure modes: "slope 1/256"


def torch_count(*modules) -> int:
    return sum(p.numel() for m in modules for p in m.parameters())


def gpt2_block(d):
    nn = torch.nn
    return [nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d), nn.LayerNorm(d),
            nn.Linear(d, 4 * d), nn.Linear(4 * d, d)]  # fmt: skip


def bert_block(d):
    nn = torch.nn
    return [*(nn.Linear(d, d) for _ in range(4)), nn.LayerNorm(d),
            nn.Linear(d, 4 * d), nn.Linear(4 * d, d), nn.LayerNorm(d)]  # fmt: skip


def test_parameter_counts_match_the_layers_they_describe():
    nn, (vocab, n_pos, d, layers) = torch.nn, (11, 7, 8, 3)
    gpt2 = [nn.Embedding(vocab, d), nn.Embedding(n_pos, d), nn.LayerNorm(d)]
    gpt2 += [m for _ in range(layers) for m in gpt2_block(d)]
    assert part2_basics.gpt2_parameter_count(vocab, n_pos, d, layers) == torch_count(
        *gpt2
    )
    bert = [nn.Embedding(vocab, d), nn.Embedding(n_pos, d), nn.Embedding(2, d)]
    bert += [nn.LayerNorm(d), nn.Linear(d, d)]  # embedding LayerNorm, pooler
    bert += [m for _ in range(layers) for m in bert_block(d)]
    assert part2_basics.bert_parameter_count(vocab, n_pos, d, layers) == torch_count(
        *bert
    )


def test_parameter_counts_match_the_published_checkpoints():
    # num_parameters() of Hugging Face's "gpt2" and "bert-base-uncased"
    assert part2_basics.gpt2_parameter_count() == 124_439_808
    assert part2_basics.bert_parameter_count() == 109_482_240


def test_rope_decay_range_brackets_every_distance_in_it():
    low, high = part2_basics.rope_decay_range(200, 260)
    values = [paper_bound(r) for r in range(200, 261)]
    assert low == pytest.approx(min(values)) and high == pytest.approx(max(values))


# Issue 13, statement 10: Llama 4's iRoPE drops the rotation in every fourth
# layer; 04 counts the rotating layers as 4 - len(nope_layers(4)). The pattern
# itself is checked against Hugging Face's Llama4TextConfig in test_temperature.
def test_three_layers_in_four_rotate_under_irope():
    assert temperature.nope_layers(4) == [3]


def test_pair_divisor_is_base_to_the_2i_over_d():
    for pair in (0, 1, 64, 255):
        want = 10000.0 ** (2 * pair / 512)
        assert part2_basics.pair_divisor(pair, 512) == pytest.approx(want, rel=1e-14)
