"""Stretching RoPE from 8,192 to 131,072 tokens (s = 16), head dim 128, base 10,000."""

from posenc_docs import scaling
from posenc_docs.pages.part1 import angle_overshoot, pairs_overshooting
from posenc_docs.rope import inv_freq

d, base, trained, s = 128, 10000.0, 8192, 16
target = s * trained
theta = inv_freq(d, base)  # (64,) the frequencies the model was trained with
yarn, _ = scaling.yarn(d, base, factor=s, original_max_position_embeddings=trained)
methods = {
    "no change": theta,
    "interpolation (PI)": scaling.linear(d, base, factor=s)[0],
    "NTK-aware base": scaling.ntk(d, base, factor=s)[0],
    "YaRN": yarn,
}
print("for each method: radians per token of the")
print("fastest pair, pairs past their trained")
print("angles, and the worst overshoot")
print(f"{'':<18}{'rad/token':>10}{'past':>6}{'worst':>8}")
for name, freqs in methods.items():
    over = angle_overshoot(freqs, theta, trained, target)  # (64,)
    past = pairs_overshooting(freqs, theta, trained, target)
    print(f"{name:<18}{freqs[0]:>10.4f}{past:>6}{over.max():>7.2f}x")
