"""Runnable usage examples; each file is shown on a page and executed at build time."""
