"""Markdown tables for the lab page, built from ``results.json`` and the papers.

Torch-free, like `posenc_docs.lab.results`; the page calls these through
macros, e.g. ``{{ lab.our_table() }}``. A cell of ours is the mean over seeds
with the lowest and highest seed beneath it.
"""

from statistics import fmean

from posenc_docs.lab import paper, paper_passkey
from posenc_docs.lab.results import (
    LABELS,
    accuracy,
    accuracy_range,
    eval_rows,
    floor_perplexity,
    load_results,
    perplexity,
    perplexity_range,
    provenance,
    relative_speed,
    seed_speeds,
    settings,
    speed_range,
)
from posenc_docs.pages.format import markdown_table


def _markdown(header: list, rows: list) -> str:
    return markdown_table(header, rows, align="---")


def _header(experiment: str, results) -> list:
    c = settings(experiment, results)
    lengths = (f"{m * c['train_len']:,} ({m} L)" for m in c["eval_multiples"])
    return ["model", *lengths]


def _perplexity_cell(name, multiple, results) -> str:
    if "error" in eval_rows(name, multiple, "perplexity", results)[0]:
        return "IndexError"
    low, high = perplexity_range(name, multiple, results)
    return f"{perplexity(name, multiple, results):,.2f} ({low:,.2f}–{high:,.2f})"


def our_table(names=None, results=None) -> str:
    """Perplexity of each model at every length: mean (min–max) over seeds."""
    results = results or load_results()
    c = settings("perplexity", results)
    names = names or [*c["schemes"], *c["zero_shot"], *c["fine_tuned"]]
    multiples = c["eval_multiples"]
    rows = [
        [LABELS[n], *(_perplexity_cell(n, m, results) for m in multiples)]
        for n in names
    ]
    floor = [f"{floor_perplexity(m, results):,.2f}" for m in multiples]
    return _markdown(
        _header("perplexity", results), [*rows, ["best possible (expected)", *floor]]
    )


def _accuracy_cell(name, multiple, results) -> str:
    if "error" in eval_rows(name, multiple, "passkey", results)[0]:
        return "IndexError"
    low, high = accuracy_range(name, multiple, results=results)
    mean = accuracy(name, multiple, results=results)
    return f"{100 * mean:.0f}% ({100 * low:.0f}–{100 * high:.0f})"


def passkey_table(names=None, results=None) -> str:
    """Passkey accuracy at every length, all depths pooled: mean (min–max) in %."""
    results = results or load_results()
    c = settings("passkey", results)
    names = names or [*c["schemes"], *c["zero_shot"], *c["fine_tuned"]]
    rows = [
        [LABELS[n], *(_accuracy_cell(n, m, results) for m in c["eval_multiples"])]
        for n in names
    ]
    return _markdown(_header("passkey", results), rows)


def paper_table() -> str:
    """Markdown table of the ALiBi paper's Table 2 (trained at L = 512)."""
    header = ["model (paper)", *(f"{n:,}" for n in paper.TABLE2_LENGTHS)]
    rows = [
        [name, *("OOM" if v is None else f"{v:,.2f}" for v in values)]
        for name, values in paper.TABLE2_PERPLEXITY.items()
    ]
    return _markdown(header, rows)


def pi_passkey_table() -> str:
    """The PI paper's Table 4: effective context window after n fine-tuning steps."""
    steps = paper_passkey.PI_TABLE4_STEPS
    header = ["model", "target window", "method", *(f"{n:,} steps" for n in steps)]
    rows = [
        [size, f"{window:,}", method, *("—" if v is None else f"{v:,}" for v in ks)]
        for (size, window, method), ks in paper_passkey.PI_TABLE4.items()
    ]
    return _markdown(header, rows)


def yarn_passkey_table() -> str:
    """The YaRN paper's Table 5: passkey context and accuracy of each model."""
    header = [
        "size",
        "model",
        "s",
        "context window",
        "fine-tuning data",
        "method",
        "passkey context",
        "passkey accuracy",
    ]
    rows = [
        [*row[:2], f"{row[2]:g}", *row[3:7], f"{row[7]:.1f}%"]
        for row in paper_passkey.YARN_TABLE5
    ]
    return _markdown(header, rows)


def window_ratio(row) -> float:
    """A `paper_passkey.YARN_TABLE5` row's context window ("32k": 32 x 1,024 tokens)
    over Llama 2's pre-training window: the scale factor s of PI and YaRN."""
    return int(row[3].removesuffix("k")) * 1024 / paper_passkey.YARN_TRAIN_LEN


def speed_table(results=None) -> str:
    """Markdown table: training speed, ours (CPU) and the ALiBi paper's (GPU).

    Ours is tokens per second of CPU time (one thread, so one core busy),
    averaged over seeds; each column is also given relative to sinusoidal.
    """
    results = results or load_results()
    c = settings("perplexity", results)
    ours = {n: round(fmean(seed_speeds(n, results))) for n in c["schemes"]}
    theirs = {
        paper.LAB_NAME.get(k, k): v
        for k, v in paper.TABLE1_TRAIN_WORDS_PER_SECOND.items()
    }
    header = ["scheme", "lab: tokens per CPU-second", "relative"]
    header += ["paper: words/s", "relative"]
    rows = []
    for name in [*ours, *(n for n in theirs if n not in ours)]:
        row = [LABELS.get(name, name)]
        for speeds in (ours, theirs):
            if name in speeds:
                ratio = speeds[name] / speeds["sinusoidal"]
                row += [f"{speeds[name]:,}", f"{ratio:.2f}"]
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
            f"{m['platform']}, {m['cpu_count']} CPUs, {m['workers']} worker "
            f"processes, torch threads per worker: {m['threads']}",
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
    return _markdown(["what", "committed run"], rows)  # a named header cell


def config_table(experiment: str = "perplexity", results=None) -> str:
    """Markdown table of every setting of one experiment of the committed run."""
    c = settings(experiment, results)
    return _markdown(["setting", "value"], [[f"`{k}`", f"`{v}`"] for k, v in c.items()])


def paper_perplexity_ratio(name: str, other: str, column: int) -> float:
    """The ALiBi paper's Table 2: perplexity of ``name`` over that of ``other``."""
    table = paper.TABLE2_PERPLEXITY
    return table[name][column] / table[other][column]


def paper_length_multiple(column: int) -> float:
    """The ALiBi paper's Table 2: column ``column``'s input length over training's."""
    return paper.TABLE2_LENGTHS[column] / paper.TRAIN_LEN


def paper_slowdown(name: str, reference: str = "sinusoidal") -> float:
    """The ALiBi paper's Table 1: how much slower ``name`` trains than ``reference``."""
    speeds = paper.TABLE1_TRAIN_WORDS_PER_SECOND
    return 1 - speeds[name] / speeds[reference]


def lab_slowdown(name: str) -> float:
    """How much slower the lab's ``name`` trains than its sinusoidal model."""
    return 1 - relative_speed(name)


def finetune_share(*, tokens: bool) -> float:
    """A fine-tune's steps (or, ``tokens``, its tokens: its sequences are
    ``finetune_multiple`` times longer) over pre-training's, the same in both
    experiments."""
    shares = set()
    for experiment in ("perplexity", "passkey"):
        c = settings(experiment)
        longer = c["finetune_multiple"] if tokens else 1
        shares.add(c["finetune_steps"] * longer / c["steps"])
    (share,) = shares  # one number for the page, or the page must say two
    return share


def timing_spread() -> float:
    """The largest fastest/slowest - 1 of any scheme's seeds: the same work timed
    again, so how much the speed table can move between runs."""
    ranges = [speed_range(n) for n in settings("perplexity")["schemes"]]
    return max(fast / slow - 1 for slow, fast in ranges)


def largest_other_slowdown() -> float:
    """The largest `lab_slowdown` of the schemes other than RoPE and sinusoidal."""
    return max(lab_slowdown(n) for n in ("none", "learned", "alibi"))
