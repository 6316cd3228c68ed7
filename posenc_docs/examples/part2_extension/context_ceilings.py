"""Page 09: each model's context ceiling from its config, against a 300-page book."""

from posenc_docs.pages import models
from posenc_docs.pages.format import markdown_table
from posenc_docs.pages.part2_extension import (
    BOOK_PAGES,
    WORDS_PER_PAGE,
    WORDS_PER_TOKEN,
    book_tokens,
    context_ceiling,
    windows_needed,
)

book = book_tokens()  # the assumptions are stated in the first line printed


def arithmetic(model, c):
    if c.product is not None and "factor" not in model.rope_scaling:  # LongRoPE
        return (
            f"max_position_embeddings {c.configured:,}: no factor, taken as "
            f"{c.configured:,} ÷ {c.original:,} = {c.factor:g}"
        )
    if c.product is not None:
        head = f"{c.original:,} × {c.factor:g} = {c.product:,}"
        if c.product == c.configured:
            return f"{head} = max_position_embeddings"
        if c.rule == "L0 x factor":
            return f"{head}; max_position_embeddings stays {c.configured:,}"
        return f"{head}, but max_position_embeddings is {c.configured:,}"
    if model.scheme == "learned":
        return f"position table with {c.configured:,} rows"
    if model.scheme == "alibi":
        trained = c.configured or model.extra["train_length"]
        return f"trained at {trained:,}; ALiBi has no table"
    if "seq_length" in model.extra:
        return f"trained at {model.extra['seq_length']:,}; max {c.configured:,}"
    if "n_positions" in model.extra:
        return (
            f"max_position_embeddings {c.configured:,} (read as the ceiling); "
            f"n_positions {model.extra['n_positions']:,} is another field"
        )
    if "sliding_window" in model.extra:
        return (
            f"max_position_embeddings {c.configured:,}; sliding window "
            f"{model.extra['sliding_window']:,}"
        )
    if c.configured is None:
        return "no table, no limit in the config"
    return f"max_position_embeddings {c.configured:,}"


print(
    f"Book: {BOOK_PAGES} pages × {WORDS_PER_PAGE} words ÷ {WORDS_PER_TOKEN} "
    f"words/token = {book:,.0f} tokens\n"
)
rows = []
for model in models.MODELS.values():
    c = context_ceiling(model)
    tokens = c.tokens or model.extra.get("train_length")
    limit = "—" if tokens is None else f"{tokens:,}"
    if model.scheme == "learned":
        limit += " (hard)"
    windows = "—" if tokens is None else f"{windows_needed(book, tokens):,}"
    trained = "—" if model.trained_length is None else f"{model.trained_length:,}"
    if model.trained_length and tokens and model.trained_length < tokens:
        windows += f" ({windows_needed(book, model.trained_length):,} within {trained})"
    rows.append(
        [model.name, model.scheme, arithmetic(model, c), limit, trained, windows]
    )
header = ["Model", "Scheme", "From the config", "Ceiling", "Trained at"]
header.append("Windows for the book")
print(markdown_table(header, rows, align="---"))
