"""Command-line interface ``hlmem`` (click + rich)."""
