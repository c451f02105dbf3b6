"""List claims page by page, filtered by namespace, subject, predicate and status (REST, the facade).

A page is ordered by claim id; ``after`` (the previous page's ``next_cursor``) resumes after the
last id shown, so writes between pages never repeat or skip an older claim. ``next_cursor`` is
given only when another matching claim exists. Archived claims are listed (``archived`` says so):
the listing reads the claims projection, not the search index they left. Forgotten claims
are never listed (their content is gone; ``explain`` tells when they went).
"""

from __future__ import annotations

from collections.abc import Iterator

from attrs import frozen

from hlmem.application.ports import ClaimReader
from hlmem.domain.errors import ValidationError
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import ClaimState, ClaimStatus

#: Claims loaded per read while a page fills.
CHUNK = 200
MAX_LIMIT = 1000
LISTABLE = tuple(s.value for s in ClaimStatus if s is not ClaimStatus.FORGOTTEN)


@frozen
class ClaimPage:
    """One page of claims, oldest id first; ``next_cursor`` is None on the last page."""

    items: tuple[ClaimState, ...]
    next_cursor: str | None


class ClaimListing:
    """Reads only: pages of claims over the claim reader."""

    def __init__(self, claims: ClaimReader, registry: SlotRegistry) -> None:
        self._claims = claims
        self._registry = registry

    def list(self, *, namespace: str, subject: str | None = None, predicate: str | None = None,
             status: str | None = None, limit: int = 50, after: str | None = None) -> ClaimPage:
        """Up to ``limit`` claims of ``namespace`` with ids after ``after`` that match every filter.

        :raises ValidationError: ``limit`` outside 1..1000, an unknown ``status`` or a blank filter.
        """
        if not 1 <= limit <= MAX_LIMIT:
            raise ValidationError(f"limit must be 1..{MAX_LIMIT}, not {limit}", field="limit")
        if status is not None and status not in LISTABLE:
            raise ValidationError(f"status {status!r} must be one of {', '.join(LISTABLE)}", field="status")
        for name, value in (("subject", subject), ("predicate", predicate)):
            if value is not None and not value.strip():
                raise ValidationError(f"{name} must not be blank (leave it out to list every {name})", field=name)
        wanted = None if predicate is None else self._registry.canonical(predicate)
        if subject is not None:
            ids = sorted(c.claim_id for c in self._claims.subject_claims(namespace, subject, wanted))
            if after:
                ids = [i for i in ids if i > after]
            chunks: Iterator[list[str]] = (ids[i:i + CHUNK] for i in range(0, len(ids), CHUNK))
        else:  # every claim of the namespace, archived ones too, a chunk of ids at a time
            chunks = self._all_ids(namespace, after)
        page: list[ClaimState] = []
        last: str | None = None
        for chunk in chunks:
            loaded = self._claims.get_claims(chunk)
            for claim_id in chunk:
                claim = loaded.get(claim_id)
                if claim is not None and self._matches(claim, namespace, wanted, status):
                    if len(page) == limit:  # one more match exists: the page has a successor
                        return ClaimPage(tuple(page), last)
                    page.append(claim)
                    last = claim_id
        return ClaimPage(tuple(page), None)

    def _all_ids(self, namespace: str, after: str | None) -> Iterator[list[str]]:
        while chunk := self._claims.claim_ids(namespace, after=after, limit=CHUNK):
            yield chunk
            after = chunk[-1]

    @staticmethod
    def _matches(claim: ClaimState, namespace: str, predicate: str | None, status: str | None) -> bool:
        return (claim.namespace == namespace and claim.status is not ClaimStatus.FORGOTTEN
                and (predicate is None or claim.predicate == predicate)
                and (status is None or claim.status.value == status))

