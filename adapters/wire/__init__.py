"""The wire format: the JSON shape of every result, shared by every front end (ADR 0076).

The CLI's ``--json``, the REST routes, the MCP tools and the Hermes provider all answer with these
dicts, so a claim, a recall or a forget report reads the same whichever door it came through.
Front ends are siblings over :class:`~hlmem.Memory`: each imports this package, none imports
another front end (tests/test_architecture.py). One module per subject:

* :mod:`.text` — stored text made inert for a terminal (``plain``) and JSON text (``json_text``);
* :mod:`.claims` — claims, events, bitemporal rows, ``explain``;
* :mod:`.recall` — recall results, their items, intent and packet;
* :mod:`.writes` — what a write answers (``add``, ``remember``, ``correct``) and ``get``;
* :mod:`.pipeline` — jobs and conflicts;
* :mod:`.forget` — forget reports;
* :mod:`.governance` — backups, restores and the audit;
* :mod:`.experience` — episodes, policies, procedures and what an episode's end changed;
* :mod:`.derived` — derived items with their sources.

The package itself is a docstring: import the module you need, e.g.
``from hlmem.adapters.wire.claims import claim_dict``.
"""
