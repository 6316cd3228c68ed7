"""The lab: train short, test long, on a CPU in minutes.

Tiny decoder-only transformers that differ only in their positional scheme
(none, learned, sinusoidal, RoPE, ALiBi) are trained on sequences of L tokens
and evaluated on sequences up to 16 L long, in two experiments: perplexity on a
synthetic Markov language (`posenc_docs.lab.data`), and passkey retrieval,
a key planted in that language and asked for at the end. The RoPE model is also
extended zero-shot (PI, NTK-aware, dynamic NTK, YaRN, Llama 3.1) and after a
short fine-tune at 4 L (plain, PI, YaRN). Every configuration runs with three
seeds.

``python -m posenc_docs.lab`` reruns everything and writes ``results.json`` to
the current directory (``--out`` elsewhere; never into the installed package).
The committed run ships in the package and is read with importlib.resources.
Importing the package does not import torch: the site reads the results, the
papers' numbers and the page's tables through `posenc_docs.lab.results`,
`posenc_docs.lab.paper`, `posenc_docs.lab.paper_passkey` and
`posenc_docs.lab.tables` on every build.
"""

from posenc_docs.lab import data, paper, paper_passkey, tables
from posenc_docs.lab.results import (
    accuracy,
    accuracy_range,
    context_perplexity,
    depth_grid,
    dynamic_slow_down,
    error_message,
    eval_rows,
    floor_log_fall,
    floor_perplexity,
    floor_share_of_gain,
    head_width,
    load_results,
    log_fall,
    perplexity,
    perplexity_range,
    provenance,
    relative_speed,
    seeds_ahead,
    settings,
    source,
    speed_range,
    yarn_ramp,
)
from posenc_docs.lab.tables import (
    config_table,
    our_table,
    paper_table,
    passkey_table,
    pi_passkey_table,
    provenance_table,
    speed_table,
    window_ratio,
    yarn_passkey_table,
)

__all__ = [
    "accuracy",
    "accuracy_range",
    "seeds_ahead",
    "settings",
    "config_table",
    "context_perplexity",
    "data",
    "depth_grid",
    "dynamic_slow_down",
    "error_message",
    "eval_rows",
    "head_width",
    "floor_log_fall",
    "floor_perplexity",
    "floor_share_of_gain",
    "load_results",
    "log_fall",
    "our_table",
    "paper",
    "paper_passkey",
    "paper_table",
    "passkey_table",
    "perplexity",
    "perplexity_range",
    "pi_passkey_table",
    "provenance",
    "provenance_table",
    "relative_speed",
    "source",
    "speed_range",
    "speed_table",
    "tables",
    "window_ratio",
    "yarn_passkey_table",
    "yarn_ramp",
]
