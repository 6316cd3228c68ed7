"""Run the whole lab and write ``results.json``: ``python -m posenc_docs.lab``.

Results go to ``--out`` (default ``results.json`` in the current directory), never
into the installed package; in a clone, ``--out posenc_docs/lab/results.json``
replaces the committed run the site quotes.
"""

import argparse
import json
import math
import multiprocessing
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import replace
from pathlib import Path

from posenc_docs.lab import data
from posenc_docs.lab.config import EXPERIMENTS, FULL, SMOKE, to_dict
from posenc_docs.lab.jobs import run_job
from posenc_docs.lab.runinfo import Clock, provenance

DEFAULT_OUT = Path("results.json")  # in the current directory


def source_summary(config) -> dict:
    """Exact entropy numbers of the synthetic language."""
    table = data.transition_table(
        config.vocab, config.order, config.concentration, config.data_seed
    )
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


def plan(configs: dict) -> list:
    """Every job: RoPE first (eight more jobs start from its weights), then the rest."""
    jobs = []
    for kind, names in (
        ("train", lambda c: [n for n in c.schemes if n == "rope"]),
        ("train", lambda c: [n for n in c.schemes if n != "rope"]),
        ("extend", lambda c: c.zero_shot),
        ("finetune", lambda c: c.fine_tuned),
    ):
        for experiment, config in configs.items():
            for seed in config.seeds:
                jobs += [
                    {"experiment": experiment, "kind": kind, "name": name}
                    | {"seed": seed, "config": config}
                    for name in names(config)
                ]
    return jobs


def cost(job: dict) -> float:
    """A rough relative CPU cost of a job, for the time-left estimate."""
    c = job["config"]
    lengths = [m * c.train_len for m in c.eval_multiples]
    per_token = [1 + n / 256 for n in lengths]  # attention grows with the window
    tokens = c.eval_tokens if job["experiment"] == "perplexity" else 0
    evaluation = sum(
        (tokens or len(c.depths) * c.eval_per_cell * n) * w
        for n, w in zip(lengths, per_token, strict=True)
    )
    if job["kind"] == "train":
        return evaluation + 3 * c.steps * c.batch * c.train_len
    if job["kind"] == "finetune":
        n = c.finetune_multiple * c.train_len
        return evaluation + 3 * c.finetune_steps * c.batch * n * (1 + n / 256)
    return evaluation


class InProcess:
    """A stand-in for a pool of one worker: jobs run here, in order, one at a time."""

    def __init__(self):
        self.queue = []

    def submit(self, fn, *args) -> Future:
        future = Future()
        self.queue.append((future, fn, args))
        return future

    def next_done(self, pending) -> list:
        future, fn, args = self.queue.pop(0)
        future.set_result(fn(*args))
        return [future]

    def shutdown(self):
        pass


class Pool(ProcessPoolExecutor):
    """Worker processes started with spawn: a fresh interpreter, nothing inherited."""

    def __init__(self, workers: int):
        super().__init__(workers, multiprocessing.get_context("spawn"))

    def next_done(self, pending) -> set:
        return wait(pending, return_when=FIRST_COMPLETED)[0]


def _label(job: dict) -> str:
    return f"{job['experiment']:>10} seed {job['seed']} {job['kind']:>8} {job['name']}"


def _minutes(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)  # 479.6 s is 8:00, not 7:60
    return f"{minutes}:{rest:02d}"


def execute(jobs: list, workers: int, log) -> tuple:
    """Run every job in ``workers`` processes; return (outputs, their CPU seconds)."""
    pool = InProcess() if workers == 1 else Pool(workers)
    later = [j for j in jobs if j["kind"] != "train"]
    pending = {pool.submit(run_job, j): j for j in jobs if j["kind"] == "train"}
    outputs, cpu, start = {}, 0.0, time.perf_counter()
    total, done = sum(map(cost, jobs)), 0.0
    while pending:
        for future in pool.next_done(pending):
            job, out = pending.pop(future), future.result()
            outputs[_key(job)] = out
            cpu, done = cpu + out["cpu_seconds"], done + cost(job)
            for follow in _waiting_for(job, out, later):
                pending[pool.submit(run_job, follow)] = follow
            elapsed = time.perf_counter() - start
            log(
                f"[{len(outputs)}/{len(jobs)}] {_label(job)}: {out['seconds']:.0f} s"
                f" ({out['cpu_seconds']:.0f} s CPU);"
                f" elapsed {_minutes(elapsed)}, about"
                f" {_minutes(elapsed * (total - done) / done)} left"
            )
    pool.shutdown()
    return outputs, cpu if workers > 1 else 0.0  # else counted in our own CPU time


def _key(job: dict) -> tuple:
    return job["experiment"], job["name"], job["seed"]


def _waiting_for(job: dict, out: dict, later: list) -> list:
    """The jobs that start from this RoPE model's weights (none for the others)."""
    if "weights" not in out:
        return []
    same = [j for j in later if (j["experiment"], j["seed"]) == _key(job)[::2]]
    return [{**j, "weights": out["weights"]} for j in same]


def assemble(configs: dict, outputs: dict) -> dict:
    """results.json: per experiment its config and, per name, one summary a seed."""
    results = {}
    for experiment, config in configs.items():
        names = [*config.schemes, *config.zero_shot, *config.fine_tuned]
        results[experiment] = {
            "config": to_dict(config),
            "runs": {
                n: [outputs[experiment, n, s]["summary"] for s in config.seeds]
                for n in names
            },
        }
    if "perplexity" in configs:
        results["perplexity"]["source"] = source_summary(configs["perplexity"])
    return results


def run(configs: dict, out: Path | None = None, log=print, workers: int = 2) -> dict:
    """Run the experiments in ``configs``, write the results as JSON to ``out``."""
    clock = Clock()
    jobs = plan(configs)
    outputs, job_cpu = execute(jobs, workers, log)
    results = assemble(configs, outputs)
    threads = {c.threads for c in configs.values()}.pop()
    results["provenance"] = provenance(clock.stop(job_cpu), workers, threads)
    if out is not None:
        Path(out).write_text(json.dumps(results, indent=1) + "\n")
    return results


def command_line() -> argparse.ArgumentParser:
    """``--experiment``, ``--smoke``, ``--out``, ``--workers``, ``--threads``."""
    parser = argparse.ArgumentParser(
        prog="python -m posenc_docs.lab",
        description="Train tiny transformers at one length, evaluate them at up to "
        "16 times that length: perplexity and passkey retrieval, every positional "
        "scheme, RoPE extended zero-shot and after a short fine-tune, over seeds. "
        "Needs only numpy and torch.",
        epilog="Nothing is written into the installed package. In a clone, "
        "--out posenc_docs/lab/results.json replaces the committed run.",
    )
    parser.add_argument(
        "--experiment", choices=EXPERIMENTS, default=None, help="only this one"
    )
    parser.add_argument("--smoke", action="store_true", help="tiny, seconds-long run")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"where to write the results as JSON (default: ./{DEFAULT_OUT} for a "
        "full run; a --smoke run writes only when --out is given)",
    )
    parser.add_argument(
        "--workers", type=positive, default=2, help="processes (default 2; 1: no pool)"
    )
    parser.add_argument(
        "--threads", type=positive, default=None, help="torch threads each"
    )
    return parser


def positive(text: str) -> int:
    """A command-line count: an integer of at least 1 (argparse reports others)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return int(text)


def main(argv=None) -> None:
    """Run what the command line asks for and say where it went."""
    args = command_line().parse_args(argv)
    configs = SMOKE if args.smoke else FULL
    if args.experiment:
        configs = {args.experiment: configs[args.experiment]}
    if args.threads is not None:
        configs = {k: replace(c, threads=args.threads) for k, c in configs.items()}
    out = args.out or (None if args.smoke else DEFAULT_OUT)
    folder = None if out is None else out.resolve().parent
    if folder is not None and not folder.is_dir():  # before the run, not after
        command_line().error(f"--out: no directory {folder}")
    if out is not None and out.is_dir():
        command_line().error(f"--out: {out} is a directory; name a file in it")
    log = lambda msg: print(msg, flush=True)  # noqa: E731
    results = run(configs, out, log=log, workers=args.workers)
    where = f"wrote {out.resolve()}" if out else "nothing written (no --out)"
    p = results["provenance"]
    print(
        f"done in {p['run_seconds']} s wall, {p['cpu_seconds']} s CPU; {where}",
        file=sys.stderr,
    )
