"""Page 09: a 300-page book in tokens, and what retrieval sends instead."""

import math

from posenc_docs.pages import models
from posenc_docs.pages.part2_extension import context_ceiling, tokens_for_words

pages, words_per_page, words_per_token = 300, 300, 0.75  # assumptions
book = tokens_for_words(pages * words_per_page, words_per_token)
print(f"{pages} pages x {words_per_page} words = {pages * words_per_page:,} words")
print(
    f"{pages * words_per_page:,} words / {words_per_token} words per token "
    f"= {book:,.0f} tokens"
)

chunk = models.get("BERT-base").max_position_embeddings  # an encoder's hard limit
top_k = 5
print(f"\nRAG with {chunk}-token chunks: {math.ceil(book / chunk)} chunks to embed")
print(f"top-{top_k} retrieval sends {top_k * chunk:,} tokens of book text")
for name in ("GPT-2 (124M)", "Llama-2-7B", "Llama-3-8B", "Llama-3.1-8B"):
    room = context_ceiling(models.get(name)).tokens
    left = room - top_k * chunk
    verdict = f"{left:,} left for prompt and answer" if left > 0 else "does not fit"
    print(f"  {name} (ceiling {room:,}): {verdict}")
