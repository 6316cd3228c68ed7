"""Differential tests against Hugging Face transformers' own RoPE and ALiBi code.

Small configs are built here; no weights, nothing from the Hub (conftest sets
HF_HUB_OFFLINE=1; no from_pretrained). Called directly: ``ROPE_INIT_FUNCTIONS``
and ``dynamic_rope_update`` (through ``LlamaRotaryEmbedding``), LLaMA's
``apply_rotary_pos_emb`` (half layout), GPT-J's ``apply_rotary_pos_emb`` and
``create_sinusoidal_positions`` (interleaved) and BLOOM's ``build_alibi_tensor``.
Every group also shows that a wrong variant fails.

Tolerances. HF computes frequencies in float32, ours in float64. HF rounds 2i/d to
float32 (2**-24 relative) and raises b to it, which multiplies that error by
2i/d * ln b <= 17 here; llama3 also forms its smoothing weight in float32. Measured
over the grid: <= 6.5e-7 relative (llama3 1.1e-6), hence HF_RTOL = 2e-6. Attention
factors are Python float64 arithmetic on both sides (equal to 1e-12). The rotation
itself is compared in float64 (1e-12).
"""

import itertools
import math
import re
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from posenc_docs import alibi, rope, scaling, temperature
from posenc_docs.pages.pitfalls import prose_alibi_slopes


@cache
def hf() -> SimpleNamespace:
    """The transformers code compared against, imported on first use: collection
    does not pay its 2 s import on the xdist worker that never runs this file."""
    from transformers import LlamaConfig, Ministral3Config, logging
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor
    from transformers.models.gptj import modeling_gptj
    from transformers.models.llama import modeling_llama

    logging.set_verbosity_error()  # HF warns about factor/length mismatches we choose
    return SimpleNamespace(
        LlamaConfig=LlamaConfig,
        Ministral3Config=Ministral3Config,
        ROPE_INIT_FUNCTIONS=ROPE_INIT_FUNCTIONS,
        build_alibi_tensor=build_alibi_tensor,
        modeling_gptj=modeling_gptj,
        modeling_llama=modeling_llama,
    )


HF_RTOL = 2e-6
HF_TYPES_NOT_IN_POSENC_DOCS: set[str] = set()
GRID = list(  # (d, base, factor, L0): 60 points
    itertools.product((4, 8, 64, 96, 128), (1e4, 5e5), (1.0, 2.5, 8.0), (512, 4096))
)

# ---------------------------------------------------------------- frequencies


def hf_config(d, base, rope_type, max_pos, head_dim=None, **params):
    """A LlamaConfig whose rotary dim is d (head_dim * partial_rotary_factor)."""
    head_dim = head_dim or d
    params = {"rope_type": rope_type, "rope_theta": base, **params}
    if head_dim != d:
        params["partial_rotary_factor"] = d / head_dim
    return hf().LlamaConfig(
        hidden_size=head_dim,
        num_attention_heads=1,
        head_dim=head_dim,
        max_position_embeddings=max_pos,
        rope_parameters=params,
    )


def hf_frequencies(config, seq_len=None):
    rope_type = config.rope_parameters["rope_type"]
    default = hf().modeling_llama.LlamaRotaryEmbedding.compute_default_rope_parameters
    inv_freq, attention = hf().ROPE_INIT_FUNCTIONS.get(rope_type, default)(
        config, seq_len=seq_len
    )
    return inv_freq.double().numpy(), attention


def assert_matches_hf(ours, theirs, label=""):
    (our_freq, our_attention), (hf_freq, hf_attention) = ours, theirs
    np.testing.assert_allclose(our_freq, hf_freq, rtol=HF_RTOL, atol=0, err_msg=label)
    assert our_attention == pytest.approx(hf_attention, rel=1e-12, abs=0), label


def default_cases(d, base, factor, L0):
    yield {}, L0, None, (rope.inv_freq(d, base), 1.0)


def linear_cases(d, base, factor, L0):
    yield {"factor": factor}, L0, None, scaling.linear(d, base, factor=factor)


def ntk_cases(d, base, factor, L0):
    """HF has no static NTK: "dynamic" with factor 1 at s*L0 has base b*s**(d/(d-2))."""
    seq_len = round(factor * L0)
    yield {"factor": 1.0}, L0, seq_len, scaling.ntk(d, base, factor=factor)


def dynamic_cases(d, base, factor, L0):
    for seq_len in (None, L0 // 2, L0, L0 + 1, 3 * L0, round(8.5 * L0)):
        ours = scaling.dynamic_ntk(
            d, base, factor=factor, max_position_embeddings=L0, seq_len=seq_len
        )
        yield {"factor": factor}, L0, seq_len, ours


YARN_OPTIONS = (
    {},
    {"mscale": 0.707, "mscale_all_dim": 0.707},  # DeepSeek-V3: attention factor 1
    {"mscale": 2.0, "mscale_all_dim": 1.0},
    {"mscale": 2.0},  # needs both: the default g(s) is used
    {"mscale": 0.0, "mscale_all_dim": 1.0},  # 0 is unset, as HF's truthiness reads
    {"attention_factor": 0.8},
    {"truncate": False},
    {"beta_fast": 16.0, "beta_slow": 2.0},
)


def yarn_cases(d, base, factor, L0):
    for options in YARN_OPTIONS:
        params = {"factor": factor, "original_max_position_embeddings": L0, **options}
        yield params, round(factor * L0), None, scaling.yarn(d, base, **params)


def longrope_cases(d, base, factor, L0):
    rng = np.random.default_rng(d)
    lists = {"short_factor": rng.uniform(1, 2, d // 2).tolist()}
    lists["long_factor"] = rng.uniform(1, 64, d // 2).tolist()
    extended = round(factor * L0)
    for given, seq_len in itertools.product(
        ({"factor": factor}, {}, {"factor": factor, "attention_factor": 0.9}),
        (None, L0, L0 + 1),
    ):
        params = {**lists, **given, "original_max_position_embeddings": L0}
        ours = scaling.longrope(
            d, base, **params, max_position_embeddings=extended, seq_len=seq_len
        )
        yield params, extended, seq_len, ours


def llama3_cases(d, base, factor, L0):
    for low, high in ((1.0, 4.0), (2.0, 3.0), (1.0, 1.0)):  # 1, 1: Llama 4 Scout
        params = {"factor": factor, "original_max_position_embeddings": L0}
        params |= {"low_freq_factor": low, "high_freq_factor": high}
        yield params, round(factor * L0), None, scaling.llama3(d, base, **params)


def proportional_cases(d, base, factor, L0):
    """d is the head width; 0 and 1 are the ends, 0.3 makes p d / 2 fractional
    (the float floor that differs from the exact one is tested on its own)."""
    for share in (0.0, 0.25, 0.3, 1.0):
        params = {"factor": factor, "partial_rotary_factor": share}
        yield params, L0, None, scaling.proportional(d, base, **params)


CASES = {  # our method: (HF rope_type, cases)
    "default": ("default", default_cases),
    "linear": ("linear", linear_cases),
    "ntk": ("dynamic", ntk_cases),
    "dynamic_ntk": ("dynamic", dynamic_cases),
    "yarn": ("yarn", yarn_cases),
    "longrope": ("longrope", longrope_cases),
    "llama3": ("llama3", llama3_cases),
    "proportional": ("proportional", proportional_cases),
}
HEAD_WIDTH_D = {"default", "proportional"}  # methods whose d is not the rotary width


def test_every_hf_rope_type_is_compared_or_listed_as_missing():
    compared = {rope_type for rope_type, _ in CASES.values()} - {"default"}
    assert set(hf().ROPE_INIT_FUNCTIONS) == compared | HF_TYPES_NOT_IN_POSENC_DOCS


@pytest.mark.parametrize("method", CASES)
def test_frequencies_and_attention_factor_match_hf(method):
    rope_type, cases = CASES[method]
    for d, base, factor, L0 in GRID:
        for params, max_pos, seq_len, ours in cases(d, base, factor, L0):
            config = hf_config(d, base, rope_type, max_pos, **params)
            label = f"{method} d={d} b={base} s={factor} L0={L0} {params} {seq_len=}"
            assert_matches_hf(ours, hf_frequencies(config, seq_len), label)


@pytest.mark.parametrize("method", sorted(set(CASES) - {"ntk"}))
def test_from_rope_scaling_reads_a_config_dict_as_hf_does(method):
    """The dispatch table, fed the same ``rope_scaling`` dict HF reads."""
    rope_type, cases = CASES[method]
    for d, base, factor, L0 in GRID[::7]:
        for params, max_pos, seq_len, _ in cases(d, base, factor, L0):
            config = hf_config(d, base, rope_type, max_pos, **params)
            ours = scaling.from_rope_scaling(
                d,
                base,
                {"rope_type": rope_type, **params},
                max_position_embeddings=max_pos,
                seq_len=seq_len,
            )
            assert_matches_hf(ours, hf_frequencies(config, seq_len), f"{params}")


@pytest.mark.parametrize("method", sorted(set(CASES) - HEAD_WIDTH_D))
def test_our_d_is_hf_head_dim_times_partial_rotary_factor(method):
    """LLaMA's own default ignores partial_rotary_factor, and proportional's d is
    the head width, so neither is in this test."""
    rope_type, cases = CASES[method]
    for params, max_pos, seq_len, ours in cases(32, 1e4, 4.0, 1024):
        config = hf_config(32, 1e4, rope_type, max_pos, head_dim=128, **params)
        assert_matches_hf(ours, hf_frequencies(config, seq_len), str(params))


@pytest.mark.parametrize("method", sorted(set(CASES) - HEAD_WIDTH_D - {"ntk"}))
def test_from_rope_scaling_takes_a_configs_own_rope_parameters(method):
    """transformers 5 keeps partial_rotary_factor in rope_parameters: with it, d is
    the head width and the method rotates int(d * p), as transformers reads the
    config (the head width had given 64 frequencies for 16, without an error)."""
    rope_type, cases = CASES[method]
    for params, max_pos, seq_len, _ in cases(32, 1e4, 4.0, 1024):
        config = hf_config(32, 1e4, rope_type, max_pos, head_dim=128, **params)
        assert config.rope_parameters["partial_rotary_factor"] == 0.25
        ours = scaling.from_rope_scaling(
            config.head_dim,
            1e4,
            dict(config.rope_parameters),
            max_position_embeddings=max_pos,
            seq_len=seq_len,
        )
        assert_matches_hf(ours, hf_frequencies(config, seq_len), str(params))


@pytest.mark.parametrize(
    ("model", "share", "head_dim"), [("gpt_neox", 0.25, 96), ("phi", 0.4, 80)]
)
def test_from_rope_scaling_reads_a_partial_rotary_models_config_with_its_head_width(
    model, share, head_dim
):
    """GPT-NeoX's rotary_pct and Phi's partial_rotary_factor end up in
    rope_parameters; given the head width, as the model's rotary module reads the
    config, from_rope_scaling returns that module's frequencies."""
    import importlib

    from transformers import GPTNeoXConfig, PhiConfig

    size = {"hidden_size": 2 * head_dim, "num_attention_heads": 2}
    if model == "gpt_neox":
        config, name = GPTNeoXConfig(**size, rotary_pct=share), "GPTNeoX"
    else:
        config, name = PhiConfig(**size, partial_rotary_factor=share), "Phi"
    modeling = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    theirs = getattr(modeling, f"{name}RotaryEmbedding")(config).inv_freq
    parameters = dict(config.rope_parameters)
    ours = scaling.from_rope_scaling(head_dim, parameters["rope_theta"], parameters)
    assert len(ours[0]) == int(head_dim * share) // 2
    assert_matches_hf(ours, (theirs.double().numpy(), 1.0))


def test_from_rope_scaling_names_the_rotary_width_in_its_methods_errors():
    """With partial_rotary_factor the method gets int(d * p): its error about
    "d/2" says which d, or 27 would read as a slip for the 36 of d = 72."""
    lists = {"short_factor": [1.0] * 36, "long_factor": [2.0] * 36}
    parameters = {"rope_type": "longrope", "partial_rotary_factor": 0.75, **lists}
    with pytest.raises(
        ValueError, match=r"d/2=27.*int\(d \* partial_rotary_factor\) = 54 for d = 72"
    ):
        scaling.from_rope_scaling(
            72, 1e4, parameters, max_position_embeddings=256,
            original_max_position_embeddings=64,
        )  # fmt: skip


def test_from_rope_scaling_leaves_errors_not_about_d_as_they_are():
    """The rotary-width note goes only on an error about the method's d, and the
    method's own error stays attached as the cause."""
    parameters = {"rope_type": "linear", "partial_rotary_factor": 0.75, "factor": 0.5}
    with pytest.raises(ValueError, match=r"factor must be >= 1, got 0.5$"):
        scaling.from_rope_scaling(72, 1e4, parameters)
    lists = {"short_factor": [1.0] * 36, "long_factor": [2.0] * 36}
    parameters = {"rope_type": "longrope", "partial_rotary_factor": 0.75, **lists}
    with pytest.raises(ValueError, match="rotary width") as caught:
        scaling.from_rope_scaling(
            72, 1e4, parameters, max_position_embeddings=256,
            original_max_position_embeddings=64,
        )  # fmt: skip
    assert "short_factor must have length d/2=27" in str(caught.value.__cause__)


def test_proportional_floors_p_times_d_in_floating_point_as_hf_does():
    """The docstring's example: 0.58 * 100 is 57.99999999999999 in floating
    point, so 28 pairs rotate, not the 29 of the exact formula, in both."""
    ours, _ = scaling.proportional(100, 1e4, partial_rotary_factor=0.58)
    config = hf_config(100, 1e4, "proportional", 512, partial_rotary_factor=0.58)
    theirs, _ = hf_frequencies(config)
    assert np.count_nonzero(ours) == np.count_nonzero(theirs) == 28


def test_from_rope_scaling_refuses_a_share_that_makes_an_odd_rotary_width():
    """int(64 * 0.3) = 19: transformers then rotates 20 features at exponents over
    19; refused here, naming the width."""
    parameters = {"rope_type": "default", "partial_rotary_factor": 0.3}
    with pytest.raises(ValueError, match=r"int\(64 \* 0.3\) = 19 must be even"):
        scaling.from_rope_scaling(64, 1e4, parameters)


def test_from_rope_scaling_reads_transformers_5_rope_parameters_as_hf_does():
    """Qwen2-VL's standardized parameters keep the legacy type "mrope" beside
    rope_type "default" (rope_type wins) and its mrope_section (an axis split, not
    a frequency); a yarn without factor takes max_position_embeddings / L0."""
    from transformers import Qwen2VLConfig

    text = {"rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]},
            "rope_theta": 1e6, "hidden_size": 32, "num_attention_heads": 2}  # fmt: skip
    config = Qwen2VLConfig(text_config=text).text_config
    parameters = dict(config.rope_parameters)
    assert parameters["type"] == "mrope" and parameters["rope_type"] == "default"
    ours = scaling.from_rope_scaling(16, 1e6, parameters)
    assert_matches_hf(ours, (rope.inv_freq(16, 1e6), 1.0))
    yarn = {"factor": None, "original_max_position_embeddings": 2048}
    config = hf_config(64, 1e4, "yarn", 8192, **yarn)
    ours = scaling.from_rope_scaling(
        64, 1e4, {"rope_type": "yarn", **yarn}, max_position_embeddings=8192
    )
    assert_matches_hf(ours, hf_frequencies(config))
    assert ours[1] == pytest.approx(0.1 * math.log(4) + 1)  # s = 8192 / 2048


def test_from_rope_scaling_reads_nousresearchs_yarn_configs_as_hf_does():
    """Yarn-Llama-2-7b-64k's rope_scaling (and Yarn-Mistral's) carries "finetuned":
    true, which only jquesnelle/yarn's dynamic YaRN reads; transformers logs it as
    unrecognized and computes YaRN. It was refused as a key yarn does not take."""
    rope_scaling = {"factor": 16.0, "finetuned": True, "type": "yarn"}
    rope_scaling["original_max_position_embeddings"] = 4096
    config = hf_config(128, 1e4, "yarn", 65536, **rope_scaling)
    ours = scaling.from_rope_scaling(
        128, 1e4, rope_scaling, max_position_embeddings=65536
    )
    assert_matches_hf(ours, hf_frequencies(config))
    assert ours[1] == pytest.approx(0.1 * math.log(16) + 1)


@pytest.mark.parametrize("factor", [None, 16.0])
def test_from_rope_scaling_reads_ministral3s_rope_parameters_as_hf_does(factor):
    """Ministral 3 keeps a copy of max_position_embeddings (which sets a missing
    yarn factor) and llama_4_scaling_beta (not a frequency) in rope_parameters."""
    config = hf().Ministral3Config(
        hidden_size=256, num_attention_heads=2, head_dim=128, num_hidden_layers=1
    )
    parameters = dict(config.rope_parameters)
    assert {"max_position_embeddings", "llama_4_scaling_beta"} <= set(parameters)
    config.rope_parameters["factor"] = parameters["factor"] = factor
    theirs = hf_frequencies(config)
    ours = scaling.from_rope_scaling(128, parameters["rope_theta"], parameters)
    assert_matches_hf(ours, theirs)
    given = scaling.from_rope_scaling(
        128,
        parameters["rope_theta"],
        parameters,
        max_position_embeddings=config.max_position_embeddings,
    )
    np.testing.assert_array_equal(given[0], ours[0])
    assert given[1] == ours[1]
    with pytest.raises(ValueError, match="max_position_embeddings=262144 is not"):
        scaling.from_rope_scaling(
            128, parameters["rope_theta"], parameters, max_position_embeddings=4096
        )


def test_ministral3s_query_scale_is_llama4_attention_scale_one_position_back():
    """from_rope_scaling's docstring: Ministral 3's query scale at p is
    llama4_attention_scale(p - 1, floor_scale=L0, attn_scale=beta); at p itself
    it steps one position early (8191 of L0 = 8192)."""
    from transformers.models.ministral3.modeling_ministral3 import (
        get_llama_4_attn_scale,
    )

    beta, L0 = 0.1, 8192
    p = np.array([0, 1, L0 - 1, L0, 2 * L0 - 1, 2 * L0, 10**6])
    theirs = get_llama_4_attn_scale(torch.tensor(p)[None], beta, L0)[0, 0, :, 0]
    ours = temperature.llama4_attention_scale(p - 1, floor_scale=L0, attn_scale=beta)
    np.testing.assert_allclose(ours, theirs.double().numpy(), rtol=1e-7)
    at_p = temperature.llama4_attention_scale(p, floor_scale=L0, attn_scale=beta)
    assert at_p[2] > 1.0 == theirs[2].item()


def test_from_rope_scaling_reads_a_yarn_truncate_of_none_as_hf_does():
    """HF reads ``get("truncate", True)`` and tests it: None does not truncate."""
    yarn = {"factor": 32.0, "original_max_position_embeddings": 4096}
    config = hf_config(64, 1.5e5, "yarn", 131072, **yarn, truncate=None)
    ours = scaling.from_rope_scaling(
        64, 1.5e5, {"rope_type": "yarn", **yarn, "truncate": None}
    )
    assert_matches_hf(ours, hf_frequencies(config))
    untruncated = scaling.yarn(64, 1.5e5, **yarn, truncate=False)
    np.testing.assert_array_equal(ours[0], untruncated[0])


@pytest.mark.parametrize("truncate", [True, False])
def test_yarn_with_equal_betas_matches_hf(truncate):
    """Kimi K2's config (DeepSeek-V3's architecture) has beta_fast = beta_slow = 1,
    which HF takes (its ramp is one pair wide, or a step at 0.001 untruncated) and
    posenc_docs refused ("beta_fast must be > beta_slow")."""
    yarn = {"factor": 32.0, "original_max_position_embeddings": 4096}
    betas = {"beta_fast": 1.0, "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0}
    config = hf_config(64, 5e4, "yarn", 131072, **yarn, **betas, truncate=truncate)
    ours = scaling.from_rope_scaling(
        64, 5e4, {"type": "yarn", **yarn, **betas, "truncate": truncate}
    )
    assert_matches_hf(ours, hf_frequencies(config))
    kept = ours[0] == rope.inv_freq(64, 5e4)
    assert 0 < kept.sum() < 32  # fast pairs kept, slow ones interpolated


def test_from_rope_scaling_refuses_one_dict_per_layer_type():
    from transformers import Gemma3TextConfig

    per_layer = Gemma3TextConfig().rope_parameters  # Gemma 3: local and global
    with pytest.raises(ValueError, match="one dict per layer type.*pass one"):
        scaling.from_rope_scaling(256, 1e4, per_layer)
    local = per_layer["sliding_attention"]
    assert scaling.from_rope_scaling(256, local["rope_theta"], local)[1] == 1.0


def test_gemma4s_layers_rotate_as_hfs_gemma4_rotary_module():
    """Gemma 4's default config: sliding layers plain RoPE on 256-wide heads, full
    layers "proportional" (p = 0.25) on 512-wide heads. Each layer type's dict,
    through from_rope_scaling and RotaryEmbedding, rotates q and k as HF's module
    and apply_rotary_pos_emb do; the full layers' still features come out as they
    went in."""
    from transformers import Gemma4TextConfig
    from transformers.models.gemma4 import modeling_gemma4

    config = Gemma4TextConfig()
    hf_rotary = modeling_gemma4.Gemma4TextRotaryEmbedding(config)
    position_ids = torch.tensor([[0, 1, 5, 17, 60]])  # (1, T): float32 angles agree
    for layer_type, d in (("sliding_attention", 256), ("full_attention", 512)):
        parameters = dict(config.rope_parameters[layer_type])
        inv_freq, factor = scaling.from_rope_scaling(
            d, parameters["rope_theta"], parameters
        )
        q, k, _ = random_qk_and_positions(d, T=5, dtype=torch.float32)
        cos, sin = hf_rotary(q, position_ids, layer_type)
        theirs = [modeling_gemma4.apply_rotary_pos_emb(t, cos, sin) for t in (q, k)]
        module = rope.RotaryEmbedding(d, inv_freq=inv_freq, attention_factor=factor)
        ours = module(q, k, positions=position_ids)
        for a, b in zip(ours, theirs, strict=True):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    still = torch.cat([torch.arange(64, 256), torch.arange(320, 512)])  # 3/4 of pairs
    torch.testing.assert_close(ours[0][..., still], q[..., still], rtol=0, atol=0)
    assert not torch.allclose(ours[0][..., :64], q[..., :64])


@pytest.mark.parametrize("seq_len", [2000, 8000])
def test_from_rope_scaling_takes_phi3s_top_level_pretraining_length_first(seq_len):
    """Phi-3 keeps L0 = original_max_position_embeddings outside rope_scaling;
    transformers gives it priority, so must we (else L0 = 131,072: no attention
    factor and the short factors at 8,000 tokens)."""
    from transformers import Phi3Config

    lists = {
        "short_factor": [1 + i / 16 for i in range(16)],
        "long_factor": [2 + i / 8 for i in range(16)],
    }
    lengths = {"max_position_embeddings": 131072}
    config = Phi3Config(
        hidden_size=32, num_attention_heads=1, original_max_position_embeddings=4096,
        rope_scaling={"type": "longrope", **lists}, **lengths,
    )  # fmt: skip
    ours = scaling.from_rope_scaling(
        32, 1e4, {"type": "longrope", **lists}, **lengths, seq_len=seq_len,
        original_max_position_embeddings=4096,
    )  # fmt: skip
    assert_matches_hf(ours, hf_frequencies(config, seq_len))
    assert ours[1] > 1.19  # sqrt(1 + ln 32 / ln 4096): L0 was taken


def test_from_rope_scaling_takes_phi35_moes_mscales_as_phimoe_scales_cos_and_sin():
    """Phi-3.5-MoE's longrope dict adds short_mscale and long_mscale, which
    transformers' PhimoeRotaryEmbedding puts on cos and sin (refused here before,
    and without them the rule gave 1.190 where the model uses 1.243). Up to L0 its
    cos and sin are ours; past L0 its factor is long_mscale as ours, but it keeps
    the short factors (Microsoft's and vLLM's code switch both), so only the
    factor is compared there."""
    from transformers import PhimoeConfig
    from transformers.models.phimoe.modeling_phimoe import PhimoeRotaryEmbedding

    d, lists = 8, {"short_factor": [1, 1.5, 2, 3], "long_factor": [2, 4, 8, 16]}
    parameters = {"type": "longrope", **lists, "short_mscale": 1.1,
                  "long_mscale": 1.3, "original_max_position_embeddings": 4096,
                  "rope_theta": 1e4}  # fmt: skip
    config = PhimoeConfig(
        hidden_size=4 * d, num_attention_heads=4, num_key_value_heads=4,
        max_position_embeddings=131072, rope_scaling=dict(parameters),
        num_hidden_layers=1, num_local_experts=2, intermediate_size=16,
    )  # fmt: skip
    module, x = PhimoeRotaryEmbedding(config), torch.zeros(1, 1, 1, d)
    for seq_len, mscale in [(4096, 1.1), (5000, 1.3)]:
        positions = torch.arange(seq_len - 3, seq_len)[None]
        cos, sin = module(x, positions)
        inv_freq, factor = scaling.from_rope_scaling(
            d, 1e4, parameters, max_position_embeddings=131072, seq_len=seq_len
        )
        assert factor == mscale
        assert torch.allclose(torch.hypot(cos, sin), torch.tensor(mscale))
        if seq_len <= 4096:
            frequencies = torch.from_numpy(inv_freq).float().tile(2)  # half layout
            angle = positions[..., None].float() * frequencies  # float32, as HF
            torch.testing.assert_close(cos, factor * angle.cos())
            torch.testing.assert_close(sin, factor * angle.sin())


def test_from_rope_scaling_reads_rope_type_mrope_as_default_as_hf_does():
    """Qwen2-VL's configs may say "mrope" under rope_type as well as under the
    legacy type; transformers reads both as "default" (refused here before)."""
    from transformers import Qwen2VLConfig

    for key in ("type", "rope_type"):
        text = {"rope_scaling": {key: "mrope", "mrope_section": [2, 3, 3]},
                "rope_theta": 1e6, "hidden_size": 32,
                "num_attention_heads": 2}  # fmt: skip
        parameters = dict(text["rope_scaling"])  # the config rewrites its own
        config = Qwen2VLConfig(text_config=text).text_config
        assert config.rope_parameters["rope_type"] == "default"
        ours = scaling.from_rope_scaling(16, 1e6, parameters)
        assert_matches_hf(ours, hf_frequencies(config))


@pytest.mark.parametrize("fraction", [0, -0.5, 1.5, float("nan"), "1/4"])
def test_from_rope_scaling_refuses_a_bad_partial_rotary_factor(fraction):
    with pytest.raises((TypeError, ValueError), match="partial_rotary_factor"):
        scaling.from_rope_scaling(
            32,
            1e4,
            {"rope_type": "linear", "factor": 2.0, "partial_rotary_factor": fraction},
        )


YARN_4K = {"factor": 4.0, "original_max_position_embeddings": 4096}
LONGROPE_1K = {"short_factor": [1.0] * 32, "long_factor": [4.0] * 32}
LONGROPE_1K["original_max_position_embeddings"] = 1024
WRONG_FREQUENCIES = {  # (HF rope_type, params, max_pos, seq_len, a wrong "ours")
    "base 0.01% off": (
        "linear", {"factor": 4.0}, 1024, None, scaling.linear(64, 1.0001e4, factor=4.0)
    ),
    "static NTK base for dynamic": (
        "dynamic", {"factor": 4.0}, 1024, 4096, scaling.ntk(64, factor=4.0)
    ),
    "yarn not truncated": (
        "yarn", YARN_4K, 16384, None, scaling.yarn(64, **YARN_4K, truncate=False)
    ),
    "yarn ignoring mscale": (
        "yarn", {**YARN_4K, "mscale": 2.0, "mscale_all_dim": 1.0}, 16384, None,
        scaling.yarn(64, **YARN_4K),
    ),
    "longrope short factors past L0": (
        "longrope", LONGROPE_1K, 4096, 1025,
        scaling.longrope(64, **LONGROPE_1K, max_position_embeddings=4096, seq_len=1024),
    ),
}  # fmt: skip


@pytest.mark.parametrize("wrong", WRONG_FREQUENCIES)
def test_frequency_comparison_detects_a_wrong_variant(wrong):
    rope_type, params, max_pos, seq_len, ours = WRONG_FREQUENCIES[wrong]
    theirs = hf_frequencies(hf_config(64, 1e4, rope_type, max_pos, **params), seq_len)
    with pytest.raises(AssertionError):
        assert_matches_hf(ours, theirs)


def run_hf_rotary(rotary, seq_len):
    """One forward of HF's rotary module, so that dynamic_rope_update runs."""
    rotary(torch.zeros(1), torch.arange(seq_len)[None])  # position_ids (1, T)
    return rotary.inv_freq.double().numpy(), rotary.attention_scaling


@pytest.mark.parametrize(
    "d, base, factor, L0",
    [(8, 1e4, 2.5, 512), (64, 5e5, 8.0, 512), (96, 1e4, 1.0, 4096)],
)
def test_dynamic_ntk_matches_hf_dynamic_rope_update_at_run_time(d, base, factor, L0):
    """HF recomputes only when the length grows past the longest seen, and resets
    below L0: at each step ours matches at the length HF then uses."""
    config = hf_config(d, base, "dynamic", L0, factor=factor)
    rotary = hf().modeling_llama.LlamaRotaryEmbedding(config)
    steps = [(L0 // 2, L0), (3 * L0, 3 * L0), (2 * L0, 3 * L0), (L0, 3 * L0)]
    steps += [(L0 - 1, L0), (5 * L0 // 2, 5 * L0 // 2)]  # (seq_len, length HF uses)
    for seq_len, length in steps:
        ours = scaling.dynamic_ntk(
            d, base, factor=factor, max_position_embeddings=L0, seq_len=length
        )
        assert_matches_hf(ours, run_hf_rotary(rotary, seq_len), f"{seq_len=}")


def test_longrope_matches_hf_dynamic_rope_update_at_run_time():
    d, L0, extended = 64, 1024, 8192
    lists = {"short_factor": [1.0 + i / 32 for i in range(32)]}
    lists["long_factor"] = [2.0 + i for i in range(32)]
    lengths = {"original_max_position_embeddings": L0}
    config = hf_config(d, 1e4, "longrope", extended, **lists, **lengths)
    lengths["max_position_embeddings"] = extended
    rotary = hf().modeling_llama.LlamaRotaryEmbedding(config)
    for seq_len in (L0, L0 + 1, 4 * L0, L0 // 2):
        ours = scaling.longrope(d, **lengths, **lists, seq_len=seq_len)
        assert_matches_hf(ours, run_hf_rotary(rotary, seq_len), f"{seq_len=}")


# ---------------------------------------------------------------- deviations


@pytest.mark.parametrize("L0, truncate", [(3, True), (4, True), (6, False)])
def test_yarn_raises_where_hf_silently_returns_unscaled_frequencies(L0, truncate):
    """L0 < 2*pi*beta_slow puts HF's ramp bounds at high < low = 0: nothing scaled."""
    yarn = {"factor": 4.0, "original_max_position_embeddings": L0}
    config = hf_config(64, 1e4, "yarn", 4 * L0, **yarn, truncate=truncate)
    hf_freq, _ = hf_frequencies(config)
    np.testing.assert_allclose(hf_freq, rope.inv_freq(64, 1e4), rtol=HF_RTOL)
    with pytest.raises(ValueError, match="^original_max_position_embeddings must"):
        scaling.yarn(64, **yarn, truncate=truncate)


def test_ntk_methods_reject_d_2_where_hf_divides_by_zero():
    """The NTK exponent d/(d-2) needs d >= 4; HF's d=2 fails with ZeroDivisionError."""
    with pytest.raises(ZeroDivisionError):
        hf_frequencies(hf_config(2, 1e4, "dynamic", 512, factor=2.0), 1024)
    with pytest.raises(ValueError, match="^d must"):
        scaling.ntk(2, factor=2.0)
    with pytest.raises(ValueError, match="^d must"):
        scaling.dynamic_ntk(2, factor=2.0, max_position_embeddings=512, seq_len=1024)


# ---------------------------------------------------------------- rotation


def outputs_and_grads(rotate, q, k, seed=0):
    """Rotated q, k and the gradients of a random linear loss w.r.t. q and k."""
    q, k = q.clone().requires_grad_(), k.clone().requires_grad_()
    q_out, k_out = rotate(q, k)
    generator = torch.Generator().manual_seed(seed)
    weights = torch.randn(2, *q_out.shape, dtype=q.dtype, generator=generator)
    loss = (weights[0] * q_out).sum() + (weights[1] * k_out).sum()
    return (q_out.detach(), k_out.detach(), *torch.autograd.grad(loss, (q, k)))


def assert_all_close(ours, theirs, atol=1e-12):
    for name, a, b in zip(("q", "k", "dL/dq", "dL/dk"), ours, theirs, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=atol, msg=name)


def random_qk_and_positions(d, B=2, H=3, T=7, dtype=torch.float64):
    generator = torch.Generator().manual_seed(d)
    q, k = torch.randn(2, B, H, T, d, dtype=dtype, generator=generator)  # (B, H, T, d)
    positions = torch.randint(0, 10_000, (B, T), generator=generator)  # (B, T)
    return q, k, positions


def ours_rotate(positions, inv_freq, layout):
    """Our torch RoPE on (B, H, T, d) with per-sequence positions (B, T)."""
    theta = torch.as_tensor(inv_freq, dtype=torch.float64)
    return lambda q, k: tuple(
        rope.apply_rope_torch(x, positions[:, None], layout=layout, inv_freq=theta)
        for x in (q, k)
    )


def llama_rotate(positions, inv_freq):
    """HF LLaMA: cos/sin laid out as LlamaRotaryEmbedding does, but in float64."""
    freqs = positions[..., None].double() * torch.as_tensor(inv_freq)  # (B, T, d/2)
    emb = torch.cat((freqs, freqs), dim=-1)  # (B, T, d)
    apply = hf().modeling_llama.apply_rotary_pos_emb
    return lambda q, k: apply(q, k, emb.cos(), emb.sin())


def gptj_rotate(positions, inv_freq):
    """HF GPT-J: sin/cos (B, T, d/2) on (B, T, H, d) tensors, hence the transposes."""
    freqs = positions[..., None].double() * torch.as_tensor(inv_freq)  # (B, T, d/2)
    return lambda q, k: tuple(
        hf()
        .modeling_gptj.apply_rotary_pos_emb(x.transpose(1, 2), freqs.sin(), freqs.cos())
        .transpose(1, 2)
        for x in (q, k)
    )


YARN_8X_512 = {"factor": 8.0, "original_max_position_embeddings": 512}
FREQUENCIES = {
    "base 1e4": lambda d: rope.inv_freq(d, 1e4),
    "base 5e5": lambda d: rope.inv_freq(d, 5e5),
    "yarn s=8": lambda d: scaling.yarn(d, **YARN_8X_512)[0],
}
LAYOUT_CASES = {"half": llama_rotate, "interleaved": gptj_rotate}


@pytest.mark.parametrize("layout", LAYOUT_CASES)
@pytest.mark.parametrize("frequencies", FREQUENCIES)
@pytest.mark.parametrize("d", [2, 8, 64])
def test_rotation_and_its_gradients_match_hf(d, frequencies, layout):
    q, k, positions = random_qk_and_positions(d)
    inv_freq = FREQUENCIES[frequencies](d)
    theirs = outputs_and_grads(LAYOUT_CASES[layout](positions, inv_freq), q, k)
    ours = outputs_and_grads(ours_rotate(positions, inv_freq, layout), q, k)
    assert_all_close(ours, theirs)


@pytest.mark.parametrize("layout", LAYOUT_CASES)
def test_rotation_comparison_detects_the_other_layout(layout):
    q, k, positions = random_qk_and_positions(64)
    inv_freq = rope.inv_freq(64)
    theirs = outputs_and_grads(LAYOUT_CASES[layout](positions, inv_freq), q, k)
    other = "half" if layout == "interleaved" else "interleaved"
    wrong = outputs_and_grads(ours_rotate(positions, inv_freq, other), q, k)
    with pytest.raises(AssertionError):
        assert_all_close(wrong, theirs)


def test_llama_rotary_module_end_to_end_applies_the_attention_factor():
    """HF's float32 module: cos and sin are multiplied by YaRN's attention factor."""
    d, T = 64, 64
    config = hf_config(d, 1e4, "yarn", 4096, **YARN_8X_512)
    q, k, _ = random_qk_and_positions(d, T=T, dtype=torch.float32)
    positions = torch.arange(T)[None]  # (1, T)
    cos, sin = hf().modeling_llama.LlamaRotaryEmbedding(config)(q, positions)
    theirs = hf().modeling_llama.apply_rotary_pos_emb(q, k, cos, sin)
    inv_freq, factor = scaling.yarn(d, **YARN_8X_512)
    ours = ours_rotate(positions, inv_freq, "half")(q.double(), k.double())
    assert factor > 1.2  # large enough for the check below to matter
    for a, b in zip(ours, theirs, strict=True):  # float32 angles up to 63 rad
        torch.testing.assert_close(a * factor, b.double(), rtol=1e-5, atol=1e-5)
        assert not torch.allclose(a, b.double(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seq_len", [48, 200])  # short factors, then long ones
def test_partial_rope_with_scaled_frequencies_is_phi3s_partial_longrope(seq_len):
    """Phi-4-mini's kind of config: LongRoPE on 3/4 of each head. The config's
    rope_parameters with the head width go to from_rope_scaling; the frequencies
    to apply_partial_rope_torch; the attention factor scales the rotated features
    only, as HF's cos and sin carry it."""
    from transformers import Phi3Config
    from transformers.models.phi3 import modeling_phi3

    from posenc_docs.partial_rotary import apply_partial_rope_torch

    head_dim, share, L0 = 32, 0.75, 64
    pairs = int(head_dim * share) // 2
    lists = {"short_factor": [1.0 + i / 8 for i in range(pairs)]}
    lists["long_factor"] = [2.0 + i for i in range(pairs)]
    config = Phi3Config(
        hidden_size=2 * head_dim, num_attention_heads=2, partial_rotary_factor=share,
        max_position_embeddings=256, original_max_position_embeddings=L0,
        rope_scaling={"type": "longrope", **lists},
    )  # fmt: skip
    q, k, _ = random_qk_and_positions(head_dim, T=6, dtype=torch.float32)
    position_ids = torch.tensor([[0, 1, 7, 30, 47, seq_len - 1]])  # (1, T)
    cos, sin = modeling_phi3.Phi3RotaryEmbedding(config)(q, position_ids)
    theirs = modeling_phi3.apply_rotary_pos_emb(q, k, cos, sin)
    inv_freq, factor = scaling.from_rope_scaling(
        head_dim, config.rope_parameters["rope_theta"], config.rope_parameters,
        max_position_embeddings=256, original_max_position_embeddings=L0,
        seq_len=seq_len,
    )  # fmt: skip
    r = 2 * len(inv_freq)
    assert r == 24 and factor > 1.1  # sqrt(1 + ln 4 / ln 64), at every length
    for ours, hf_out in zip((q, k), theirs, strict=True):
        ours = apply_partial_rope_torch(
            ours, position_ids[0], rotary_dim=r, inv_freq=torch.from_numpy(inv_freq)
        )
        scale = torch.ones(head_dim).index_fill(0, torch.arange(r), factor)
        torch.testing.assert_close(ours * scale, hf_out, rtol=1e-5, atol=1e-5)
    module = rope.RotaryEmbedding(
        head_dim, rotary_dim=r, inv_freq=inv_freq, attention_factor=factor
    )  # the same in one module: the factor on the rotated features alone
    for ours, hf_out in zip(module(q, k, positions=position_ids), theirs, strict=True):
        torch.testing.assert_close(ours, hf_out, rtol=1e-5, atol=1e-5)


def test_rotary_module_takes_hfs_position_ids_of_a_left_padded_batch():
    """RotaryEmbedding(positions=position_ids) against HF's module and
    apply_rotary_pos_emb, with YaRN's attention factor: row 0 is left-padded (its
    pad tokens at position 1, as HF's generate writes them), row 1 is not."""
    d, T = 64, 6
    config = hf_config(d, 1e4, "yarn", 4096, **YARN_8X_512)
    q, k, _ = random_qk_and_positions(d, T=T, dtype=torch.float32)
    position_ids = torch.tensor([[1, 1, 0, 1, 2, 3], [0, 1, 2, 3, 4, 5]])  # (B, T)
    cos, sin = hf().modeling_llama.LlamaRotaryEmbedding(config)(q, position_ids)
    theirs = hf().modeling_llama.apply_rotary_pos_emb(q, k, cos, sin)
    inv_freq, factor = scaling.yarn(d, **YARN_8X_512)
    module = rope.RotaryEmbedding(d, inv_freq=inv_freq, attention_factor=factor)
    ours = module(q, k, positions=position_ids)
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6)
    row = module(q[1:], k[1:], 0)  # the unpadded row: as the offset call
    torch.testing.assert_close(ours[0][1:], row[0], rtol=0, atol=0)


def test_gptj_sinusoidal_table_is_our_sin_then_cos_at_base_1e4():
    d, n_positions = 64, 128
    gptj = hf().modeling_gptj
    table = gptj.create_sinusoidal_positions(n_positions, d)  # (T, d) float32
    angle = rope.angles(np.arange(n_positions), rope.inv_freq(d))  # (T, d/2)
    ours = np.concatenate([np.sin(angle), np.cos(angle)], axis=-1)
    np.testing.assert_allclose(table.double().numpy(), ours, atol=2e-5)  # angles < 128
    wrong = rope.angles(np.arange(n_positions), rope.inv_freq(d, 5e5))
    assert not np.allclose(table.numpy()[:, : d // 2], np.sin(wrong), atol=2e-5)


@pytest.mark.parametrize(
    ("model", "length", "error", "message"),
    [
        ("gpt2", 1025, IndexError, "index out of range in self"),
        ("bert", 513, RuntimeError, "The expanded size of the tensor (513) must "
         "match the existing size (512)"),
    ],
)  # fmt: skip
def test_the_errors_03_quotes_are_what_hf_raises_one_token_past_the_table(
    model, length, error, message
):
    """03-learned quotes them: GPT-2 fails in the embedding lookup, BERT before it."""
    from transformers import BertConfig, BertModel, GPT2Config, GPT2Model

    tiny = {
        "gpt2": lambda: GPT2Model(GPT2Config(n_layer=1, n_embd=32, n_head=2)),
        "bert": lambda: BertModel(
            BertConfig(num_hidden_layers=1, hidden_size=32, num_attention_heads=2,
                       intermediate_size=64)
        ),
    }[model]()  # fmt: skip
    with pytest.raises(error, match=re.escape(message)):
        tiny(input_ids=torch.zeros(1, length, dtype=torch.long))
    page = (Path(__file__).parents[1] / "docs/part2/03-learned.md").read_text()
    assert message in " ".join(page.split())


# ---------------------------------------------------------------- ALiBi


def bloom_bias(n_heads, k_len):
    """BLOOM's (n_heads, 1, k_len) bias slope * key index, for an unpadded row."""
    mask = torch.ones(1, k_len, dtype=torch.long)
    bias = hf().build_alibi_tensor(mask, n_heads, torch.float64)
    return bias.numpy()  # float32 values


def test_slopes_match_bloom_for_1_to_64_heads():
    """Exact when every slope is a power of two (n <= 8); otherwise HF raises a
    float32-rounded base to powers up to 2n - 1 in float32 (measured <= 8*2**-24)."""
    for n_heads in range(1, 65):
        hf = bloom_bias(n_heads, 2)[:, 0, 1]  # slope * key index 1
        ours = alibi.alibi_slopes(n_heads)
        np.testing.assert_allclose(ours, hf, rtol=1e-6, atol=0, err_msg=f"{n_heads=}")
        if n_heads <= 8:
            np.testing.assert_array_equal(ours.astype(np.float32), hf)


def test_slope_comparison_detects_the_prose_formula():
    for n_heads in (3, 6, 12, 24, 48):
        hf = bloom_bias(n_heads, 2)[:, 0, 1]
        with pytest.raises(AssertionError):
            np.testing.assert_allclose(prose_alibi_slopes(n_heads), hf, rtol=1e-6)


def causal_bloom_bias(n_heads, q_len, k_len):
    """BLOOM's bias for the last q_len queries, (H, q, k), -inf on future keys, and
    each row's own-key value (its max), (H, q, 1)."""
    query_pos = np.arange(k_len - q_len, k_len)  # (q,)
    future = np.arange(k_len) > query_pos[:, None]  # (q, k)
    bloom = np.where(future, -np.inf, bloom_bias(n_heads, k_len))  # (H, q, k)
    return bloom, bloom[:, np.arange(q_len), query_pos][..., None]


def softmax(scores):
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("q_len, k_len", [(9, 9), (3, 9), (1, 16)])
def test_bias_matches_bloom_up_to_a_row_constant(q_len, k_len):
    """BLOOM's slopes are float32 (rel <= 5e-7) times key indices < k_len, on both
    sides of the row difference: atol 1e-6 * k_len (measured <= 9.6e-7)."""
    atol = 1e-6 * k_len
    scores = np.random.default_rng(0).standard_normal((64, q_len, k_len))
    for n_heads in range(1, 65):
        bloom, row_max = causal_bloom_bias(n_heads, q_len, k_len)
        ours = alibi.alibi_bias(n_heads, q_len, k_len)
        ours_torch = alibi.alibi_bias_torch(n_heads, q_len, k_len, dtype=torch.float64)
        logits = scores[:n_heads]
        for bias in (ours, ours_torch.numpy()):
            np.testing.assert_allclose(bias, bloom - row_max, rtol=0, atol=atol)
            np.testing.assert_allclose(
                softmax(logits + bias), softmax(logits + bloom), rtol=0, atol=atol
            )


def test_bias_comparison_detects_the_prose_slopes():
    n_heads, q_len, k_len = 12, 9, 9
    bloom, _ = causal_bloom_bias(n_heads, q_len, k_len)
    distance = np.subtract.outer(np.arange(q_len), np.arange(k_len))  # (q, k)
    slopes = prose_alibi_slopes(n_heads)[:, None, None]  # (H, 1, 1)
    wrong = np.where(distance >= 0, -slopes * distance, -np.inf)  # (H, q, k)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(softmax(wrong), softmax(bloom), atol=1e-5)
