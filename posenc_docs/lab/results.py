"""Read ``results.json``: the numbers the site quotes (tables: ``tables.py``).

Torch-free on purpose: the site's macros import this module on
every build. ``name`` is a scheme (``"none"``, ``"learned"``, ``"sinusoidal"``,
``"rope"``, ``"alibi"``) or a RoPE scaling method (``"pi"``, ``"ntk"``,
``"yarn"``); ``multiple`` is the evaluation length divided by the training length.
"""

import json
from importlib import resources
from pathlib import Path

RESULTS = "results.json"
LABELS = {
    "none": "none (NoPE)",
    "learned": "learned",
    "sinusoidal": "sinusoidal",
    "rope": "RoPE",
    "alibi": "ALiBi",
    "pi": "RoPE + position interpolation",
    "ntk": "RoPE + NTK-aware",
    "yarn": "RoPE + YaRN",
}


def load_results(path=None) -> dict:
    """The committed run (or the JSON file at ``path``)."""
    if path is not None:
        return json.loads(Path(path).read_text())
    return json.loads(resources.files(__package__).joinpath(RESULTS).read_text())


def eval_row(name: str, multiple: int, results=None) -> dict:
    """The evaluation record of ``name`` at ``multiple`` times the training length."""
    results = results or load_results()
    runs = {**results["runs"], **results["rope_scaled"]}
    if name not in runs:
        raise KeyError(f"name must be one of {sorted(runs)}, got {name!r}")
    length = multiple * results["config"]["train_len"]
    for row in runs[name]["eval"]:
        if row["length"] == length:
            return row
    raise KeyError(f"{name!r} was not evaluated at {multiple} L = {length} tokens")


def perplexity(name: str, multiple: int = 1, results=None) -> float:
    """Perplexity of ``name`` at ``multiple`` times the training length."""
    row = eval_row(name, multiple, results)
    if "error" in row:
        raise ValueError(f"{name!r} did not run at {row['length']}: {row['error']}")
    return row["perplexity"]


def error_message(name: str, multiple: int, results=None) -> str:
    """The error ``name`` raised at ``multiple`` times the training length."""
    return eval_row(name, multiple, results)["error"]


def floor_perplexity(multiple: int = 1, results=None) -> float:
    """Best achievable perplexity at that length: exp(window floor)."""
    results = results or load_results()
    length = multiple * results["config"]["train_len"]
    return next(r for r in results["source"]["floor"] if r["length"] == length)[
        "perplexity"
    ]


def provenance(results=None) -> dict:
    """Commit, date, machine and run time of the committed results."""
    return (results or load_results())["provenance"]


def source(results=None) -> dict:
    """Exact entropy numbers of the language the committed run used."""
    return (results or load_results())["source"]


def relative_speed(name: str, results=None) -> float:
    """Training tokens per CPU-second of ``name`` over the sinusoidal model's."""
    runs = (results or load_results())["runs"]
    speed = {n: run["tokens_per_cpu_second"] for n, run in runs.items()}
    return speed[name] / speed["sinusoidal"]
