"""One unit of the lab's work, run in a worker process: train, extend or fine-tune.

A job is a dict: ``experiment`` ("perplexity" or "passkey"), ``kind``,
``name``, ``seed`` and ``config``; ``extend`` and ``finetune`` jobs also carry
the trained RoPE model's ``weights``. Everything a job uses is rebuilt from its
seeds, so a job's numbers do not depend on which process runs it, or when.
"""

import time

import torch

from posenc_docs.lab import data
from posenc_docs.lab.passkey import exact_match, passkey_loss
from posenc_docs.lab.train import (
    evaluate,
    finetune_rate,
    learning_rate,
    make_model,
    next_token_loss,
    train,
    use_rope_scaling,
)


def _table(config):
    return data.transition_table(
        config.vocab, config.order, config.concentration, config.data_seed
    )


def training_set(experiment, config, n_seq: int, length: int, seed) -> object:
    """``n_seq`` training sequences of ``length + 1`` tokens for ``experiment``."""
    if experiment == "passkey":
        return data.passkey_sequences(_table(config), n_seq, length, None, config, seed)
    return data.sample(_table(config), n_seq, length + 1, seed=seed)


def objective(experiment, config):
    """The training loss of ``experiment``, as ``loss(model, tokens)``."""
    if experiment == "passkey":
        return lambda m, x: passkey_loss(m, x, config.key_len, config.answer_weight)
    return next_token_loss


def evaluation_set(experiment, config) -> dict:
    """Length -> what every model is scored on at that length (seed ``eval_seed``)."""
    lengths = [m * config.train_len for m in config.eval_multiples]
    table = _table(config)
    if experiment == "passkey":
        per_cell, seed = config.eval_per_cell, config.eval_seed
        return {
            n: [
                data.passkey_sequences(table, per_cell, n, depth, config, (seed, n, j))
                for j, depth in enumerate(config.depths)
            ]
            for n in lengths
        }
    n_seq = max(1, config.eval_tokens // lengths[-1])
    stream = data.sample(table, n_seq, lengths[-1] + 1, seed=config.eval_seed)
    return dict.fromkeys(lengths, stream)  # (n, 16 L + 1): the same tokens


def score(experiment, model, evaluation: dict, length: int, config) -> dict:
    """The evaluation record of ``model`` at ``length``."""
    if experiment == "perplexity":
        return evaluate(model, evaluation[length], length)
    try:
        accuracy = [exact_match(model, x, config.key_len) for x in evaluation[length]]
    except IndexError as error:
        return {"length": length, "error": f"IndexError: {error}"}
    distance = [data.passkey_distance(length, d, config.key_len) for d in config.depths]
    return {"length": length, "distance": distance, "accuracy": accuracy}


def _fit_and_score(job, config, evaluation, model, length, steps, rate, tag):
    """Train ``model`` for ``steps`` batches of ``length`` tokens; score it."""
    experiment = job["experiment"]
    n_seq = steps * config.batch
    sequences = training_set(experiment, config, n_seq, length, (job["seed"], tag))
    summary = train(
        model.train(), sequences, objective(experiment, config), rate, config.batch
    )
    model.eval()
    summary["eval"] = [
        score(experiment, model, evaluation, n, config) for n in evaluation
    ]
    return summary, model


def _train(job, config, evaluation) -> tuple:
    """Train ``job["name"]`` at L; score it at every length."""
    model = make_model(job["name"], config, job["seed"])
    rate = lambda step: learning_rate(step, config)  # noqa: E731
    return _fit_and_score(
        job, config, evaluation, model, config.train_len, config.steps, rate, 1
    )


def _trained_rope(job, config):
    model = make_model("rope", config, job["seed"])
    model.load_state_dict(job["weights"])
    return model


def _extend(job, config, evaluation) -> tuple:
    """The trained RoPE model, zero-shot, with s = length / L at every length."""
    model = _trained_rope(job, config).eval()
    rows = []
    for n in evaluation:
        use_rope_scaling(model, job["name"], n / config.train_len, config, seq_len=n)
        rows.append(score(job["experiment"], model, evaluation, n, config))
    return {"eval": rows}, model


def _finetune(job, config, evaluation) -> tuple:
    """The trained RoPE model fine-tuned at s L with method s, then scored."""
    model = _trained_rope(job, config)
    method, s = job["name"].removeprefix("ft_"), config.finetune_multiple
    use_rope_scaling(model, method, float(s), config, seq_len=None)
    rate = lambda step: finetune_rate(step, config)  # noqa: E731
    length, steps = s * config.train_len, config.finetune_steps
    return _fit_and_score(job, config, evaluation, model, length, steps, rate, 2)


KINDS = {"train": _train, "extend": _extend, "finetune": _finetune}


def run_job(job: dict) -> dict:
    """Run one job in this process with the config's thread count; say how long."""
    torch.set_num_threads(job["config"].threads)
    torch.use_deterministic_algorithms(True)
    wall, cpu = time.perf_counter(), time.process_time()
    config = job["config"]
    summary, model = KINDS[job["kind"]](
        job, config, evaluation_set(job["experiment"], config)
    )
    summary = {"seed": job["seed"], **summary}
    out = {"summary": summary, "cpu_seconds": time.process_time() - cpu}
    out["seconds"] = time.perf_counter() - wall
    if job["kind"] == "train" and job["name"] == "rope":
        out["weights"] = model.state_dict()
    return out
