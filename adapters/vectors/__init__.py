"""Vector search in process memory: ``VectorIndex`` and its Hamming first stage (numpy, or numba compiled)."""
