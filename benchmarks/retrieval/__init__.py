"""Retrieval benchmarks (issue 5): hlmem against BM25, dense and RRF baselines on LoCoMo, MemDaily and the smoke set.

Run ``python benchmarks/retrieval/run.py --help``. The modules are importable (the unit tests load
this folder as a package by path): ``data`` (loaders), ``metrics`` (recall@k, MRR, percentiles),
``baselines``, ``vectors`` (embedding cache), ``hlmem_side`` (stores through ``hlmem.Memory``),
``smoke`` (per-case verdicts), ``report`` (tables and charts) and ``cli``.
"""
