"""Numbers behind Part III, chapter 4 (No positions, sometimes).

Llama 4 values are Hugging Face's ``Llama4TextConfig`` defaults (transformers 5.24),
read from the installed code by ``tests/test_part3_nope.py``; published Llama 4
``config.json`` files were not read for this page. Qwen-7B's ``seq_length`` and
``use_logn_attn`` are in ``posenc_docs.pages.models``.
"""

import math

import numpy as np

from posenc_docs import lab, temperature
from posenc_docs.pages import models
from posenc_docs.pages.format import count, fixed, markdown_table

# Qwen-7B's modeling_qwen.py: logn_list has entries for positions 0 .. 32,766 only
# (math.log(i, seq_length) for i in range(1, 32768)).
QWEN_LOGN_LAST_POSITION = 32766

LLAMA4 = {  # HF Llama4TextConfig defaults
    "num_hidden_layers": 48,
    "no_rope_layer_interval": 4,
    "attention_chunk_size": 8192,
    "floor_scale": 8192,
    "attn_scale": 0.1,
}


def qwen_seq_length() -> int:
    """Qwen-7B's training length, the L of its log-n rule."""
    return models.get("Qwen-7B").extra["seq_length"]


def log_n_rate() -> float:
    """1 / ln L: how fast Qwen's log-n factor ln n / ln L grows with ln n."""
    return 1.0 / math.log(qwen_seq_length())


def scales(positions, length: int = 8192) -> dict:
    """Logit factor of each rule at ``positions``, all with training length L."""
    p = np.asarray(positions)
    return {
        "Llama 4 (NoPE layers)": temperature.llama4_attention_scale(
            p, floor_scale=LLAMA4["floor_scale"], attn_scale=LLAMA4["attn_scale"]
        ),
        "Qwen log-n": temperature.qwen_logn_scale(p, seq_length=length),
        "YaRN, s = n / L": temperature.yarn_logit_scale(
            p, original_max_position_embeddings=length
        ),
    }


def scale_table(lengths=(8192, 16384, 32768, 131072, 1048576)) -> str:
    """Markdown: each rule's factor for the last query of a context of n tokens.

    A Qwen value past `QWEN_LOGN_LAST_POSITION` is the formula's, marked so: Qwen's
    code has no entry there.
    """
    columns = scales(np.array(lengths) - 1)
    header = ["tokens n", "Llama 4", "Qwen log-n", "YaRN"]
    body = []
    for k, n in enumerate(lengths):
        row = [count(n)] + [fixed(values[k], 3) for values in columns.values()]
        if n - 1 > QWEN_LOGN_LAST_POSITION:
            row[2] += " (formula only)"
        body.append(row)
    return markdown_table(header, body)


def lab_growth(name: str, multiple: int = 16) -> float:
    """Lab perplexity at ``multiple`` times the training length over that at L."""
    return lab.perplexity(name, multiple) / lab.perplexity(name, 1)
