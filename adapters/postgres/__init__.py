"""PostgreSQL + pgvector storage (issue 18; docs/postgres.md, ADR 0047)."""
