"""Part III, page 3: the partial-rotary table, MLA absorption and cache sizes."""

import runpy
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs.pages import models, part3_partial

EXAMPLES = Path(__file__).resolve().parents[1] / "posenc_docs" / "examples"


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), n_keys=st.integers(16, 50))
def test_absorption_is_exact_without_rope_and_decoupled_but_not_with_rope(seed, n_keys):
    gaps = part3_partial.mla_absorption_gaps(n_keys=n_keys, seed=seed)
    assert gaps["no rope"] < 1e-9 * gaps["largest score"]
    assert gaps["decoupled"] < 1e-9 * gaps["largest score"]
    assert gaps["rope on the latent keys"] > 0.05 * gaps["largest score"]


def test_absorption_gap_vanishes_for_a_query_at_position_zero_only_in_one_key():
    # R_0 is the identity: for a single key at position 0 rotation changes nothing
    gaps = part3_partial.mla_absorption_gaps(n_keys=1)
    assert gaps["rope on the latent keys"] < 1e-9


def test_deepseek_v3_cache_sizes_from_its_config():
    cache = part3_partial.mla_cache_per_token(models.get("DeepSeek-V3"))
    assert cache["mla"] == 512 + 64  # kv_lora_rank + qk_rope_head_dim
    assert cache["mha"] == 128 * ((128 + 64) + 128)  # heads x (qk + v)
    assert cache["ratio"] == pytest.approx(40960 / 576)


def test_table_rows_come_from_the_configs():
    table = part3_partial.partial_table()
    for row in ("24 of 96", "32 of 80", "64 of 256", "64 of 192", "128 of 128"):
        assert row in table
    assert "`partial_rotary_factor` 0.4" in table


def test_example_prints_exact_exact_and_wrong(capsys):
    script = EXAMPLES / "part3_partial" / "absorption.py"
    runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert out.count("exact") == 2 and out.count("WRONG") == 1
    assert "MLA: 576\n" in out and "keys and values: 40,960\n" in out


def test_transformers_reads_the_partial_keys_into_rope_parameters():
    """partial.md and base.md: `rotary_pct`, `partial_rotary_factor` and
    `rope_theta` are config.json keys that Transformers 5 moves into
    `config.rope_parameters`; GPT-J's `rotary_dim` stays an attribute."""
    transformers = pytest.importorskip("transformers")
    neox = transformers.GPTNeoXConfig(rotary_pct=0.25, rope_theta=10000.0)
    phi = transformers.PhiConfig(partial_rotary_factor=0.4)
    llama = transformers.LlamaConfig(rope_theta=500000.0)
    assert neox.rope_parameters["partial_rotary_factor"] == 0.25
    assert phi.rope_parameters["partial_rotary_factor"] == 0.4
    assert llama.rope_parameters["rope_theta"] == 500000.0
    for config, key in ((neox, "rotary_pct"), (phi, "partial_rotary_factor"),
                        (llama, "rope_theta")):  # fmt: skip
        assert not hasattr(config, key), key
    assert transformers.GPTJConfig(rotary_dim=64).rotary_dim == 64
