"""Extraction: turning observations into candidate claims (deterministic rules first, an LLM when configured)."""
