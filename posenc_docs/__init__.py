"""Reference implementations of transformer positional encodings.

One module per scheme: :mod:`posenc_docs.sinusoidal`, :mod:`posenc_docs.learned`,
:mod:`posenc_docs.rope`, :mod:`posenc_docs.alibi` and :mod:`posenc_docs.scaling`,
plus :mod:`posenc_docs.attention` for demonstrations. NumPy functions are the
reference; PyTorch modules are tested equal to them.
"""

__version__ = "0.1.0"
