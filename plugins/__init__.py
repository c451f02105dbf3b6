"""Provider plugins (planned, not built yet): entry-point discovery behind an allowlist.

Nothing here reads entry points today; built-in providers are chosen by name in the adapters.
"""
