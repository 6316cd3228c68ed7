"""Run the whole lab and write ``results.json``: ``python -m posenc_docs.lab``.

Results go to ``--out`` (default ``results.json`` in the current directory), never
into the installed package; in a clone, ``--out posenc_docs/lab/results.json``
replaces the committed run the site quotes.
"""

import argparse
import json
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from posenc_docs.lab import data
from posenc_docs.lab.config import FULL, SMOKE, Config, to_dict
from posenc_docs.lab.runinfo import Clock, provenance
from posenc_docs.lab.train import evaluate, make_model, train, use_rope_scaling

DEFAULT_OUT = Path("results.json")  # in the current directory


def source_summary(table: np.ndarray, config: Config) -> dict:
    """Exact entropy numbers of the synthetic language."""
    rate = data.entropy_rate(table)
    lengths = [m * config.train_len for m in config.eval_multiples]
    floor = [(n, data.window_floor(table, n)) for n in lengths]
    return {
        "entropy_rate_nats": round(rate, 6),
        "entropy_rate_perplexity": round(math.exp(rate), 6),
        "uniform_nats": round(math.log(config.vocab), 6),
        "floor": [
            {"length": n, "nats": round(h, 6), "perplexity": round(math.exp(h), 6)}
            for n, h in floor
        ],
    }


def run_scheme(scheme, config, train_sequences, stream, log) -> tuple:
    """Train one scheme, evaluate it at every length; return (summary, model)."""
    model = make_model(scheme, config)
    summary = train(model, train_sequences, config)
    lengths = [m * config.train_len for m in config.eval_multiples]
    start = time.perf_counter()
    summary["eval"] = [evaluate(model.eval(), stream, n) for n in lengths]
    summary["eval_seconds"] = round(time.perf_counter() - start, 2)
    log(
        f"{scheme:>10}: {summary['tokens_per_second']:,} tokens/s, "
        f"{[r.get('perplexity', 'error') for r in summary['eval']]}"
    )
    return summary, model


def run_scalings(rope_model, config, stream, log) -> dict:
    """Evaluate the trained RoPE model zero-shot with each method, s = length / L."""
    out = {}
    for method in config.rope_scalings:
        rows = []
        for multiple in config.eval_multiples:
            use_rope_scaling(rope_model, method, float(multiple), config)
            rows.append(evaluate(rope_model, stream, multiple * config.train_len))
        out[method] = {"eval": rows}
        log(f"{method:>10}: {[r['perplexity'] for r in rows]}")
    return out


def run(config: Config, out: Path | None = None, log=print) -> dict:
    """Train every scheme at L, evaluate up to 16 L, write the results as JSON."""
    clock = Clock()
    torch.set_num_threads(config.threads)
    torch.use_deterministic_algorithms(True)
    table = data.transition_table(
        config.vocab, config.order, config.concentration, config.data_seed
    )
    L, longest = config.train_len, max(config.eval_multiples) * config.train_len
    train_sequences = data.sample(
        table, config.steps * config.batch, L + 1, seed=config.seed + 1
    )  # (steps * B, L + 1)
    stream = data.sample(
        table, max(1, config.eval_tokens // longest), longest + 1, seed=config.seed + 2
    )  # (n, 16 L + 1)
    results = {
        "config": to_dict(config),
        "source": source_summary(table, config),
        "runs": {},
        "rope_scaled": {},
    }
    for scheme in config.schemes:
        summary, model = run_scheme(scheme, config, train_sequences, stream, log)
        results["runs"][scheme] = summary
        if scheme == "rope":
            results["rope_scaled"] = run_scalings(model, config, stream, log)
    results["provenance"] = provenance(clock.stop())
    if out is not None:
        Path(out).write_text(json.dumps(results, indent=1) + "\n")
    return results


def command_line() -> argparse.ArgumentParser:
    """``--smoke``, ``--out`` and ``--threads``; the help says where results go."""
    parser = argparse.ArgumentParser(
        prog="python -m posenc_docs.lab",
        description="Train tiny transformers at one length, evaluate them at up to "
        "16 times that length. Needs only numpy and torch.",
        epilog="Nothing is written into the installed package. In a clone, "
        "--out posenc_docs/lab/results.json replaces the committed run.",
    )
    parser.add_argument("--smoke", action="store_true", help="tiny, seconds-long run")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"where to write the results as JSON (default: ./{DEFAULT_OUT} for a "
        "full run; a --smoke run writes only when --out is given)",
    )
    parser.add_argument("--threads", type=int, default=None, help="torch threads")
    return parser


def main(argv=None) -> None:
    """Run the configuration the command line asks for and say where it went."""
    args = command_line().parse_args(argv)
    config = SMOKE if args.smoke else FULL
    if args.threads is not None:
        config = replace(config, threads=args.threads)
    out = args.out or (None if args.smoke else DEFAULT_OUT)
    results = run(config, out, log=lambda msg: print(msg, flush=True))
    where = f"wrote {out.resolve()}" if out else "nothing written (no --out)"
    print(f"done in {results['provenance']['run_seconds']} s; {where}", file=sys.stderr)
