"""Pure domain: events, claim state, reducers, supersede decisions, bitemporal queries (stdlib + attrs only)."""
