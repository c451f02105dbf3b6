"""Reading a question's intent with models trained offline (ADR 0090)."""
