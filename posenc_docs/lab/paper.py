"""Published numbers of the ALiBi paper, for comparison with the lab's own run.

Press, Smith & Lewis, "Train Short, Test Long: Attention with Linear Biases
Enables Input Length Extrapolation", ICLR 2022, arXiv:2108.12409. These are data
copied from the paper's Table 1 (speed) and appendix Table 2 (perplexity), not
computed here. Models of 247M parameters trained on WikiText-103 with L = 512
tokens and evaluated on its validation set with non-overlapping windows of
``L_valid`` tokens.
"""

CITATION = "Press, Smith & Lewis (ICLR 2022), arXiv:2108.12409"
ARXIV_URL = "https://arxiv.org/abs/2108.12409"
TRAIN_LEN = 512

# --8<-- [start:TABLE2]
# Table 2: validation perplexity at L_valid tokens (None: out of memory).
TABLE2_LENGTHS = (512, 1012, 3512, 15512)
TABLE2_PERPLEXITY = {
    "sinusoidal": (20.05, 43.54, 178.97, 406.01),
    "rotary": (20.07, 21.37, 35.54, 79.25),
    "T5 bias": (19.65, 18.79, 22.91, None),
    "ALiBi": (19.73, 18.73, 18.40, 18.31),
}
# Table 1: training speed at L = 512, words per second on one V100 GPU.
TABLE1_TRAIN_WORDS_PER_SECOND = {
    "sinusoidal": 28_500,
    "rotary": 20_000,
    "T5 bias": 14_400,
    "ALiBi": 28_300,
}
# --8<-- [end:TABLE2]

# The lab's scheme names for the paper's columns (T5 bias is not in the lab).
LAB_NAME = {"sinusoidal": "sinusoidal", "rotary": "rope", "ALiBi": "alibi"}
