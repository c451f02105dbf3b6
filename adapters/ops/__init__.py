"""Operator tools that look at a store from outside: ``hlmem doctor`` and ``hlmem ops report`` (ADR 0035)."""
