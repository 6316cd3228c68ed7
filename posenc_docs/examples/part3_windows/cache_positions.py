"""Which tokens a cache holds while decoding, and the positions RoPE gives them."""

from posenc_docs.windows import rolling_cache_positions, sink_cache_positions

print("rolling window of 4 (positions = tokens):")
for step in (2, 5, 9):
    tokens, positions = rolling_cache_positions(window=4, step=step)
    print(f"  step {step}: tokens {tokens.tolist()}  positions {positions.tolist()}")

print("2 sinks + window of 4 (positions re-assigned in the cache):")
for step in (2, 5, 9):
    tokens, positions = sink_cache_positions(n_sink=2, window=4, step=step)
    print(f"  step {step}: tokens {tokens.tolist()}  positions {positions.tolist()}")

tokens, positions = rolling_cache_positions(window=4096, step=100_000)
offset = positions[-1] - positions[0]
print(f"window 4,096 at step 100,000: positions {positions[0]:,}..{positions[-1]:,},")
print(f"  largest query-key offset {offset:,}")
