"""Which tokens a cache holds while decoding, and the positions RoPE gives them."""

from posenc_docs.windows import rolling_cache_positions, sink_cache_positions

for title, cache in (
    ("rolling window of 4:", lambda step: rolling_cache_positions(4, step)),
    ("2 sinks + window of 4:", lambda step: sink_cache_positions(2, 4, step)),
):
    print(title)
    for step in (2, 5, 9):
        tokens, positions = cache(step)
        print(f"  step {step}  tokens    {tokens.tolist()}")
        print(f"          positions {positions.tolist()}")

tokens, positions = rolling_cache_positions(window=4096, step=100_000)
print("window 4,096 at step 100,000:")
print(f"  positions {positions[0]:,} to {positions[-1]:,}")
print(f"  largest query-key offset {positions[-1] - positions[0]:,}")
