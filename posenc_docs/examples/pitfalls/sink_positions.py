"""A sink cache must count positions inside the cache, not in the stream."""

from posenc_docs.pages.pitfalls import sink_cache_offsets

# Llama 2 7B's RoPE (d 128, base 10,000, trained on 4,096 tokens); 4 sinks + 4,092
print("offset from the current token to sink 0")
print("and the rotary pairs it turns to an")
print("unseen angle")
print(f"{'':>7}  {'absolute':>14}  {'in the cache':>14}")
print(f"{'step':>7}  {'offset':>7} {'pairs':>6}  {'offset':>7} {'pairs':>6}")
for step in (4_000, 8_000, 20_000, 100_000):
    gap = sink_cache_offsets(4, 4092, step)
    a, c = gap["absolute"], gap["in_cache"]
    print(
        f"{step:>7,}  {a['offset']:>7,} {a['unseen_pairs']:>6}"
        f"  {c['offset']:>7,} {c['unseen_pairs']:>6}"
    )
