"""Train one model at length L; evaluate it at L, 2L, 4L, ... on the same tokens."""

# --8<-- [start:setup]
import math
import time

import numpy as np
import torch
from torch.nn.functional import cross_entropy

from posenc_docs import scaling
from posenc_docs._checks import checked_choice
from posenc_docs.lab.config import ROPE_BASE, Config
from posenc_docs.lab.model import TinyGPT

# --8<-- [end:setup]


def make_model(scheme: str, config: Config, seed: int) -> TinyGPT:
    """A freshly initialised model; for one seed, the same weights for every scheme
    but "learned", whose position table is drawn first (so its other weights differ)."""
    torch.manual_seed(seed)
    c = config
    return TinyGPT(scheme, c.model_vocab, c.d_model, c.n_head, c.n_layer, c.train_len)


def learning_rate(step: int, config: Config) -> float:
    """Pre-training: linear warm-up, then cosine decay to a tenth of the peak."""
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    done = (step - config.warmup) / max(config.steps - config.warmup, 1)
    return config.lr * (0.1 + 0.45 * (1 + math.cos(math.pi * done)))


def finetune_rate(step: int, config: Config) -> float:
    """Fine-tuning: linear warm-up, then constant (as in the PI and YaRN papers)."""
    return config.finetune_lr * min(1.0, (step + 1) / config.finetune_warmup)


def next_token_loss(model: TinyGPT, tokens: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy (nats) of predicting ``tokens[:, 1:]`` from the prefix."""
    logits = model(tokens[:, :-1])  # (B, T, vocab)
    return cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())


# --8<-- [start:train]
def train(model, sequences: np.ndarray, loss, rate, batch: int) -> dict:
    """AdamW on batches of ``batch`` sequences, in order, one step per batch.

    ``loss(model, tokens)`` is the objective and ``rate(step)`` the learning
    rate. Returns the training loss every 10 steps and the throughput in tokens
    per second of wall-clock time and of CPU time (one thread: one core).
    """
    optimizer = torch.optim.AdamW(model.parameters(), lr=rate(0), betas=(0.9, 0.95))
    batches = torch.from_numpy(sequences).view(-1, batch, sequences.shape[1])
    losses, start, cpu_start = [], time.perf_counter(), time.process_time()
    for step, tokens in enumerate(batches):  # tokens: (B, T + 1)
        for group in optimizer.param_groups:
            group["lr"] = rate(step)
        value = loss(model, tokens)
        optimizer.zero_grad(set_to_none=True)
        value.backward()
        optimizer.step()
        if step % 10 == 0 or step == len(batches) - 1:
            losses.append(round(value.item(), 4))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    tokens = batches[:, :, 1:].numel()
    return {
        "train_seconds": round(seconds, 2),
        "train_cpu_seconds": round(cpu, 2),
        "tokens_per_second": round(tokens / seconds),
        "tokens_per_cpu_second": round(tokens / cpu),
        "train_loss": losses,
    }


# --8<-- [end:train]


# --8<-- [start:evaluate]
@torch.no_grad()
def evaluate(model: TinyGPT, stream: np.ndarray, length: int) -> dict:
    """Mean loss over non-overlapping windows of ``length`` tokens of ``stream``.

    ``stream`` is ``(n, M + 1)`` with ``M`` a multiple of ``length``: every
    length sees exactly the same targets. A model that cannot run at this
    length reports its error instead of a number.
    """
    tokens = torch.from_numpy(stream)
    inputs = tokens[:, :-1].reshape(-1, length)  # (windows, length)
    targets = tokens[:, 1:].reshape(-1, length)
    per_batch = max(1, 8192 // length)  # bound the (B, H, T, T) attention memory
    total = 0.0
    try:
        for i in range(0, len(inputs), per_batch):
            logits = model(inputs[i : i + per_batch])  # (b, length, vocab)
            total += cross_entropy(
                logits.flatten(0, 1),
                targets[i : i + per_batch].flatten(),
                reduction="sum",
            ).item()
    except IndexError as error:
        return {"length": length, "error": f"IndexError: {error}"}
    loss = total / targets.numel()
    return {
        "length": length,
        "loss": round(loss, 5),
        "perplexity": round(math.exp(loss), 4),
    }


# --8<-- [end:evaluate]


# --8<-- [start:use_rope_scaling]
ROPE_TYPE = {  # the lab's method name -> rope_scaling dict, without the factor
    "rope": {"rope_type": "default"},
    "pi": {"rope_type": "linear"},
    "ntk": {"rope_type": "ntk"},
    "dynamic": {"rope_type": "dynamic"},
    "yarn": {"rope_type": "yarn"},
    "llama3": {"rope_type": "llama3", "low_freq_factor": 1.0, "high_freq_factor": 4.0},
}


def use_rope_scaling(model: TinyGPT, method: str, factor: float, config, seq_len):
    """Swap the RoPE frequencies for a context-extension method's, scale factor s.

    Every method comes from ``posenc_docs.scaling.from_rope_scaling`` with L0 =
    L (``max_position_embeddings``, also YaRN's and Llama 3.1's original
    length); dynamic NTK also reads the running length ``seq_len``. YaRN's
    attention factor multiplies the rotated q and k, i.e. cos and sin.
    """
    checked_choice("method", method, sorted(ROPE_TYPE))
    rope_scaling = {**ROPE_TYPE[method], "factor": factor}
    if method == "rope":
        rope_scaling.pop("factor")
    inv_freq, attention_factor = scaling.from_rope_scaling(
        config.d_model // config.n_head,
        ROPE_BASE,
        rope_scaling,
        max_position_embeddings=config.train_len,
        seq_len=seq_len,
    )
    model.rope_inv_freq = torch.from_numpy(inv_freq).float()
    model.rope_attention_factor = attention_factor


# --8<-- [end:use_rope_scaling]
