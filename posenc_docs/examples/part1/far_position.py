"""PE(50,000) is a valid vector, and unlike every vector seen in training."""

from posenc_docs.pages.part1 import nearest_training_cosine, pairs_beyond, phase_gap

d = 512
for train_len in (512, 2048):
    print(f"trained on positions 0 .. {train_len - 1:,} (d = {d}, {d // 2} pairs)")
    for pos in (train_len, 50_000):
        cosine = nearest_training_cosine(pos, train_len, d)
        gap = phase_gap(pos, train_len, d)  # (256,) radians beyond training
        far = pairs_beyond(pos, train_len, d, radians=0.5)
        print(f"  PE({pos:,}): closest training row has cosine {cosine:.3f}")
        print(f"    {far} pairs > 0.5 rad from any angle seen; worst {gap.max():.2f}")
