"""Tests for posenc_docs.pages.part3_windows, the sink pitfall and the examples."""

import math
import runpy
from pathlib import Path

import numpy as np
import pytest

from posenc_docs import rope
from posenc_docs.pages import models, part3_windows, pitfalls

ROOT = Path(__file__).resolve().parents[1] / "posenc_docs" / "examples"


def test_gemma_constants_are_hugging_face_defaults():
    transformers = pytest.importorskip("transformers")
    for stack, config in (
        (part3_windows.GEMMA2, transformers.Gemma2Config()),
        (part3_windows.GEMMA3, transformers.Gemma3TextConfig()),
    ):
        assert stack.num_layers == config.num_hidden_layers
        assert stack.window == config.sliding_window
        assert stack.head_dim == config.head_dim
        full = config.layer_types.count("full_attention")
        assert part3_windows.layer_counts(stack)["global"] == full
        # HF's own layer list: every global layer follows the same run of locals
        runs = "".join(
            "g" if t == "full_attention" else "l" for t in config.layer_types
        )
        per_global = part3_windows.locals_per_global(stack)
        assert runs.startswith(("l" * per_global + "g") * full)
    gemma2 = transformers.Gemma2Config().rope_parameters
    assert part3_windows.GEMMA2.local_base == gemma2["rope_theta"]
    assert part3_windows.GEMMA2.global_base == gemma2["rope_theta"]  # one base
    gemma3 = transformers.Gemma3TextConfig().rope_parameters
    assert part3_windows.GEMMA3.local_base == gemma3["sliding_attention"]["rope_theta"]
    assert part3_windows.GEMMA3.global_base == gemma3["full_attention"]["rope_theta"]
    assert transformers.Gemma3TextConfig().max_position_embeddings == 131072


def test_gemma3_scaling_applies_to_the_global_layers_only():
    transformers = pytest.importorskip("transformers")
    config = transformers.Gemma3TextConfig(
        rope_scaling={"rope_type": "linear", "factor": 8.0}
    )
    assert config.rope_parameters["full_attention"]["rope_type"] == "linear"
    assert config.rope_parameters["sliding_attention"]["rope_type"] == "default"


def test_mistral_window_and_reach():
    assert models.get("Mistral-7B-v0.1").extra["sliding_window"] == 4096
    reach = part3_windows.window_reach(part3_windows.MISTRAL_LAYERS, 4096)
    assert reach == 32 * 4095 and abs(reach - 131_072) <= 32  # the paper's ~131K


def test_kv_cache_share_counts_keys_layer_by_layer():
    stack = part3_windows.GEMMA3  # 22 local, 4 global of 26
    n = 32768
    expected = (22 * 4096 + 4 * n) / (26 * n)
    assert part3_windows.kv_cache_share(stack, n) == pytest.approx(expected)
    assert part3_windows.kv_cache_share(stack, 1000) == 1.0  # shorter than the window
    table = part3_windows.cache_table()
    assert "| Gemma 3 | 22 : 4 | 58% | 26% | 18% |" in table
    assert "| Gemma 2 | 13 : 13 | 75% | 56% | 52% |" in table
    four_b = (29 * 1024 + 5 * 8192) / (34 * 8192)  # 29 local of 34 at W = 1,024
    assert f"| Gemma 3 4B | 29 : 5 | {100 * four_b:.0f}% |" in table


def test_local_turn_census_is_the_wavelength_count():
    census = part3_windows.local_turns(part3_windows.GEMMA3)
    wavelengths = 2 * math.pi * 10_000.0 ** (np.arange(0, 256, 2) / 256)
    assert census.full_turn == int((wavelengths < 4096).sum()) == 91
    four_b = part3_windows.local_turns(part3_windows.GEMMA3_4B)
    assert four_b.full_turn == int((wavelengths < 1024).sum())


def test_global_turn_census_divides_positions_by_the_linear_factor():
    """Position interpolation by 8: 131,072 positions turn the pairs as 16,384 do."""
    wavelengths = 2 * math.pi * 1_000_000.0 ** (np.arange(0, 256, 2) / 256)
    default = part3_windows.global_turns(part3_windows.GEMMA3, 131072)
    assert default.full_turn == int((wavelengths < 131072).sum()) == 93
    four_b = part3_windows.global_turns(part3_windows.GEMMA3_4B, 131072)
    assert four_b.full_turn == int((wavelengths < 131072 / 8).sum()) == 73


def unseen_by_brute_force(offset, d, base, trained):
    """Pairs whose angle at ``offset`` is more than one step from every angle
    reached by an offset 0..trained-1 (all angles taken mod 2 pi)."""
    count = 0
    for theta in rope.inv_freq(d, base):
        seen = np.mod(np.arange(trained) * theta, 2 * np.pi)
        gap = np.abs(np.mod(offset * theta, 2 * np.pi) - seen)
        if np.minimum(gap, 2 * np.pi - gap).min() > theta:
            count += 1
    return count


@pytest.mark.parametrize("step", [4000, 8000, 20000, 100000])
def test_sink_offsets_and_unseen_pairs(step):
    gap = pitfalls.sink_cache_offsets(4, 4092, step)
    assert gap["absolute"]["offset"] == step
    assert gap["in_cache"]["offset"] == min(step, 4095)
    assert gap["in_cache"]["unseen_pairs"] == 0
    brute = unseen_by_brute_force(step, 128, 10000.0, 4096)
    assert abs(gap["absolute"]["unseen_pairs"] - brute) <= 1  # arc-edge rounding
    if step <= 4095:
        assert gap["absolute"]["unseen_pairs"] == 0
    else:
        assert gap["absolute"]["unseen_pairs"] > 0


def test_examples_print_what_the_page_says(capsys):
    runpy.run_path(str(ROOT / "part3_windows" / "cache_positions.py"))
    out = capsys.readouterr().out
    sink_part = out[out.index("2 sinks") :]
    assert "step 9  tokens    [0, 1, 6, 7, 8, 9]" in sink_part
    assert "positions [0, 1, 2, 3, 4, 5]" in sink_part
    assert "largest query-key offset 4,095" in out
    runpy.run_path(str(ROOT / "pitfalls" / "sink_positions.py"))
    last = capsys.readouterr().out.splitlines()[-1].split()
    assert last[:2] == ["100,000", "100,000"] and last[-2:] == ["4,095", "0"]
