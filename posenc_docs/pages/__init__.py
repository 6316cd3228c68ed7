"""Page support: the numbers, tables and demonstrations the pages quote.

One module per page group (``part1``, ``part2_basics``, ``part2_extension``,
``pitfalls``), plus ``models`` (published configs, with their sources) and
``format`` (how numbers and tables are written). These modules measure claims with
the library; they do not re-derive its formulas.
"""
