"""Page 09: a 300-page book in tokens, and what retrieval sends instead."""

from posenc_docs.pages import models
from posenc_docs.pages.part2_extension import (
    BOOK_PAGES,
    WORDS_PER_PAGE,
    WORDS_PER_TOKEN,
    book_tokens,
    book_words,
    context_ceiling,
    retrieved_tokens,
    windows_needed,
)

book = book_tokens()  # BOOK_PAGES x WORDS_PER_PAGE words at WORDS_PER_TOKEN
print(f"{BOOK_PAGES} pages x {WORDS_PER_PAGE} words = {book_words():,} words")
print(
    f"{book_words():,} words / {WORDS_PER_TOKEN} words per token = {book:,.0f} tokens"
)

chunk = models.get("BERT-base").max_position_embeddings  # an encoder's hard limit
top_k = 5
sent = retrieved_tokens(chunk, top_k)
print(f"\nRAG with {chunk}-token chunks: {windows_needed(book, chunk)} chunks to embed")
print(f"top-{top_k} retrieval sends {sent:,} tokens of book text")
for name in ("GPT-2 (124M)", "Llama-2-7B", "Llama-3-8B", "Llama-3.1-8B"):
    room = context_ceiling(models.get(name)).tokens
    left = room - sent
    verdict = f"{left:,} left for prompt and answer" if left > 0 else "does not fit"
    print(f"  {name} (ceiling {room:,}): {verdict}")
