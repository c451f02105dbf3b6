"""HTTP provider plumbing both provider adapters (``llm/``, ``rerank/``) share: :mod:`.common` (the key
from the environment and kept out of every message, ``post``, what a failure means, ``Retry-After``,
the ledger's status of an error) and :mod:`.client` (``ProviderClient``: the attempt loop with
retries, the budget and the ledger). ADRs 0010, 0017, 0034."""
