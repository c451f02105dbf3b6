"""``python -m hlmem`` runs the CLI."""

from hlmem.adapters.cli.main import main

main()
