"""Internal consistency of the published model configs in posenc_docs.pages.models.

The values themselves were read from the configs named in each entry's ``source``;
these tests check that they agree with each other and with the formulas the site
runs them through, so a typo in one field shows up as a contradiction.
"""

import math

import numpy as np
import pytest

from posenc_docs.pages import models, part2_extension
from posenc_docs.rope import LAYOUTS

ALL = list(models.MODELS.values())
ROPE = [model for model in ALL if model.scheme == "rope"]


def ids(model):
    return model.name


@pytest.mark.parametrize("model", ALL, ids=ids)
def test_every_entry_names_its_source(model):
    from_paper = model.scheme == "sinusoidal"
    assert ("Vaswani" if from_paper else "config.json") in model.source
    assert model.checked


@pytest.mark.parametrize("model", ALL, ids=ids)
def test_heads_times_head_dim_is_the_hidden_size(model):
    if model.name == "DeepSeek-V3":  # MLA: q.k width = position-free + rotated dims
        nope, rope_dims = (
            model.extra["qk_nope_head_dim"],
            model.extra["qk_rope_head_dim"],
        )
        assert nope + rope_dims == model.head_dim and rope_dims == model.rotary_dim
        return
    assert model.num_heads * model.head_dim == model.hidden_size


@pytest.mark.parametrize("model", ROPE, ids=ids)
def test_rope_fields_are_usable(model):
    assert model.rotary_dim % 2 == 0 and 0 < model.rotary_dim <= model.head_dim
    assert model.rope_layout in LAYOUTS
    assert model.rope_theta > 1
    kv_heads = model.extra.get("num_key_value_heads", model.num_heads)
    assert model.num_heads % kv_heads == 0  # grouped-query attention


def test_partial_rotary_of_gpt_neox_matches_rotary_pct():
    neox = models.get("GPT-NeoX-20B")
    assert neox.rotary_dim == int(neox.head_dim * neox.extra["rotary_pct"])


def test_partial_rotary_of_phi2_matches_partial_rotary_factor():
    phi2 = models.get("Phi-2")
    factor = phi2.extra["partial_rotary_factor"]
    assert phi2.rotary_dim == int(phi2.head_dim * factor) == 32  # HF's int(d * f)


@pytest.mark.parametrize("model", ROPE, ids=ids)
def test_scaling_params_are_accepted_by_posenc_docs_scaling(model):
    for seq_len in (None, 10**6):  # LongRoPE: both lists
        inv_freq, attention = part2_extension.model_inv_freq(model, seq_len=seq_len)
        assert inv_freq.shape == (model.rotary_dim // 2,)
        assert np.all(np.isfinite(inv_freq)) and np.all(inv_freq > 0)
        assert attention >= 1.0
        factors = part2_extension.model_scale_factors(model, seq_len=seq_len)
        assert np.all(factors >= 1.0 - 1e-12)  # extension only ever slows pairs


def test_longrope_lists_have_one_factor_per_pair():
    phi3 = models.get("Phi-3-mini-128k-instruct")
    pairs = phi3.rotary_dim // 2
    assert len(phi3.rope_scaling["long_factor"]) == pairs == 48
    assert len(phi3.rope_scaling["short_factor"]) == pairs
    assert phi3.rope_scaling["long_factor"][0] == pytest.approx(1.07, abs=1e-6)


def test_longrope_attention_factor_is_the_phi3_formula():
    phi3 = models.get("Phi-3-mini-128k-instruct")
    _, attention = part2_extension.model_inv_freq(phi3, seq_len=10**6)
    scale = 131072 / 4096
    assert attention == pytest.approx(math.sqrt(1 + math.log(scale) / math.log(4096)))


def test_yarn_attention_factor_of_qwen_is_point_one_ln_s_plus_one():
    _, attention = part2_extension.model_inv_freq(models.get("Qwen2.5-7B-Instruct"))
    assert attention == pytest.approx(0.1 * math.log(4.0) + 1.0)


def test_deepseek_mscale_pair_cancels_in_the_rotary_factor():
    _, attention = part2_extension.model_inv_freq(models.get("DeepSeek-V3"))
    assert attention == pytest.approx(1.0)  # g(s, 1) / g(s, 1)


@pytest.mark.parametrize(
    ("name", "product", "ceiling"),
    [
        ("Vicuna-7B-v1.5-16k", 4096 * 4, 16384),
        ("Qwen2.5-7B-Instruct", 32768 * 4, 131072),
        ("Phi-3-mini-128k-instruct", 4096 * 32, 131072),
        ("DeepSeek-V3", 4096 * 40, 163840),
        ("Llama-3.1-8B", 8192 * 8, 131072),
        ("Llama-3.2-1B", 8192 * 32, 131072),
    ],
)
def test_context_ceilings_from_the_configs(name, product, ceiling):
    c = part2_extension.context_ceiling(models.get(name))
    assert c.product == product
    assert c.tokens == ceiling


def test_llama3_factor_times_length_is_not_the_advertised_length():
    for name in ("Llama-3.1-8B", "Llama-3.2-1B"):
        c = part2_extension.context_ceiling(models.get(name))
        assert c.product != c.configured == 131072


def test_configs_are_read_only():
    model = models.get("Llama-3.1-8B")
    with pytest.raises(TypeError):
        model.rope_scaling["factor"] = 2.0
    with pytest.raises(AttributeError):
        model.rope_theta = 1.0


def test_lookups_refuse_unknown_names():
    with pytest.raises(KeyError, match="Llama-2-7B"):
        models.get("llama-2")
    with pytest.raises(ValueError, match="scheme"):
        models.ModelConfig("x", "nope", 1, 1, 1, None, source="s", checked="c")


def test_every_scheme_and_method_has_a_real_model():
    assert {model.scheme for model in ALL} == set(models.SCHEMES)
    for kind in ("linear", "yarn", "longrope", "llama3"):
        assert models.by_rope_type(kind)


def test_the_model_table_imports_neither_numpy_nor_torch():
    """Pages read configs through this table; a page whose numbers need nothing
    else must not pay torch's import (issue 12: torch only when needed)."""
    import subprocess
    import sys

    code = (
        "import sys, posenc_docs.pages.models; "
        "print(sorted({'numpy', 'torch'} & set(sys.modules)))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-500:]
    assert run.stdout.strip() == "[]"
