"""Passkey retrieval: the model's side (loss and exact-match accuracy, torch).

The sequences come from `posenc_docs.lab.data.passkey_sequences`: filler
with ``marker k_1 .. k_K`` planted in it and the question ``marker k_1 .. k_K``
at the end. The model must predict the key after the question's marker.
"""

# --8<-- [start:passkey_loss]
import torch
from torch.nn.functional import cross_entropy


def passkey_loss(model, tokens: torch.Tensor, key_len: int, weight: float):
    """Language-model loss on the filler plus ``weight`` x loss on the answer.

    Notes
    -----
    With per-target cross-entropies c_t, the answer A (the last K targets) and
    the rest R: loss = mean_{t in R} c_t + w * mean_{t in A} c_t. The model keeps
    modelling the language while the answer, K of L targets, is not drowned out.
    """
    logits = model(tokens[:, :-1])  # (B, T, vocab)
    targets = tokens[:, 1:]  # (B, T)
    per_token = cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    return per_token[:, :-key_len].mean() + weight * per_token[:, -key_len:].mean()


# --8<-- [end:passkey_loss]


# --8<-- [start:exact_match]
@torch.no_grad()
def exact_match(model, sequences, key_len: int) -> float:
    """Share of sequences whose key the model reproduces, greedy, token for token.

    Notes
    -----
    One teacher-forced pass: greedy decoding writes the key exactly when, at each
    of the K answer positions, the most likely token given the true prefix is
    the key's next digit (by induction over the K steps), so the argmaxes of a
    single forward pass decide it.
    """
    tokens = torch.from_numpy(sequences)  # (n, T + 1)
    per_batch = max(1, 8192 // tokens.shape[1])  # bound the attention memory
    right = 0
    for i in range(0, len(tokens), per_batch):
        batch = tokens[i : i + per_batch]
        guess = model(batch[:, :-1])[:, -key_len:].argmax(-1)  # (b, K)
        right += (guess == batch[:, -key_len:]).all(dim=1).sum().item()
    return right / len(tokens)


# --8<-- [end:exact_match]
