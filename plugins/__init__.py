"""Provider plugins: entry-point discovery behind an allowlist (groups hlmem.embedders, hlmem.llms, hlmem.rerankers)."""
