"""``python -m posenc_docs.lab``: rerun the lab and rewrite results.json."""

from posenc_docs.lab.run import main

main()
