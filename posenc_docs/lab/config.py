"""Settings of the lab's two experiments: the full run and a seconds-long smoke test."""

# --8<-- [start:setup]
from dataclasses import asdict, dataclass, replace

SCHEMES = ("none", "learned", "sinusoidal", "rope", "alibi")  # trained at L
ZERO_SHOT = ("pi", "ntk", "dynamic", "yarn", "llama3")  # the RoPE model, unchanged
FINE_TUNED = ("ft_rope", "ft_pi", "ft_yarn")  # the RoPE model, fine-tuned at 4 L
EXPERIMENTS = ("perplexity", "passkey")
# --8<-- [end:setup]
ROPE_BASE = 10000.0  # every RoPE model of the lab (TinyGPT) rotates with this base


# --8<-- [start:Config]
@dataclass(frozen=True)
class Config:
    """What both experiments share; stored in results.json next to the numbers."""

    vocab: int = 16  # tokens of the synthetic language (the filler)
    order: int = 2  # each token depends on the 2 before it
    concentration: float = 0.1  # Dirichlet parameter of each table row
    data_seed: int = 0  # the transition table
    train_len: int = 64  # L: every training sequence has exactly L tokens
    eval_multiples: tuple = (1, 2, 4, 8, 16)  # evaluate at L, 2L, ..., 16L
    eval_seed: int = 1  # one evaluation set for every model and every seed
    d_model: int = 64
    n_head: int = 4
    n_layer: int = 2
    batch: int = 16
    steps: int = 600
    lr: float = 1e-2
    warmup: int = 50
    seeds: tuple = (0, 1, 2)  # weights and training batches
    finetune_multiple: int = 4  # fine-tune at 4 L with scale factor s = 4
    finetune_steps: int = 30
    finetune_lr: float = 1e-3  # constant after a linear warm-up, as PI and YaRN
    finetune_warmup: int = 5
    threads: int = 1  # per worker; 2 threads: 3-9x slower on a shared, busy CPU
    schemes: tuple = SCHEMES
    zero_shot: tuple = ZERO_SHOT
    fine_tuned: tuple = FINE_TUNED

    @property
    def model_vocab(self) -> int:
        """Rows of the embedding table."""
        return self.vocab


@dataclass(frozen=True)
class PerplexityConfig(Config):
    """Next-token loss on the Markov language itself."""

    steps: int = 400
    warmup: int = 40
    finetune_steps: int = 20  # 5% of the pre-training steps
    eval_tokens: int = 4096  # the same target tokens at every evaluation length


@dataclass(frozen=True)
class PasskeyConfig(Config):
    """Find the key far back: a key planted in the filler, asked for at the end."""

    lr: float = 3e-3  # 1e-2 plateaued at about 30% exact match
    steps: int = 500
    finetune_steps: int = 25  # 5% of the pre-training steps
    key_len: int = 4  # distinct digits after the marker
    key_vocab: int = 10  # the digits: tokens the filler never uses
    answer_weight: float = 5.0  # loss = LM loss + 5 x loss on the answer
    depths: tuple = (0.0, 0.25, 0.5, 0.75, 1.0)  # 0: first token, 1: just before
    eval_per_cell: int = 30  # sequences per (length, depth), the same for all

    @property
    def model_vocab(self) -> int:
        """Filler, digits and the marker."""
        return self.vocab + self.key_vocab + 1


# --8<-- [end:Config]

FULL = {"perplexity": PerplexityConfig(), "passkey": PasskeyConfig()}
_TINY = dict(
    train_len=16,
    d_model=32,
    n_head=2,
    n_layer=1,
    steps=40,
    batch=8,
    eval_multiples=(1, 2, 4),
    warmup=10,
    seeds=(0, 1),
    finetune_multiple=2,
    finetune_steps=4,
    finetune_warmup=2,
)
SMOKE = {
    "perplexity": replace(FULL["perplexity"], eval_tokens=512, **_TINY),
    "passkey": replace(FULL["passkey"], key_len=2, eval_per_cell=4, **_TINY),
}


def to_dict(config: Config) -> dict:
    """JSON-ready dict: tuples become lists."""
    return {
        k: list(v) if isinstance(v, tuple) else v for k, v in asdict(config).items()
    }
