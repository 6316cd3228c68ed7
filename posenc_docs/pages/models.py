"""Published configuration values of real models: the site's single source for them.

Every claim on the site about which model uses which position scheme or context
extension method reads it from here. Each entry names the file its numbers come from
(``source``); ``checked`` says where that file was read (the Hugging Face Hub page of
the model, or a verbatim copy of it on the Hub when the original is gated). Values a
config file leaves out are marked in ``note`` with where the default comes from.

Field names follow Hugging Face ``config.json`` where one exists: ``rope_theta``,
``max_position_embeddings`` and ``rope_scaling`` (a dict with ``rope_type`` and the
method's parameters, as accepted by `posenc_docs.scaling`).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

SCHEMES = ("sinusoidal", "learned", "rope", "alibi", "t5-bias")


@dataclass(frozen=True)
class ModelConfig:
    """Position-related configuration of one published model.

    Attributes
    ----------
    name : str
        Model name as published (Hub id without the organisation).
    scheme : str
        Position scheme, one of `SCHEMES`.
    hidden_size, num_heads, head_dim : int
        Width of the residual stream, attention heads, width of one head.
    max_position_embeddings : int or None
        Longest position the config allows; None when the scheme has no table.
    rope_theta : float or None
        RoPE base b (``rope_theta`` / ``rotary_emb_base``).
    rotary_dim : int or None
        Dimensions of a head that are rotated (``head_dim`` unless partial).
    rope_layout : str or None
        ``"half"`` (pair i = (x[i], x[i+d/2])) or ``"interleaved"``.
    rope_scaling : Mapping or None
        Context extension parameters, HF style, with ``rope_type``.
    extra : Mapping
        Other scheme fields (ALiBi flags, T5 buckets, sliding window, ...).
    source : str
        The published file the values come from.
    checked : str
        Where that file was read.
    note : str
        Defaults filled in, caveats.
    trained_length : int or None
        Longest sequence the published training used, when a source states it;
        it can differ from ``max_position_embeddings`` (the configured ceiling).
    trained_length_source : str
        Where ``trained_length`` is stated.
    """

    name: str
    scheme: str
    hidden_size: int
    num_heads: int
    head_dim: int
    max_position_embeddings: int | None
    source: str
    checked: str
    rope_theta: float | None = None
    rotary_dim: int | None = None
    rope_layout: str | None = None
    rope_scaling: Mapping | None = None
    extra: Mapping = field(default_factory=dict)
    note: str = ""
    trained_length: int | None = None
    trained_length_source: str = ""

    def __post_init__(self):
        if self.scheme not in SCHEMES:  # the site's own table: no _checks (torch)
            raise ValueError(f"scheme must be one of {SCHEMES}, got {self.scheme!r}")
        for name in ("rope_scaling", "extra"):  # read-only views: no edits by pages
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, MappingProxyType(dict(value)))


_HUB = "https://huggingface.co/"

# Phi-3-mini-128k-instruct, rope_scaling (48 = head_dim/2 values each). long_factor
# entries 0-29 were read on the Hub page of config.json; the full lists from a
# Microsoft evaluation script that repeats the config's values.
PHI3_MINI_128K_LONG_FACTOR = (
    1.0700000524520874, 1.1200000047683716, 1.149999976158142, 1.4199999570846558,
    1.5699999332427979, 1.7999999523162842, 2.129999876022339, 2.129999876022339,
    3.009999990463257, 5.910000324249268, 6.950000286102295, 9.070000648498535,
    9.930000305175781, 10.710000038146973, 11.130000114440918, 14.609999656677246,
    15.409998893737793, 19.809999465942383, 37.279998779296875, 38.279998779296875,
    38.599998474121094, 40.12000274658203, 46.20000457763672, 50.940006256103516,
    53.66000747680664, 54.9373893737793, 56.89738845825195, 57.28738784790039,
    59.98738479614258, 60.86738586425781, 60.887386322021484, 61.71739196777344,
    62.91739273071289, 62.957393646240234, 63.41739273071289, 63.8173942565918,
    63.83739471435547, 63.897396087646484, 63.93739700317383, 64.06739807128906,
    64.11434936523438, 64.12435150146484, 64.15435028076172, 64.19435119628906,
    64.24435424804688, 64.57435607910156, 64.69000244140625, 64.76000213623047,
)  # fmt: skip
PHI3_MINI_128K_SHORT_FACTOR = (
    (1.1,) * 3 + (1.3000000000000003,) + (1.3500000000000003,) * 2
    + (1.4000000000000004, 1.5500000000000005) + (2.000000000000001,) * 17
    + (2.0500000000000007,) * 6 + (2.1000000000000005,) * 2
    + (2.1500000000000004,) + (2.25,) * 5
    + (2.3999999999999995, 2.4499999999999993, 2.499999999999999)
    + (2.6999999999999984,) * 2
    + (2.7499999999999982, 2.799999999999998, 2.8999999999999977, 3.049999999999997)
)  # fmt: skip

_ENTRIES = [
    ModelConfig(
        name="Transformer (base)",
        scheme="sinusoidal",
        hidden_size=512,
        num_heads=8,
        head_dim=64,
        max_position_embeddings=None,
        source="Vaswani et al. 2017, Attention Is All You Need, Table 3 (base model)",
        checked="arXiv:1706.03762",
        extra={"base": 10000},
        note="Sinusoids are computed, not stored: there is no table and no limit.",
    ),
    ModelConfig(
        name="GPT-2 (124M)",
        scheme="learned",
        hidden_size=768,
        num_heads=12,
        head_dim=64,
        max_position_embeddings=1024,
        source="openai-community/gpt2 config.json (n_positions, n_embd, n_head)",
        checked=_HUB + "openai-community/gpt2/blob/main/config.json",
    ),
    ModelConfig(
        name="BERT-base",
        scheme="learned",
        hidden_size=768,
        num_heads=12,
        head_dim=64,
        max_position_embeddings=512,
        source="google-bert/bert-base-uncased config.json",
        checked="Hub duplicate rayTest/bert-base-uncased (from google-bert)",
        extra={"position_embedding_type": "absolute"},
    ),
    ModelConfig(
        name="T5 v1.1 base",
        scheme="t5-bias",
        hidden_size=768,
        num_heads=12,
        head_dim=64,
        max_position_embeddings=None,
        source="google/t5-v1_1-base config.json (d_model, num_heads, d_kv)",
        checked="Hub copies of the config (_name_or_path google/t5-v1_1-base)",
        extra={
            "relative_attention_num_buckets": 32,
            "relative_attention_max_distance": 128,
            "num_layers": 12,
            "num_decoder_layers": 12,
        },
        note="One bias table per stack (encoder, decoder self-attention).",
    ),
    ModelConfig(
        name="GPT-NeoX-20B",
        scheme="rope",
        hidden_size=6144,
        num_heads=64,
        head_dim=96,
        max_position_embeddings=2048,
        rope_theta=10000.0,
        rotary_dim=24,
        rope_layout="half",
        source="EleutherAI/gpt-neox-20b config.json (rotary_pct 0.25)",
        checked="Hub copies of the config (_name_or_path EleutherAI/gpt-neox-20b)",
        extra={"rotary_pct": 0.25},
        note="rotary_dim = int(96 * 0.25): 72 of 96 head dims carry no position.",
    ),
    ModelConfig(
        name="GPT-J-6B",
        scheme="rope",
        hidden_size=4096,
        num_heads=16,
        head_dim=256,
        max_position_embeddings=2048,
        rope_theta=10000.0,
        rotary_dim=64,
        rope_layout="interleaved",
        source="EleutherAI/gpt-j-6b config.json (n_positions, rotary_dim)",
        checked="Hub copies of the config (_name_or_path EleutherAI/gpt-j-6B)",
        note="Base 10000 is fixed in the model code, not in config.json.",
    ),
    ModelConfig(
        name="Falcon-7B",
        scheme="rope",
        hidden_size=4544,
        num_heads=71,
        head_dim=64,
        max_position_embeddings=2048,
        rope_theta=10000.0,
        rotary_dim=64,
        rope_layout="half",
        source="tiiuae/falcon-7b config.json (alibi: false, so rotary)",
        checked="Hub duplicate justinpinkney/falcon-7b and in-library copies",
        extra={"alibi": False, "multi_query": True},
        note="config.json leaves out max_position_embeddings and rope_theta; "
        "these are FalconConfig defaults (as saved by newer transformers).",
    ),
    ModelConfig(
        name="Llama-2-7B",
        scheme="rope",
        hidden_size=4096,
        num_heads=32,
        head_dim=128,
        max_position_embeddings=4096,
        rope_theta=10000.0,
        rotary_dim=128,
        rope_layout="half",
        source="meta-llama/Llama-2-7b-hf config.json",
        checked="Hub copies of the config (_name_or_path meta-llama/Llama-2-7b-hf)",
        trained_length=4096,
        trained_length_source="Touvron et al. 2023, Llama 2, section 2.2 "
        "(context length doubled from 2,048 to 4,096)",
    ),
    ModelConfig(
        name="Vicuna-7B-v1.5-16k",
        scheme="rope",
        hidden_size=4096,
        num_heads=32,
        head_dim=128,
        max_position_embeddings=4096,
        rope_theta=10000.0,
        rotary_dim=128,
        rope_layout="half",
        rope_scaling={"rope_type": "linear", "factor": 4.0},
        source="lmsys/vicuna-7b-v1.5-16k config.json",
        checked=_HUB + "lmsys/vicuna-7b-v1.5-16k/blame/f66ac03/config.json",
        note="A Llama 2 7B fine-tune; config omits rope_theta (LlamaConfig "
        "default 10000).",
    ),
    ModelConfig(
        name="CodeLlama-7B",
        scheme="rope",
        hidden_size=4096,
        num_heads=32,
        head_dim=128,
        max_position_embeddings=16384,
        rope_theta=1000000.0,
        rotary_dim=128,
        rope_layout="half",
        source="codellama/CodeLlama-7b-hf config.json",
        extra={"base_model": "Llama-2-7B", "base_model_rope_theta": 10000.0},
        note="rope_theta was raised from Llama 2's 10,000 to 10^6 before long-"
        "context fine-tuning (Code Llama paper, section 2.4).",
        checked="Hub copy loubnabnl/CodeLlama-7b-hf (HF staff) and derived configs",
        trained_length=16384,
        trained_length_source="Roziere et al. 2023, Code Llama, section 2.4 "
        "(long context fine-tuning on 16,384-token sequences)",
    ),
    ModelConfig(
        name="Qwen-7B",
        scheme="rope",
        hidden_size=4096,
        num_heads=32,
        head_dim=128,
        max_position_embeddings=32768,
        rope_theta=10000.0,
        rotary_dim=128,
        rope_layout="half",
        source="Qwen/Qwen-7B config.json (seq_length, use_dynamic_ntk)",
        checked=_HUB + "Qwen/Qwen-7B/blob/d4efd21/config.json",
        extra={"seq_length": 8192, "use_dynamic_ntk": True, "use_logn_attn": True},
        note="Trained at seq_length 8192; its own code grows the base with the "
        "length (a dynamic NTK variant), not HF's rope_type 'dynamic'.",
        trained_length=8192,
        trained_length_source="QwenLM/Qwen README, news of 2023-09-25: the updated "
        "Qwen-7B trains on 8,192-token sequences (the first release on 2,048); "
        "config.json seq_length",
    ),
    ModelConfig(
        name="Mistral-7B-v0.1",
        scheme="rope",
        hidden_size=4096,
        num_heads=32,
        head_dim=128,
        max_position_embeddings=32768,
        rope_theta=10000.0,
        rotary_dim=128,
        rope_layout="half",
        source="mistralai/Mistral-7B-v0.1 config.json",
        checked="Hub copies of the config (_name_or_path mistralai/Mistral-7B-v0.1)",
        extra={"sliding_window": 4096, "num_key_value_heads": 8},
        note="Each layer attends to at most sliding_window previous tokens.",
        trained_length=8192,
        trained_length_source="Jiang et al. 2023, arXiv:2310.06825, "
        "Table 1: context_len 8192",
    ),
    ModelConfig(
        name="Llama-3-8B",
        scheme="rope",
        hidden_size=4096,
        num_heads=32,
        head_dim=128,
        max_position_embeddings=8192,
        rope_theta=500000.0,
        rotary_dim=128,
        rope_layout="half",
        source="meta-llama/Meta-Llama-3-8B config.json",
        checked="Hub copies of the config (_name_or_path meta-llama/Meta-Llama-3-8B)",
        extra={"num_key_value_heads": 8},
        trained_length=8192,
        trained_length_source="Llama Team 2024, The Llama 3 Herd of Models, "
        "section 3.4 (pre-trained on 8K-token sequences)",
    ),
    ModelConfig(
        name="Llama-3.1-8B",
        scheme="rope",
        hidden_size=4096,
        num_heads=32,
        head_dim=128,
        max_position_embeddings=131072,
        rope_theta=500000.0,
        rotary_dim=128,
        rope_layout="half",
        rope_scaling={
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        source="meta-llama/Llama-3.1-8B config.json",
        checked="Hub copies of the config (_name_or_path meta-llama/Llama-3.1-8B)",
        extra={"num_key_value_heads": 8},
        trained_length=131072,
        trained_length_source="Meta's Llama 3.1 model card (context length 128k for "
        "the 8B, 70B and 405B); the schedule, 8K to 128K in six stages on about 800B "
        "tokens, is given for the 405B (The Llama 3 Herd of Models, section 3.4.2)",
    ),
    ModelConfig(
        name="Llama-3.2-1B",
        scheme="rope",
        hidden_size=2048,
        num_heads=32,
        head_dim=64,
        max_position_embeddings=131072,
        rope_theta=500000.0,
        rotary_dim=64,
        rope_layout="half",
        rope_scaling={
            "rope_type": "llama3",
            "factor": 32.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        source="meta-llama/Llama-3.2-1B config.json",
        checked="Hub duplicate Emm9625/Llama-3.2-1B-chatml (from unsloth/Llama-3.2-1B)",
        extra={"num_key_value_heads": 8},
    ),
    ModelConfig(
        name="Qwen2.5-7B-Instruct",
        scheme="rope",
        hidden_size=3584,
        num_heads=28,
        head_dim=128,
        max_position_embeddings=32768,
        rope_theta=1000000.0,
        rotary_dim=128,
        rope_layout="half",
        rope_scaling={
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 32768,
        },
        source="Qwen/Qwen2.5-7B-Instruct config.json and README "
        "('Processing Long Texts': add rope_scaling to enable YaRN)",
        checked="Hub copies of the config (_name_or_path Qwen/Qwen2.5-7B-Instruct); "
        "README section in the Qwen2.5 model cards",
        extra={"num_key_value_heads": 4, "rope_scaling_from": "the model card"},
        note="Shipped config has no rope_scaling (32,768 tokens); the model card "
        "tells users to add this YaRN block for longer inputs.",
    ),
    ModelConfig(
        name="Phi-3-mini-128k-instruct",
        scheme="rope",
        hidden_size=3072,
        num_heads=32,
        head_dim=96,
        max_position_embeddings=131072,
        rope_theta=10000.0,
        rotary_dim=96,
        rope_layout="half",
        rope_scaling={
            "rope_type": "longrope",
            "original_max_position_embeddings": 4096,
            "long_factor": PHI3_MINI_128K_LONG_FACTOR,
            "short_factor": PHI3_MINI_128K_SHORT_FACTOR,
        },
        source="microsoft/Phi-3-mini-128k-instruct config.json",
        checked=_HUB + "microsoft/Phi-3-mini-128k-instruct/blob/main/config.json",
        note="original_max_position_embeddings is a top-level field in this "
        "config; factor lists: see PHI3_MINI_128K_LONG_FACTOR.",
    ),
    ModelConfig(
        name="DeepSeek-V3",
        scheme="rope",
        hidden_size=7168,
        num_heads=128,
        head_dim=192,
        max_position_embeddings=163840,
        rope_theta=10000.0,
        rotary_dim=64,
        rope_layout="interleaved",
        rope_scaling={
            "rope_type": "yarn",
            "factor": 40.0,
            "original_max_position_embeddings": 4096,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
        },
        source="deepseek-ai/DeepSeek-V3 config.json (qk_rope_head_dim 64, "
        "qk_nope_head_dim 128)",
        checked="Hub copies of the config (DeepseekV3ForCausalLM, 671B layout)",
        extra={
            "qk_rope_head_dim": 64,
            "qk_nope_head_dim": 128,
            "kv_lora_rank": 512,
            "v_head_dim": 128,
        },
        note="Multi-head latent attention: q.k uses 128 position-free dims plus "
        "64 rotated ones, so heads * head_dim != hidden_size.",
    ),
    ModelConfig(
        name="BLOOM (176B)",
        scheme="alibi",
        hidden_size=14336,
        num_heads=112,
        head_dim=128,
        max_position_embeddings=None,
        source="bigscience/bloom config.json (n_embed, num_attention_heads) and "
        "model card ('Sequence length of 2048 tokens used')",
        checked="Hub copy joaoalvarenga/bloom-8bit (_name_or_path bigscience/bloom)",
        extra={"train_length": 2048},
        trained_length=2048,
        trained_length_source="bigscience/bloom model card (sequence length 2048)",
    ),
    ModelConfig(
        name="MPT-7B",
        scheme="alibi",
        hidden_size=4096,
        num_heads=32,
        head_dim=128,
        max_position_embeddings=2048,
        source="mosaicml/mpt-7b config.json (attn_config.alibi, max_seq_len)",
        checked="Hub copies of the config (_name_or_path mosaicml/mpt-7b)",
        extra={"alibi_bias_max": 8},
        note="max_seq_len 2048 is the trained length; with alibi on, no position "
        "table is used, so it can be raised at load time.",
        trained_length=2048,
        trained_length_source="mosaicml/mpt-7b config.json (max_seq_len)",
    ),
    ModelConfig(
        name="ModernBERT-base",
        scheme="rope",
        hidden_size=768,
        num_heads=12,
        head_dim=64,
        max_position_embeddings=8192,
        rope_theta=160000.0,
        rotary_dim=64,
        rope_layout="half",
        source="answerdotai/ModernBERT-base config.json (global_rope_theta, "
        "local_rope_theta, global_attn_every_n_layers)",
        checked="transformers ModernBertConfig defaults (documented checkpoint "
        "answerdotai/ModernBERT-base) and copies of the config fields",
        extra={"local_rope_theta": 10000.0, "global_attn_every_n_layers": 3},
        note="An encoder: every layer rotates q and k; global layers use base "
        "160,000, local (sliding-window) layers 10,000.",
    ),
    ModelConfig(
        name="nomic-embed-text-v1.5",
        scheme="rope",
        hidden_size=768,
        num_heads=12,
        head_dim=64,
        max_position_embeddings=2048,
        rope_theta=1000.0,
        rotary_dim=64,
        rope_layout="half",
        source="nomic-ai/nomic-embed-text-v1.5 config.json (rotary_emb_base, "
        "rotary_emb_fraction 1.0, rotary_emb_interleaved false)",
        checked="transformers NomicBertConfig defaults (documented checkpoint "
        "nomic-ai/nomic-embed-text-v1.5) and copies of the config fields",
        extra={"architecture": "NomicBERT", "n_positions": 8192},
        note="A BERT-style encoder with RoPE and no position table.",
    ),
    ModelConfig(
        name="Phi-2",
        scheme="rope",
        hidden_size=2560,
        num_heads=32,
        head_dim=80,
        max_position_embeddings=2048,
        rope_theta=10000.0,
        rotary_dim=32,
        rope_layout="half",
        source="microsoft/phi-2 config.json (partial_rotary_factor 0.4)",
        checked="verbatim copy in sdpython/experimental-experiment, "
        "_doc/recipes/plot_exporter_recipes_c_phi2.py (cites "
        + _HUB
        + "microsoft/phi-2/blob/main/config.json)",
        extra={"partial_rotary_factor": 0.4, "num_key_value_heads": 32},
        note="rotary_dim = int(80 * 0.4): 48 of 80 head dims carry no position.",
    ),
    ModelConfig(
        name="Yi-6B",
        scheme="rope",
        hidden_size=4096,
        num_heads=32,
        head_dim=128,
        max_position_embeddings=4096,
        rope_theta=5000000.0,
        rotary_dim=128,
        rope_layout="half",
        source="01-ai/Yi-6B config.json (rope_theta 5000000.0)",
        checked="InternLM/InternEvo-HFModels, huggingface_model/yi/yi_6B/"
        "configuration_yi.py: a YiConfig whose defaults are Yi-6B's values",
        extra={"num_key_value_heads": 4},
        note="Trained at 4,096 tokens, extendable to 32K at inference (Yi's "
        "README, as quoted in bentoml/OpenLLM's configuration_yi.py).",
    ),
]

MODELS: dict[str, ModelConfig] = {entry.name: entry for entry in _ENTRIES}


def get(name: str) -> ModelConfig:
    """The entry called ``name``; a KeyError lists the known names."""
    if name not in MODELS:
        raise KeyError(f"no model named {name!r}; known: {sorted(MODELS)}")
    return MODELS[name]


def by_rope_type(rope_type: str) -> list[ModelConfig]:
    """RoPE entries whose ``rope_scaling`` has this ``rope_type``."""
    return [
        entry
        for entry in _ENTRIES
        if entry.rope_scaling is not None
        and entry.rope_scaling["rope_type"] == rope_type
    ]
