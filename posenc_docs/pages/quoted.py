"""Numbers quoted from papers on Part II pages 06 and 09: data, not computations.

Each entry is copied from one table or section of one paper and names it, so a
page can print the number and say where it comes from (``cite``). Nothing here
is derived; the ALiBi paper's tables are read from `posenc_docs.lab.paper`,
which the lab page uses too, so each quoted figure is typed once.
"""

from dataclasses import dataclass

from posenc_docs.lab import paper as alibi_paper


@dataclass(frozen=True)
class Quote:
    """One published number and where it is printed."""

    value: float | None  # None: the paper reports no number (e.g. out of memory)
    paper: str
    where: str  # table or section
    what: str


_ALIBI = "Press et al. 2022 (ALiBi)"
_PI = "Chen et al. 2023 (Position Interpolation), arXiv:2306.15595"
_ALIBI_PPL = alibi_paper.TABLE2_PERPLEXITY
_ALIBI_LENGTHS = alibi_paper.TABLE2_LENGTHS


def _alibi_ppl(scheme: str, length: int) -> Quote:
    value = _ALIBI_PPL[scheme][_ALIBI_LENGTHS.index(length)]
    return Quote(value, _ALIBI, "appendix Table 2", f"{scheme} perplexity at {length}")


def _alibi_speed(scheme: str) -> Quote:
    value = alibi_paper.TABLE1_TRAIN_WORDS_PER_SECOND[scheme]
    return Quote(value, _ALIBI, "Table 1", f"{scheme} training words/s")


def _pi_ppl(value: float, model: str, window: int) -> Quote:
    return Quote(value, _PI, "Table 1 (LLaMA 7B, PG-19)", f"{model} at {window}")


QUOTES: dict[str, Quote] = {
    **{
        f"alibi_ppl_{scheme}_{length}": _alibi_ppl(scheme, length)
        for scheme in _ALIBI_PPL
        for length in _ALIBI_LENGTHS
    },
    **{f"alibi_speed_{scheme}": _alibi_speed(scheme) for scheme in _ALIBI_PPL},
    "pi_original_2048": _pi_ppl(7.20, "unmodified", 2048),
    "pi_original_beyond": _pi_ppl(1000, "unmodified, above this", 4096),
    "pi_ft_2048": _pi_ppl(7.21, "fine-tuned without PI", 2048),
    "pi_ft_4096": _pi_ppl(7.34, "fine-tuned without PI", 4096),
    "pi_ft_8192": _pi_ppl(7.69, "fine-tuned without PI", 8192),
    "pi_pi_2048": _pi_ppl(7.13, "fine-tuned with PI", 2048),
    "pi_pi_4096": _pi_ppl(6.96, "fine-tuned with PI", 4096),
    "pi_pi_8192": _pi_ppl(6.95, "fine-tuned with PI", 8192),
    "pi_train_length": _pi_ppl(2048, "LLaMA 7B training length", 2048),
    "pi_ft_length": _pi_ppl(8192, "fine-tuning length", 8192),
    "yarn_steps_llama2": Quote(
        400, "Peng et al. 2023 (YaRN), arXiv:2309.00071", "section 4.1",
        "fine-tuning steps for Llama 2 at s = 16",
    ),
    "llama3_long_context_tokens": Quote(
        800, "Llama Team 2024, The Llama 3 Herd of Models", "section 3.4.2",
        "billion tokens of long-context pre-training, 8K to 128K (405B)",
    ),
    "llama3_long_context_stages": Quote(
        6, "Llama Team 2024, The Llama 3 Herd of Models", "section 3.4.2",
        "stages of context growth, 8K to 128K (405B)",
    ),
    "qwen25_initial_rope_theta": Quote(
        10_000, "Qwen Team 2024, Qwen2.5 Technical Report, arXiv:2412.15115",
        "section 3.3", "RoPE base before the long-context stage",
    ),
    "qwen25_initial_context": Quote(
        4096, "Qwen Team 2024, Qwen2.5 Technical Report, arXiv:2412.15115",
        "section 3.3", "context length of the first pre-training phase",
    ),
}  # fmt: skip


def get(name: str) -> Quote:
    """The quote called ``name``; a KeyError lists the known names."""
    if name not in QUOTES:
        raise KeyError(f"no quote named {name!r}; known: {sorted(QUOTES)}")
    return QUOTES[name]


def cite(name: str) -> str:
    """``"quoted: <paper>, <table or section>"`` for a page to print."""
    quote = get(name)
    return f"quoted: {quote.paper}, {quote.where}"
