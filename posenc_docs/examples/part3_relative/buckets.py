"""Part III, page 1: which distances share a T5 bucket, and what the bias costs."""

from posenc_docs.pages import models, part2_extension, part3_relative

t5 = models.get("T5 v1.1 base")
config = {
    "num_buckets": t5.extra["relative_attention_num_buckets"],
    "max_distance": t5.extra["relative_attention_max_distance"],
}
for label, bidirectional in (("encoder", True), ("decoder", False)):
    edges = part3_relative.bucket_edges(bidirectional=bidirectional, **config)
    exact = part3_relative.exact_buckets(bidirectional=bidirectional, **config)
    last, first_of_last, _ = edges[-1]
    print(f"{label}: {len(edges)} buckets for the past, {exact} exact;")
    print(f"bucket {last} holds every distance from {first_of_last} on")

print(f"learned numbers, both stacks: {part2_extension.position_parameters(t5):,}")
print("bias tensor in float32, numbers and GiB:")
for seq_len in (512, 4096, 15_512):
    entries = part3_relative.bias_entries(t5, seq_len)
    print(f"{seq_len:>7,} tokens: {entries:>14,} {4 * entries / 2**30:6.2f}")
