"""Reranker adapters: an HTTP client for Cohere-style, TEI and DashScope rerank endpoints, with presets (ADR 0017)."""
