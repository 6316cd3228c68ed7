"""Read ``results.json``: the numbers the site quotes (tables: ``tables.py``).

Torch-free on purpose: the site's macros import this module on every build.
``name`` is a scheme (``"none"``, ``"learned"``, ``"sinusoidal"``, ``"rope"``,
``"alibi"``), a zero-shot extension of the RoPE model (``"pi"``, ``"ntk"``,
``"dynamic"``, ``"yarn"``, ``"llama3"``) or the RoPE model fine-tuned at 4 L
(``"ft_rope"``, ``"ft_pi"``, ``"ft_yarn"``); ``multiple`` is the evaluation
length divided by the training length. Every configuration ran once per seed:
the helpers return the mean over seeds, and ``*_range`` the (min, max).
"""

import json
import math
from importlib import resources
from pathlib import Path
from statistics import fmean

from posenc_docs.lab import data

RESULTS = "results.json"
LABELS = {
    "none": "none (NoPE)",
    "learned": "learned",
    "sinusoidal": "sinusoidal",
    "rope": "RoPE",
    "alibi": "ALiBi",
    "pi": "RoPE + position interpolation",
    "ntk": "RoPE + NTK-aware",
    "dynamic": "RoPE + dynamic NTK",
    "yarn": "RoPE + YaRN",
    "llama3": "RoPE + Llama 3.1",
    "ft_rope": "RoPE, fine-tuned at 4 L",
    "ft_pi": "RoPE + PI, fine-tuned at 4 L",
    "ft_yarn": "RoPE + YaRN, fine-tuned at 4 L",
}


def load_results(path=None) -> dict:
    """The committed run (or the JSON file at ``path``)."""
    if path is not None:
        return json.loads(Path(path).read_text())
    return json.loads(resources.files(__package__).joinpath(RESULTS).read_text())


def settings(experiment: str = "perplexity", results=None) -> dict:
    """The settings ``experiment`` ran with."""
    return (results or load_results())[experiment]["config"]


def eval_rows(name: str, multiple: int, experiment="perplexity", results=None):
    """The evaluation record of ``name`` at ``multiple`` L, one per seed."""
    section = (results or load_results())[experiment]
    runs = section["runs"]
    if name not in runs:
        raise KeyError(f"name must be one of {sorted(runs)}, got {name!r}")
    length = multiple * section["config"]["train_len"]
    rows = [r for seed in runs[name] for r in seed["eval"] if r["length"] == length]
    if not rows:
        raise KeyError(f"{name!r} was not evaluated at {multiple} L = {length} tokens")
    return rows


def _values(name, multiple, experiment, results, value) -> list:
    rows = eval_rows(name, multiple, experiment, results)
    if "error" in rows[0]:
        raise ValueError(
            f"{name!r} did not run at {rows[0]['length']}: {rows[0]['error']}"
        )
    return [value(r) for r in rows]


def perplexities(name: str, multiple: int = 1, results=None) -> list:
    """Perplexity of ``name`` at ``multiple`` L, one value per seed."""
    return _values(name, multiple, "perplexity", results, lambda r: r["perplexity"])


def perplexity(name: str, multiple: int = 1, results=None) -> float:
    """Mean perplexity over seeds of ``name`` at ``multiple`` L."""
    return fmean(perplexities(name, multiple, results))


def perplexity_range(name: str, multiple: int = 1, results=None) -> tuple:
    """(lowest, highest) perplexity over seeds."""
    values = perplexities(name, multiple, results)
    return min(values), max(values)


def accuracies(name: str, multiple: int = 1, depth=None, results=None) -> list:
    """Passkey exact-match accuracy per seed; mean over depths if ``depth`` is None.

    ``depth`` is an index into the config's ``depths``.
    """

    def pick(row):
        cells = row["accuracy"]
        return fmean(cells) if depth is None else cells[depth]

    return _values(name, multiple, "passkey", results, pick)


def accuracy(name: str, multiple: int = 1, depth=None, results=None) -> float:
    """Mean over seeds of `accuracies`."""
    return fmean(accuracies(name, multiple, depth, results))


def accuracy_range(name: str, multiple: int = 1, depth=None, results=None) -> tuple:
    """(lowest, highest) over seeds of `accuracies`."""
    values = accuracies(name, multiple, depth, results)
    return min(values), max(values)


def seeds_ahead(name: str, other: str, multiple: int = 1, results=None) -> int:
    """Seeds in which ``name`` finds more passkeys than ``other`` at ``multiple`` L.

    Seed i of one pairs with seed i of the other: a fine-tuned model starts from
    the same seed's RoPE weights, and every model is scored on the same sequences.
    """
    ours = accuracies(name, multiple, results=results)
    theirs = accuracies(other, multiple, results=results)
    return sum(a > b for a, b in zip(ours, theirs, strict=True))


def depth_grid(name: str, results=None) -> list:
    """Mean accuracy over seeds, one row per depth, one column per length.

    None where the model could not run at that length.
    """
    c = settings("passkey", results)
    return [
        [
            None
            if "error" in eval_rows(name, m, "passkey", results)[0]
            else accuracy(name, m, j, results)
            for m in c["eval_multiples"]
        ]
        for j in range(len(c["depths"]))
    ]


def error_message(name: str, multiple: int, experiment="perplexity", results=None):
    """The error ``name`` raised at ``multiple`` times the training length."""
    return eval_rows(name, multiple, experiment, results)[0]["error"]


def floor_perplexity(multiple: int = 1, results=None) -> float:
    """Best achievable perplexity at that length: exp(window floor)."""
    section = (results or load_results())["perplexity"]
    length = multiple * section["config"]["train_len"]
    rows = section["source"]["floor"]
    return next(r for r in rows if r["length"] == length)["perplexity"]


def context_perplexity(c: int, results=None) -> float:
    """Best perplexity of a prediction that has read the ``c`` tokens before it, in
    the committed run's language: c = 0 is the token frequencies alone."""
    s = settings(results=results)
    table = data.transition_table(
        s["vocab"], s["order"], s["concentration"], s["data_seed"]
    )
    return math.exp(data.context_entropy(table, c))


def log_fall(name: str, multiple: int, results=None) -> float:
    """``name``'s fall in log perplexity from L to ``multiple`` L, mean over seeds."""
    short, long = perplexities(name, 1, results), perplexities(name, multiple, results)
    return fmean(math.log(a) - math.log(b) for a, b in zip(short, long, strict=True))


def floor_log_fall(multiple: int, results=None) -> float:
    """The window floor's fall in log perplexity from L to ``multiple`` L."""
    return math.log(floor_perplexity(1, results) / floor_perplexity(multiple, results))


def floor_share_of_gain(name: str, multiple: int, results=None) -> float:
    """The share of ``name``'s fall in log perplexity from L to ``multiple`` L
    (mean over seeds) that the window floor's own fall accounts for."""
    return floor_log_fall(multiple, results) / log_fall(name, multiple, results)


def provenance(results=None) -> dict:
    """Commit, date, machine and run time of the committed results."""
    return (results or load_results())["provenance"]


def source(results=None) -> dict:
    """Exact entropy numbers of the language the committed run used."""
    return (results or load_results())["perplexity"]["source"]


def head_width(results=None) -> int:
    """Features per attention head of the lab's TinyGPT (d_model / n_head)."""
    s = settings(results=results)
    return s["d_model"] // s["n_head"]


def _rope_shape(results=None) -> tuple[int, int]:
    """(head width, training length L) of the lab's RoPE model."""
    return head_width(results), settings(results=results)["train_len"]


def yarn_ramp(results=None) -> tuple:
    """The pairs between which the lab's YaRN ramps (its defaults, TinyGPT's head).
    Imports torch (through `posenc_docs.scaling`), so only when called."""
    from posenc_docs import scaling
    from posenc_docs.lab.config import ROPE_BASE

    d, length = _rope_shape(results)
    return scaling.yarn_ramp_bounds(
        d, ROPE_BASE, original_max_position_embeddings=length
    )


def dynamic_slow_down(multiple: int, results=None) -> float:
    """How much the lab's dynamic NTK slows the slowest pair at ``multiple`` x L.

    The lab gives it factor s = ``multiple`` and runs it at s L, with TinyGPT's
    head width and base. Imports torch (through `posenc_docs.scaling`), so only
    when called.
    """
    from posenc_docs.lab.config import ROPE_BASE
    from posenc_docs.pages.part2_extension import dynamic_slow_down as slow_down

    d, length = _rope_shape(results)
    return slow_down(d, ROPE_BASE, float(multiple), length, multiple * length)


def seed_speeds(name: str, results=None) -> list[float]:
    """Training tokens per CPU-second of each seed of ``name`` (the perplexity
    experiment's runs at L)."""
    runs = (results or load_results())["perplexity"]["runs"][name]
    return [seed["tokens_per_cpu_second"] for seed in runs]


def speed_range(name: str, results=None) -> tuple[float, float]:
    """(slowest, fastest) seed of ``name`` in training tokens per CPU-second.

    The seeds do the same work, so the spread is timing noise.
    """
    speeds = seed_speeds(name, results)
    return min(speeds), max(speeds)


def relative_speed(name: str, results=None) -> float:
    """Mean training tokens per CPU-second of ``name`` over the sinusoidal model's,
    averaged over seeds."""
    results = results or load_results()
    return fmean(seed_speeds(name, results)) / fmean(seed_speeds("sinusoidal", results))
