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
# current. Download it (the link at the top of the page) and run it with the
# `posenc_docs` wheel this site serves installed (its Install page has the
# command), or from a checkout of the site.

# %%
import numpy as np

from posenc_docs.sinusoidal import encode, offset_similarity, shift_matrix

np.set_printoptions(precision=4, suppress=True)

# %% [markdown]
# The same offset gives the same dot product anywhere in the sequence.
# Pick three starting positions far apart and compare them at offsets 1 to 3.

# %%
d = 64
for start in (0, 1_000, 50_000):
    sims = [encode(start, d) @ encode(start + k, d) for k in range(1, 4)]
    print(f"start {start:>6}:", np.round(sims, 4))
print("closed form: ", np.round(offset_similarity(np.arange(1, 4), d), 4))

# %% [markdown]
# Moving by $k$ positions is one fixed rotation $M_k$, whatever the start.

# %%
M = shift_matrix(3, d)
for start in (5, 777):
    error = np.abs(M @ encode(start, d) - encode(start + 3, d)).max()
    print(f"start {start}: max |M_3 PE(pos) - PE(pos+3)| = {error:.1e}")
