"""The lab: train short, test long, on a CPU in minutes.

Tiny decoder-only transformers that differ only in their positional scheme
(none, learned, sinusoidal, RoPE, ALiBi) are trained on sequences of L tokens
of a synthetic Markov language (`posenc_docs.lab.data`) and evaluated on
sequences up to 16 L long; the RoPE model is also evaluated with position
interpolation, NTK-aware scaling and YaRN.

``python -m posenc_docs.lab`` reruns everything and writes ``results.json`` to
the current directory (``--out`` elsewhere; never into the installed package).
The committed run ships in the package and is read with importlib.resources.
Importing the package does not import torch: the site reads
the results, the paper's numbers and the page's tables through
`posenc_docs.lab.results`, `posenc_docs.lab.paper` and
`posenc_docs.lab.tables` on every build.
"""

from posenc_docs.lab import data, paper
from posenc_docs.lab.results import (
    error_message,
    eval_row,
    floor_perplexity,
    load_results,
    perplexity,
    provenance,
    relative_speed,
    source,
)
from posenc_docs.lab.tables import (
    config_table,
    our_table,
    paper_table,
    provenance_table,
    speed_table,
)

__all__ = [
    "config_table",
    "data",
    "error_message",
    "eval_row",
    "floor_perplexity",
    "load_results",
    "our_table",
    "paper",
    "paper_table",
    "perplexity",
    "provenance",
    "provenance_table",
    "relative_speed",
    "source",
    "speed_table",
]
