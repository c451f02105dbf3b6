"""Adapters: SQLite/in-memory storage, embedders, text segmentation, CLI and the composition root."""
