"""A sink cache must count positions inside the cache, not in the stream."""

from posenc_docs.pages.pitfalls import sink_cache_offsets

# Llama 2 7B's RoPE (d 128, base 10,000, trained on 4,096 tokens); 4 sinks + 4,092
print("4 sinks + 4,092 recent tokens; offset from the current token to sink 0")
print(f"{'step':>7} {'absolute':>9} {'unseen pairs':>13} {'in cache':>9} {'unseen':>7}")
for step in (4_000, 8_000, 20_000, 100_000):
    gap = sink_cache_offsets(4, 4092, step)
    a, c = gap["absolute"], gap["in_cache"]
    print(
        f"{step:>7,} {a['offset']:>9,} {a['unseen_pairs']:>13}"
        f" {c['offset']:>9,} {c['unseen_pairs']:>7}"
    )
