"""SQLite adapter built on APSW: connection factory, migrations, event log, projections, search."""
