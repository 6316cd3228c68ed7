# ---
# jupyter:
#   description: >-
#     Notebook: the sinusoidal encoding hands on — equal offsets give equal dot
#     products, and a shift is one rotation.
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Sinusoidal encoding, hands on
#
# This notebook runs every time the site is built, so the outputs below are
# current. Download it with the link at the top of the page; to run it yourself,
# install `posenc_docs` as the [Install](../../install/) page says.
#
# `encode(pos, d)` returns $PE(pos)$, the sinusoidal encoding of position `pos`:
# a vector of `d` numbers, a sine and a cosine for each of $d/2$ frequencies
# $\omega_i = 10000^{-2i/d}$ ([the formula](../../part1/formula/)). Here $d = 64$.

# %%
import numpy as np

from posenc_docs.sinusoidal import (
    encode,
    offset_similarity,
    shift_matrix,
)

np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# The dot product $PE(pos) \cdot PE(pos + k)$ depends only on the offset $k$, not
# on $pos$. The code takes three starting positions far apart and computes it for
# $k = 1, 2, 3$.

# %%
d = 64
for start in (0, 1_000, 50_000):
    sims = [encode(start, d) @ encode(start + k, d) for k in (1, 2, 3)]
    print(f"start {start:>6}:", np.round(sims, 4))
print("closed form: ", np.round(offset_similarity(np.arange(1, 4), d), 4))

# %% [markdown]
# Each sine/cosine pair contributes
# $\sin a \sin b + \cos a \cos b = \cos(k\omega_i)$, so the dot product is
# $\sum_i \cos(k\omega_i)$: the *closed form* that `offset_similarity(k, d)`
# computes without any position. At $k = 0$
# every term is 1 and the sum is $d/2 = 32$; as $k$ grows the fast pairs turn
# away and the sum falls overall, with ripples as the fast pairs come back round.
#
# Moving by $k$ positions is also one fixed linear map. `shift_matrix(k, d)`
# builds the $d \times d$ matrix $M_k$ that rotates each (sine, cosine) pair by
# the angle $k\omega_i$, so that $M_k \, PE(pos) = PE(pos + k)$ for every $pos$
# ([why](../../part1/clocks/#relative-position)). The code checks it for $k = 3$
# at two starts and prints the largest difference over the 64 entries.

# %%
M = shift_matrix(3, d)
for start in (5, 777):
    error = np.abs(M @ encode(start, d) - encode(start + 3, d)).max()
    print(f"start {start}: largest difference {error:.1e}")

# %% [markdown]
# Both differences are float64 rounding: in exact arithmetic they are 0. The one
# at 777 is larger because the angles $pos \cdot \omega_i$ are larger there, and
# so is their rounding error.
