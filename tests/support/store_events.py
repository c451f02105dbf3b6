"""Raw events and a port-level snapshot, for storage contract cases that append without a service."""

from __future__ import annotations

from datetime import datetime

from support.stores import T0

from hlmem.application.ports import Storage
from hlmem.domain.events import ClaimAsserted, ObservationRecorded, OriginClass, SessionKind

def obs_event(n: int, *, text: str = "note", version: int = 1, stream: str | None = None,
              namespace: str = "default", at: datetime = T0) -> ObservationRecorded:
    """A raw ObservationRecorded event (for appending without the write service)."""
    return ObservationRecorded(
        event_id=f"lg_raw{n}", stream_id=stream or f"ev_raw{n}", version=version, recorded_at=at,
        namespace=namespace, text=text, role="user", session_id="s1", origin_class=OriginClass.DIRECT_USER,
        session_kind=SessionKind.INTERACTIVE, occurred_at=at,
    )


def claim_event(n: int, *, value: str = "dark", stream: str | None = None, at: datetime = T0) -> ClaimAsserted:
    """A raw ClaimAsserted event."""
    return ClaimAsserted(
        event_id=f"lg_rawc{n}", stream_id=stream or f"cl_raw{n}", version=1, recorded_at=at,
        namespace="default", subject="user", predicate="preferred_ui_theme", value=value, valid_from=at,
    )


def snapshot(store: Storage) -> dict:
    """Everything observable through the port, for before/after comparisons."""
    events = list(store.read())
    claim_ids = [s.event.stream_id for s in events if s.event.stream_id.startswith("cl_")]
    obs_ids = [s.event.stream_id for s in events if s.event.stream_id.startswith("ev_")]
    return {
        "log": events,
        "last": store.last_position(),
        "claims": store.get_claims(claim_ids),
        "observations": store.get_observations(obs_ids),
        "counts": store.counts(),
        "search": sorted(c.item_id for c in store.text_candidates("default", "dark theme 深色 note", 50)),
        "context": sorted(c.item_id for c in store.context_candidates("default", "dark theme 深色 note", 50)),
    }
