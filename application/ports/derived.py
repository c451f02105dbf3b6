"""The derived role: projection queries over observation summaries and mental models (ADR 0046).

Every store has it (part of :class:`~hlmem.application.ports.storage.Storage`, ADR 0076).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from hlmem.domain.derived import DerivedState


@runtime_checkable
class DerivedReader(Protocol):
    """Derived items as :func:`hlmem.domain.derived.step_derived` projects them.

    Contract:
    - ``get_derived(ids)`` returns the state of each id that names a derived stream (tombstones
      too: ``status == "forgotten"``, content blank) and leaves the others out.
    - ``derived_citing(claim_ids)`` returns every derived item whose ``sources`` include any of
      ``claim_ids``, whatever its status, keyed by id (one read: the write path asks it inside
      its transaction, so it must see the transaction's own writes).
    - ``derived_items(namespace, subject=None, kind=None)`` lists a namespace's derived items in
      id order, every status; ``subject`` matches as :func:`~hlmem.domain.state.subject_key`
      does, ``kind`` is ``observation_summary`` or ``mental_model``.
    """

    def get_derived(self, ids: Sequence[str]) -> dict[str, DerivedState]: ...

    def derived_citing(self, claim_ids: Sequence[str]) -> dict[str, DerivedState]: ...

    def derived_items(self, namespace: str, *, subject: str | None = None,
                      kind: str | None = None) -> list[DerivedState]: ...
