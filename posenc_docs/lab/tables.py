"""Markdown tables for the lab page, built from ``results.json`` and the paper.

Torch-free, like `posenc_docs.lab.results`; the page calls these through
macros, e.g. ``{{ lab.our_table() }}``.
"""

from posenc_docs.lab import paper
from posenc_docs.lab.results import (
    LABELS,
    eval_row,
    floor_perplexity,
    load_results,
    provenance,
    relative_speed,
)
from posenc_docs.pages.format import markdown_table


def _markdown(header: list, rows: list) -> str:
    return markdown_table(header, rows, align="---")


def _cell(row: dict) -> str:
    return "IndexError" if "error" in row else f"{row['perplexity']:,.2f}"


def our_table(names=None, results=None) -> str:
    """Markdown table: perplexity of each model at every evaluated length."""
    results = results or load_results()
    config = results["config"]
    names = names or [*config["schemes"], *config["rope_scalings"]]
    multiples = config["eval_multiples"]
    header = ["model", *(f"{m * config['train_len']:,} ({m} L)" for m in multiples)]
    rows = [
        [LABELS[n], *(_cell(eval_row(n, m, results)) for m in multiples)] for n in names
    ]
    floor = [f"{floor_perplexity(m, results):,.2f}" for m in multiples]
    return _markdown(header, [*rows, ["best possible (exact)", *floor]])


def paper_table() -> str:
    """Markdown table of the paper's Table 2 (trained at L = 512)."""
    header = ["model (paper)", *(f"{n:,}" for n in paper.TABLE2_LENGTHS)]
    rows = [
        [name, *("OOM" if v is None else f"{v:,.2f}" for v in values)]
        for name, values in paper.TABLE2_PERPLEXITY.items()
    ]
    return _markdown(header, rows)


def speed_table(results=None) -> str:
    """Markdown table: training speed, ours (CPU) and the paper's (GPU).

    Ours is tokens per second of CPU time (one thread, so one core busy);
    each column is also given relative to the sinusoidal model.
    """
    results = results or load_results()
    ours = {n: r["tokens_per_cpu_second"] for n, r in results["runs"].items()}
    theirs = {
        paper.LAB_NAME.get(k, k): v
        for k, v in paper.TABLE1_TRAIN_WORDS_PER_SECOND.items()
    }
    header = [
        "scheme",
        "lab: tokens per CPU-second",
        "relative",
        "paper: words/s",
        "relative",
    ]
    rows = []
    for name in [*ours, *(n for n in theirs if n not in ours)]:
        row = [LABELS.get(name, name)]
        for speeds in (ours, theirs):
            if name in speeds:
                row += [
                    f"{speeds[name]:,}",
                    f"{speeds[name] / speeds['sinusoidal']:.2f}",
                ]
            else:
                row += ["—", "—"]
        rows.append(row)
    return _markdown(header, rows)


def _loads(values) -> str:
    return " / ".join(f"{x:.1f}" for x in values)


def provenance_table(results=None) -> str:
    """Markdown table: commit, date, machine and run time of the results."""
    p = provenance(results)
    m = p["machine"]
    commit = p["git_commit"][:12] + (
        " (plus uncommitted changes)" if p["git_dirty"] else ""
    )
    rows = [
        ["git commit", f"`{commit}`"],
        ["date (UTC)", p["date_utc"]],
        [
            "run time",
            f"{p['run_seconds']:,.0f} s wall clock, {p['cpu_seconds']:,.0f} s CPU",
        ],
        [
            "machine",
            f"{m['platform']}, {m['cpu_count']} CPUs, torch threads: {m['threads']}",
        ],
        [
            "load average (1 / 5 / 15 min)",
            f"{_loads(p['load_average_at_start'])} at start, "
            f"{_loads(p['load_average_at_end'])} at end",
        ],
        [
            "software",
            f"posenc_docs {p['package_version']}, torch {m['torch']}, "
            f"Python {m['python']}",
        ],
    ]
    return _markdown(["", "committed run"], rows)


def config_table(results=None) -> str:
    """Markdown table of every setting of the committed run."""
    config = (results or load_results())["config"]
    return _markdown(
        ["setting", "value"], [[f"`{k}`", f"`{v}`"] for k, v in config.items()]
    )


def paper_perplexity_ratio(name: str, other: str, column: int) -> float:
    """The paper's Table 2: perplexity of ``name`` over that of ``other``."""
    table = paper.TABLE2_PERPLEXITY
    return table[name][column] / table[other][column]


def paper_slowdown(name: str, reference: str = "sinusoidal") -> float:
    """The paper's Table 1: how much slower ``name`` trains than ``reference``."""
    speeds = paper.TABLE1_TRAIN_WORDS_PER_SECOND
    return 1 - speeds[name] / speeds[reference]


def lab_slowdown(name: str) -> float:
    """How much slower the lab's ``name`` trains than its sinusoidal model."""
    return 1 - relative_speed(name)
