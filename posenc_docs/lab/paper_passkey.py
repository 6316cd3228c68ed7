"""Published passkey-retrieval numbers of the PI and YaRN papers (quoted, not run).

Typed in from the papers' tables, for comparison with the lab's own run; the lab
computes none of them. Both papers fine-tune LLaMA / Llama 2 briefly at the
new length and then ask for a 5-digit passkey hidden in repeated filler
sentences (the task of Mohtashami & Jaggi, 2023).
"""

PI_CITATION = (
    "Chen, Wong, Chen & Tian, Extending Context Window of Large Language Models "
    "via Positional Interpolation (2023), arXiv:2306.15595"
)
PI_URL = "https://arxiv.org/abs/2306.15595"
PI_TRAIN_LEN = 2048  # LLaMA's pre-training context window

# --8<-- [start:PI_TABLE4]
# PI, Section 3.3, Table 4: effective context window k_max after fine-tuning for
# the given number of steps; k_max is the largest distance k such that the passkey
# is found in at least 20% of 10 tries at every distance up to k (32 distances
# spread over the target window). FT: plain fine-tuning at the new length, no
# interpolation. None: not run.
PI_TABLE4_STEPS = (200, 400, 600, 800, 1000, 10000)
PI_TABLE4 = {  # (model, target window, method) -> k_max after each step count
    ("7B", 8192, "FT"): (1792, 2048, 2048, 2048, 2304, 2560),
    ("33B", 8192, "FT"): (1792, 2048, 1792, 2048, 2304, None),
    ("7B", 8192, "PI"): (8192, 8192, 8192, 8192, 8192, None),
    ("7B", 16384, "PI"): (16384, 16384, 16384, 16384, 16384, None),
    ("7B", 32768, "PI"): (32768, 32768, 18432, 32768, 32768, None),
    ("33B", 8192, "PI"): (8192, 8192, 8192, 8192, 8192, None),
    ("33B", 16384, "PI"): (16384, 16384, 16384, 16384, 16384, None),
}
# --8<-- [end:PI_TABLE4]

YARN_CITATION = (
    "Peng, Quesnelle, Fan & Shippole, YaRN: Efficient Context Window Extension "
    "of Large Language Models (ICLR 2024), arXiv:2309.00071"
)
YARN_URL = "https://arxiv.org/abs/2309.00071"
YARN_TRAIN_LEN = 4096  # Llama 2's pre-training context window

# --8<-- [start:YARN_TABLE5]
# YaRN, Appendix B.2, Table 5 (summarised in Section 4.3.2): passkey context is
# the longest tested window with at least 80% accuracy; accuracy is the mean over
# all tested windows up to it (10 tries each, passkey anywhere in the window).
# Columns: size, model, scale factor s, context window, fine-tuning data length,
# method, passkey context, passkey accuracy (%).
YARN_TABLE5 = (
    ("7B", "Together", 4, "32k", "32k", "PI", "32k", 100.0),
    ("7B", "Code Llama", 88.6, "100k", "16k", "NTK", "112k", 94.3),
    ("7B", "YaRN", 16, "64k", "64k", "YaRN", "64k", 96.3),
    ("7B", "YaRN", 32, "128k", "64k", "YaRN", "128k", 99.4),
    ("13B", "Code Llama", 88.6, "100k", "16k", "NTK", "128k", 99.4),
    ("13B", "YaRN", 16, "64k", "64k", "YaRN", "64k", 97.5),
    ("13B", "YaRN", 32, "128k", "64k", "YaRN", "128k", 99.4),
)
YARN_FINETUNE_STEPS = {16: 400, 32: 200}  # Section 4.1: s = 32 starts from s = 16
# --8<-- [end:YARN_TABLE5]
