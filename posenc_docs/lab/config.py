"""Settings of the lab run: the full experiment and a seconds-long smoke test."""

# --8<-- [start:setup]
from dataclasses import asdict, dataclass, replace

SCHEMES = ("none", "learned", "sinusoidal", "rope", "alibi")
ROPE_SCALINGS = ("pi", "ntk", "yarn")  # zero-shot context extension of the RoPE model
# --8<-- [end:setup]


# --8<-- [start:Config]
@dataclass(frozen=True)
class Config:
    """Everything the run depends on; stored in results.json next to the numbers."""

    vocab: int = 16  # tokens of the synthetic language
    order: int = 2  # each token depends on the 2 before it
    concentration: float = 0.1  # Dirichlet parameter of each table row
    data_seed: int = 0  # the transition table
    train_len: int = 64  # L: every training sequence has exactly L tokens
    eval_multiples: tuple = (1, 2, 4, 8, 16)  # evaluate at L, 2L, ..., 16L
    eval_tokens: int = 16384  # the same tokens at every evaluation length
    d_model: int = 64
    n_head: int = 4
    n_layer: int = 2
    batch: int = 16
    steps: int = 600
    lr: float = 1e-2
    warmup: int = 50
    seed: int = 0  # weights and batch order (the same for every scheme)
    threads: int = 1  # 2 threads: 3-9x slower than 1 on a shared, busy CPU
    schemes: tuple = SCHEMES
    rope_scalings: tuple = ROPE_SCALINGS


# --8<-- [end:Config]

FULL = Config()
SMOKE = replace(
    FULL,
    train_len=16,
    d_model=32,
    n_head=2,
    n_layer=1,
    steps=40,
    batch=8,
    eval_multiples=(1, 2),
    eval_tokens=512,
    warmup=10,
)


def to_dict(config: Config) -> dict:
    """JSON-ready dict: tuples become lists."""
    return {
        k: list(v) if isinstance(v, tuple) else v for k, v in asdict(config).items()
    }


def from_dict(values: dict) -> Config:
    """Inverse of `to_dict`."""
    return Config(
        **{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    )
