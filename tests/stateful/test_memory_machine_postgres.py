"""The state machine of test_memory_machine.py with PostgreSQL in place of SQLite (issue 18).

The same rules and invariants drive the in-memory store and a PostgreSQL store (a fresh database
per example, cloned from the session server's template: tests/support/postgres.py) in lockstep:
every write, recall, maintenance pass, revival and forget must come out the same, the logs must
be identical and gapless, every projection must equal the fold of its own log, forgotten items
must stay forgotten, and the PostgreSQL log replayed into a fresh SQLite file (the machine's
``replay_into_sqlite`` rule) must rebuild equal projections. With test_memory_machine.py holding
SQLite to the same in-memory reference, the three stores agree.

Every rule runs here, the derived layer's and the experience channel's included, but backups and
restores, which are SQLite files (``hlmem backup``). Examples:
12 (a database each), ``HLMEM_PG_MACHINE_EXAMPLES=N`` for more.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings
from hypothesis.stateful import precondition, rule, run_state_machine_as_test

from hlmem.adapters.ids import SequentialIds  # noqa: F401 - the parent's services use it
from hlmem.application.forgetting import ForgetService  # noqa: F401
from hlmem.application.inspect import InspectService
from hlmem.application.maintenance import MaintenanceService
from hlmem.application.recall import RecallService
from hlmem.application.writes import WriteService
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

import test_memory_machine as machine_module
from support.postgres import drop_database, new_database

MemoryMachine = machine_module.MemoryMachine


class PostgresMemoryMachine(MemoryMachine):
    """In-memory and PostgreSQL stores driven in lockstep (``self.sql`` is the PostgreSQL store)."""

    admin_url: str = ""

    def _open_sql(self) -> None:
        from hlmem.adapters.postgres.store import PostgresStorage

        if not hasattr(self, "_database"):
            self._url, self._database = new_database(self.admin_url)
        self.sql = PostgresStorage(self._url)
        self.sql_writes = WriteService(self.sql, self.clock, self.sql_ids, DEFAULT_REGISTRY)
        self.sql_recall = RecallService(self.sql, self.clock)
        self.sql_inspect = InspectService(self.sql, DEFAULT_REGISTRY, self.sql.tombstones)
        self.sql_forget = self._forget_service(self.sql)
        self.sql_maintain = MaintenanceService(self.sql, self.clock, self.sql_ids, DEFAULT_REGISTRY,
                                               policy=machine_module.POLICY)
        self.writes_since_reopen = 0
        self.generation += 1
        self._derived_wiring("sql")

    def teardown(self) -> None:
        try:
            super().teardown()
        finally:
            if hasattr(self, "_database"):
                drop_database(self.admin_url, self._database)

    @precondition(lambda self: False)
    @rule()
    def take_backup(self) -> None:
        """Backups are SQLite files: not taken here (so no restore runs either)."""


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_postgres_machine_agrees_with_the_in_memory_store(postgres_admin_url: str) -> None:
    PostgresMemoryMachine.admin_url = postgres_admin_url
    run_state_machine_as_test(PostgresMemoryMachine, settings=settings(
        settings.get_profile(settings._current_profile),
        max_examples=int(os.environ.get("HLMEM_PG_MACHINE_EXAMPLES", min(settings().max_examples, 12)))))
