"""Episodes, policies and procedures as JSON, and what an episode's end changed (docs/experience.md)."""

from __future__ import annotations

from typing import Any

from hlmem.domain.experience_policy import reliability
from hlmem.domain.time import format_timestamp


def episode_dict(e: Any, *, steps: bool = True) -> dict[str, Any]:
    """An episode as JSON (its steps in order when ``steps``)."""
    out = {"id": e.episode_id, "namespace": e.namespace, "goal": e.goal, "signature": e.signature,
           "context": e.context, "approach": e.approach, "status": e.status,
           "started_at": format_timestamp(e.started_at), "ended_at": format_timestamp(e.ended_at),
           "reward": e.reward, "outcome": e.outcome, "cost": e.cost, "step_count": len(e.steps)}
    if steps:
        out["steps"] = [{"index": s.index, "id": s.event_id, "action": s.action, "tool": s.tool,
                         "observation": s.observation, "error": s.error, "cost": s.cost, "value": s.value,
                         "evidence": list(s.evidence), "occurred_at": format_timestamp(s.occurred_at)}
                        for s in e.steps]
    return out


def policy_dict(p: Any, thresholds: Any) -> dict[str, Any]:
    """A policy as JSON, with its support and reliability; ``episodes`` are its latest supporting
    episodes (at most 16, ADR 0071), ``support`` counts them all."""
    return {"id": p.policy_id, "namespace": p.namespace, "signature": p.signature, "approach": p.approach,
            "situation": p.situation, "status": p.status, "support": p.support, "successes": p.successes,
            "failures": p.failures, "reliability": round(reliability(p, thresholds), 4),
            "episodes": list(p.recent_episodes), "streak": p.streak, "reason": p.reason,
            "proposed_at": format_timestamp(p.proposed_at), "changed_at": format_timestamp(p.changed_at)}


def procedure_dict(p: Any) -> dict[str, Any]:
    """A procedure version as JSON."""
    return {"id": p.procedure_id, "policy_id": p.policy_id, "version": p.number, "status": p.status,
            "steps": list(p.steps), "source_episode": p.source_episode, "reason": p.reason,
            "promoted_at": format_timestamp(p.promoted_at), "changed_at": format_timestamp(p.changed_at)}


def step_dict(e: Any) -> dict[str, Any]:
    """A recorded step as JSON: the episode without its trace, and the step just added."""
    return episode_dict(e, steps=False) | {"step": episode_dict(e)["steps"][-1]}


def change_dicts(changes: Any) -> list[dict[str, Any]]:
    """Policy and procedure events as JSON: the event's type, its stream, its reason."""
    return [{"event": type(e).__name__, "stream": e.stream_id, "reason": getattr(e, "reason", "")} for e in changes]


def end_dict(result: Any) -> dict[str, Any]:
    """An ended episode as JSON (without its trace), with what its end changed in policies and procedures."""
    return episode_dict(result.episode, steps=False) | {"changes": change_dicts(result.changes)}
