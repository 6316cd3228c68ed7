"""A few Adam steps, for the tests that train tiny models with default arguments."""

import torch


def adam_losses(parameters, loss_fn, *, steps: int, lr: float) -> list[float]:
    """Loss before each of ``steps`` Adam steps on ``loss_fn()``."""
    optimizer = torch.optim.Adam(list(parameters), lr=lr)
    losses = []
    for _ in range(steps):
        loss = loss_fn()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
