"""The BudgetLedger port's contract, written once and run against both adapters (ADR 0034).

``BudgetLedgerContract`` holds the cases; each adapter subclasses it with a ``make_ledger``
factory. The SQLite subclass adds what only a file can show: a reservation made by a process
that dies before settling still counts after reopening (until it expires), and two connections
racing for the last unit of budget never both win.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hlmem.adapters.inmemory.budget import InMemoryBudgetLedger
from hlmem.adapters.sqlite.budget import SQLiteBudgetLedger
from hlmem.application.ports import BudgetLedger
from hlmem.domain.budget import BudgetLimits, Charge, Spend
from hlmem.domain.errors import BudgetExceeded, NotFound

T0 = datetime(2026, 12, 3, 10, 0, tzinfo=timezone.utc)
TTL = timedelta(minutes=15)
TWO_REQUESTS = BudgetLimits(requests_per_day=2)


def reserve(ledger: BudgetLedger, charge: Charge = Charge(cost=0.0), *, limits: BudgetLimits = TWO_REQUESTS,
            at: datetime = T0):
    return ledger.reserve(charge, limits=limits, now=at, expires_at=at + TTL, what="p:m chat test")


class BudgetLedgerContract:
    """Cases every BudgetLedger adapter must pass; subclasses provide ``make_ledger``."""

    @contextmanager
    def make_ledger(self, tmp_path: Path) -> Iterator[BudgetLedger]:
        raise NotImplementedError

    @pytest.fixture
    def ledger(self, tmp_path: Path) -> Iterator[BudgetLedger]:
        with self.make_ledger(tmp_path) as ledger:
            yield ledger

    def test_it_satisfies_the_port(self, ledger: BudgetLedger) -> None:
        assert isinstance(ledger, BudgetLedger)

    def test_reservations_count_until_the_limit_then_refuse_and_record_nothing(self, ledger: BudgetLedger) -> None:
        first = reserve(ledger, Charge(tokens=10, cost=0.5))
        assert (first.day, first.charge, first.expires_at) == (T0.date(), Charge(tokens=10, cost=0.5), T0 + TTL)
        reserve(ledger)
        with pytest.raises(BudgetExceeded) as caught:
            reserve(ledger)
        assert (caught.value.limit, caught.value.spent, caught.value.reserved, caught.value.allowed) == (
            "requests_per_day", 0, 2, 2)
        assert caught.value.retry_at == T0 + TTL  # only reservations stand in the way
        totals = ledger.totals(now=T0, limits=TWO_REQUESTS)
        assert totals.reserved == Spend(requests=2, tokens=10, cost=0.5) and totals.spent == Spend()
        assert totals.limits == TWO_REQUESTS and totals.next_expiry == T0 + TTL
        assert totals.resets_at == datetime(2026, 12, 4, tzinfo=timezone.utc)

    def test_settle_turns_a_reservation_into_spending_of_its_day(self, ledger: BudgetLedger) -> None:
        held = reserve(ledger, Charge(tokens=500, cost=0.01))
        ledger.settle(held.reservation_id, Charge(tokens=120, cost=0.002), now=T0 + timedelta(seconds=2))
        assert ledger.spent(T0.date()) == Spend(requests=1, tokens=120, cost=0.002)
        totals = ledger.totals(now=T0 + timedelta(seconds=3), limits=TWO_REQUESTS)
        assert totals.reserved == Spend() and totals.next_expiry is None
        # Settled just before midnight of a reservation made that day: it stays that day's spending.
        late = datetime(2026, 12, 3, 23, 59, tzinfo=timezone.utc)
        held = reserve(ledger, at=late)
        ledger.settle(held.reservation_id, Charge(tokens=1), now=late + timedelta(minutes=5))
        assert ledger.spent(T0.date()).requests == 2
        assert ledger.spent(T0.date() + timedelta(days=1)) == Spend()

    def test_an_unknown_cost_is_kept_as_unknown(self, ledger: BudgetLedger) -> None:
        held = reserve(ledger, Charge(tokens=5, cost=None), limits=BudgetLimits())
        ledger.settle(held.reservation_id, Charge(tokens=7, cost=None), now=T0)
        assert ledger.spent(T0.date()) == Spend(requests=1, tokens=7, cost=0.0, unknown_cost=1)
        with pytest.raises(BudgetExceeded) as caught:
            reserve(ledger, Charge(cost=0.0), limits=BudgetLimits(cost_per_day=10.0))
        assert caught.value.reason == "unknown_cost_today"

    def test_expired_reservations_stop_counting(self, ledger: BudgetLedger) -> None:
        reserve(ledger)
        reserve(ledger)
        just_before = T0 + TTL - timedelta(microseconds=1)
        assert ledger.totals(now=just_before, limits=TWO_REQUESTS).reserved.requests == 2
        with pytest.raises(BudgetExceeded):
            reserve(ledger, at=just_before)
        assert ledger.totals(now=T0 + TTL, limits=TWO_REQUESTS).reserved.requests == 0  # expires_at is exclusive
        reserve(ledger, at=T0 + TTL)
        assert ledger.spent(T0.date()) == Spend()  # expiry never turns a reservation into spending

    def test_a_late_settle_still_counts_the_call(self, ledger: BudgetLedger) -> None:
        held = reserve(ledger, Charge(tokens=3))
        ledger.settle(held.reservation_id, Charge(tokens=4, cost=0.25), now=T0 + 2 * TTL)
        assert ledger.spent(T0.date()) == Spend(requests=1, tokens=4, cost=0.25)

    def test_release_drops_an_open_reservation_only(self, ledger: BudgetLedger) -> None:
        a, b = reserve(ledger), reserve(ledger)
        ledger.release(a.reservation_id)
        ledger.settle(b.reservation_id, Charge(tokens=1), now=T0)
        ledger.release(b.reservation_id)  # settled: stays spending
        ledger.release("no-such-reservation")
        totals = ledger.totals(now=T0, limits=TWO_REQUESTS)
        assert (totals.spent.requests, totals.reserved.requests) == (1, 0)

    def test_settling_an_unknown_reservation_is_not_found(self, ledger: BudgetLedger) -> None:
        with pytest.raises(NotFound):
            ledger.settle("nope", Charge(), now=T0)

    def test_a_new_utc_day_starts_from_nothing(self, ledger: BudgetLedger) -> None:
        for _ in range(2):
            ledger.settle(reserve(ledger).reservation_id, Charge(), now=T0)
        with pytest.raises(BudgetExceeded) as caught:
            reserve(ledger)
        assert caught.value.retry_at == caught.value.resets_at == datetime(2026, 12, 4, tzinfo=timezone.utc)
        reserve(ledger, at=caught.value.resets_at)

    def test_tokens_and_cost_limits_look_at_spent_plus_reserved(self, ledger: BudgetLedger) -> None:
        limits = BudgetLimits(tokens_per_day=100, cost_per_day=1.0)
        ledger.settle(reserve(ledger, Charge(tokens=60, cost=0.2), limits=limits).reservation_id,
                      Charge(tokens=50, cost=0.5), now=T0)
        reserve(ledger, Charge(tokens=40, cost=0.4), limits=limits)
        with pytest.raises(BudgetExceeded) as caught:
            reserve(ledger, Charge(tokens=11, cost=0.0), limits=limits)
        assert (caught.value.limit, caught.value.spent, caught.value.reserved) == ("tokens_per_day", 50, 40)
        with pytest.raises(BudgetExceeded) as caught:
            reserve(ledger, Charge(tokens=10, cost=0.2), limits=limits)
        assert caught.value.limit == "cost_per_day"
        reserve(ledger, Charge(tokens=10, cost=0.1), limits=limits)


class TestInMemoryBudgetLedger(BudgetLedgerContract):
    @contextmanager
    def make_ledger(self, tmp_path: Path) -> Iterator[BudgetLedger]:
        yield InMemoryBudgetLedger()


class TestSQLiteBudgetLedger(BudgetLedgerContract):
    @contextmanager
    def make_ledger(self, tmp_path: Path) -> Iterator[BudgetLedger]:
        ledger = SQLiteBudgetLedger.open(tmp_path / "budget.db")
        try:
            yield ledger
        finally:
            ledger.close()

    def test_a_reservation_survives_a_crash_until_it_expires(self, tmp_path: Path) -> None:
        path = tmp_path / "crash.db"
        # Another process reserves and dies (os._exit: no settle, no close, no cleanup).
        script = (
            "import os, sys\n"
            "from datetime import datetime, timedelta, timezone\n"
            "from hlmem.adapters.sqlite.budget import SQLiteBudgetLedger\n"
            "from hlmem.domain.budget import BudgetLimits, Charge\n"
            "t = datetime(2026, 12, 3, 10, 0, tzinfo=timezone.utc)\n"
            "ledger = SQLiteBudgetLedger.open(sys.argv[1])\n"
            "ledger.reserve(Charge(tokens=900, cost=0.3), limits=BudgetLimits(requests_per_day=2), now=t,\n"
            "               expires_at=t + timedelta(minutes=15), what='p:m chat crash')\n"
            "os._exit(0)\n"
        )
        subprocess.run([sys.executable, "-P", "-c", script, str(path)], check=True, timeout=120)
        ledger = SQLiteBudgetLedger.open(path)
        try:
            totals = ledger.totals(now=T0 + timedelta(minutes=1), limits=TWO_REQUESTS)
            assert totals.reserved == Spend(requests=1, tokens=900, cost=0.3)
            reserve(ledger, at=T0 + timedelta(minutes=1))
            with pytest.raises(BudgetExceeded):  # the dead process's reservation still holds one of the two
                reserve(ledger, at=T0 + timedelta(minutes=2))
            after = T0 + TTL + timedelta(seconds=1)
            assert ledger.totals(now=after, limits=TWO_REQUESTS).reserved.requests == 1  # only ours (to T0+16 min)
            reserve(ledger, at=after)
        finally:
            ledger.close()

    def test_two_connections_racing_for_the_last_request_only_one_wins(self, tmp_path: Path) -> None:
        path = tmp_path / "race.db"
        ledgers = [SQLiteBudgetLedger.open(path) for _ in range(2)]
        try:
            for _round in range(20):
                limits = BudgetLimits(requests_per_day=1 + _round)  # one unit left each round
                gate = threading.Barrier(2)
                won: list[int] = []
                lost: list[BudgetExceeded] = []

                def race(i: int) -> None:
                    gate.wait()
                    try:
                        reserve(ledgers[i], limits=limits)
                        won.append(i)
                    except BudgetExceeded as exc:
                        lost.append(exc)

                threads = [threading.Thread(target=race, args=(i,)) for i in range(2)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                assert len(won) == 1 and len(lost) == 1, (won, lost)
            assert ledgers[0].totals(now=T0, limits=TWO_REQUESTS).reserved.requests == 20
        finally:
            for ledger in ledgers:
                ledger.close()

    def test_reopening_keeps_spending(self, tmp_path: Path) -> None:
        path = tmp_path / "reopen.db"
        ledger = SQLiteBudgetLedger.open(path)
        ledger.settle(reserve(ledger, Charge(tokens=3, cost=None), limits=BudgetLimits()).reservation_id,
                      Charge(tokens=3, cost=None), now=T0)
        ledger.close()
        ledger = SQLiteBudgetLedger.open(path)
        try:
            assert ledger.spent(T0.date()) == Spend(requests=1, tokens=3, unknown_cost=1)
        finally:
            ledger.close()


# --- PostgreSQL (adapters/postgres/budget.py, ADR 0074) ---------------------------------------------


class TestPostgresBudgetLedger(BudgetLedgerContract):
    """The store's ``budget_reservations`` in PostgreSQL, shared by every process of the store."""

    @pytest.fixture(autouse=True)
    def _postgres_database(self, postgres_url: str) -> None:
        self.postgres_url = postgres_url

    @contextmanager
    def make_ledger(self, tmp_path: Path) -> Iterator[BudgetLedger]:
        from hlmem.adapters.postgres.backend import open_backend

        backend = open_backend(self.postgres_url)  # the tables are the store's (layout 5)
        try:
            yield backend.budget
        finally:
            backend.close()

    def test_two_connections_racing_for_the_last_request_only_one_wins(self) -> None:
        from hlmem.adapters.postgres.backend import open_backend

        backends = [open_backend(self.postgres_url) for _ in range(2)]
        try:
            for _round in range(10):
                limits = BudgetLimits(requests_per_day=1 + _round)  # one unit left each round
                gate = threading.Barrier(2)
                won: list[int] = []
                lost: list[BudgetExceeded] = []

                def race(i: int) -> None:
                    gate.wait()
                    try:
                        reserve(backends[i].budget, limits=limits)
                        won.append(i)
                    except BudgetExceeded as exc:
                        lost.append(exc)

                threads = [threading.Thread(target=race, args=(i,)) for i in range(2)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                assert len(won) == 1 and len(lost) == 1, (won, lost)
            assert backends[1].budget.totals(now=T0, limits=TWO_REQUESTS).reserved.requests == 10
        finally:
            for backend in backends:
                backend.close()

    def test_a_reservation_commits_outside_the_store_transaction(self) -> None:
        from hlmem.adapters.postgres.backend import open_backend

        backend = open_backend(self.postgres_url)
        try:
            with pytest.raises(RuntimeError), backend.store.transaction():
                reserve(backend.budget)
                raise RuntimeError("the work failed")
            assert backend.budget.totals(now=T0, limits=TWO_REQUESTS).reserved.requests == 1
        finally:
            backend.close()


# --- agreement between the adapters --------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_charges = st.builds(Charge, tokens=st.integers(0, 50), cost=st.none() | st.sampled_from([0.0, 0.25, 0.5, 1.0]))
_limits = st.builds(BudgetLimits, requests_per_day=st.none() | st.integers(0, 4),
                    tokens_per_day=st.none() | st.integers(0, 120),
                    cost_per_day=st.none() | st.sampled_from([1.0, 2.0]))
_ops = st.lists(st.one_of(
    st.tuples(st.just("reserve"), _charges, _limits, st.integers(0, 3 * 24 * 60)),  # minutes after T0
    st.tuples(st.just("settle"), st.integers(0, 20), _charges, st.integers(0, 3 * 24 * 60)),
    st.tuples(st.just("release"), st.integers(0, 20)),
), max_size=25)


def test_sqlite_and_in_memory_ledgers_agree(tmp_path: Path) -> None:
    sql = SQLiteBudgetLedger.open(tmp_path / "agree.db")  # one file; emptied for each example (opening costs)

    @settings(max_examples=60, deadline=None)
    @given(_ops)
    def agree(ops) -> None:
        with sql._lock:
            sql._con.execute("DELETE FROM budget_reservations")
        ledgers = [InMemoryBudgetLedger(), sql]
        made: list[list[str]] = [[], []]
        for op in ops:
            outcomes = []
            for i, ledger in enumerate(ledgers):
                if op[0] == "reserve":
                    _, charge, limits, minutes = op
                    at = T0 + timedelta(minutes=minutes)
                    try:
                        made[i].append(ledger.reserve(charge, limits=limits, now=at, expires_at=at + TTL)
                                       .reservation_id)
                        outcomes.append("ok")
                    except BudgetExceeded as exc:
                        outcomes.append((exc.limit, exc.reason, exc.retry_at))
                elif made[i]:
                    target = made[i][op[1] % len(made[i])]
                    if op[0] == "settle":
                        try:
                            ledger.settle(target, op[2], now=T0 + timedelta(minutes=op[3]))
                            outcomes.append("ok")
                        except NotFound:  # released before
                            outcomes.append("not found")
                    else:
                        ledger.release(target)
            assert len(set(map(str, outcomes))) <= 1, outcomes
        for day in range(4):
            at = T0 + timedelta(days=day)
            mem, disk = (ledger.totals(now=at, limits=BudgetLimits()) for ledger in ledgers)
            assert (mem.spent.requests, mem.spent.tokens, mem.spent.unknown_cost) == (
                disk.spent.requests, disk.spent.tokens, disk.spent.unknown_cost)
            assert abs(mem.spent.cost - disk.spent.cost) < 1e-9 and mem.reserved == disk.reserved
            assert mem.next_expiry == disk.next_expiry

    try:
        agree()
    finally:
        sql.close()
