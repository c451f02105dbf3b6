"""The in-memory storage adapter: ``InMemoryStorage`` and its job queue, tombstone ledger and activity log."""
