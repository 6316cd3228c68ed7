"""``python -m posenc_docs.lab``: rerun the lab (``--help`` says where it writes)."""

from posenc_docs.lab.run import main

main()
