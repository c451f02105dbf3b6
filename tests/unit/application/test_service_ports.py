"""Each service uses only the storage roles its constructor asks for (ADR 0028).

An AST walk collects every attribute a service reads off its storage (``self._storage.x``, and
``x`` of a local bound to ``self._storage``) and checks it is declared by the annotated Protocol,
so a service cannot start calling a role it does not declare without the annotation changing too.
"""

from __future__ import annotations

import ast
import inspect
import sys
import typing
from pathlib import Path

import pytest

from hlmem.application import ports
from hlmem.application.conflicts import ConflictService
from hlmem.application.derived import DerivedService
from hlmem.application.derived_guard import StalenessGuard
from hlmem.application.experience import ExperienceService
from hlmem.application.experience_forget import ExperienceForgetService
from hlmem.application.forgetting import ForgetService
from hlmem.application.inspect import InspectService
from hlmem.application.maintenance import MaintenanceService
from hlmem.application.pipeline import ExtractionPipeline
from hlmem.application.recall import RecallService
from hlmem.application.recall.relation_hops import RelationHops
from hlmem.application.relation_guard import RelationGuard
from hlmem.application.relations import RelationService
from hlmem.application.writes import WriteService

SERVICES = [(WriteService, ports.WriteStore), (ExtractionPipeline, ports.WriteStore),
            (ConflictService, ports.ConflictStore), (ForgetService, ports.ForgetStore),
            (MaintenanceService, ports.MaintenanceStore), (RecallService, ports.RecallStore),
            (InspectService, ports.ClaimReader), (DerivedService, ports.DerivedStore),
            (StalenessGuard, ports.StalenessStore), (ExperienceService, ports.ExperienceStore),
            (ExperienceForgetService, ports.ExperienceForgetStore), (RelationGuard, ports.RelationStore),
            (RelationService, ports.RelationStore), (RelationHops, ports.RelationRecallStore)]
#: Every storage role; the composition's members are exactly theirs.
ROLES = (ports.EventLog, ports.StoreIdentity, ports.ClaimReader, ports.SearchIndex, ports.ForgetQueries,
         ports.Erasure, ports.ActivityLog, ports.Transactional, ports.HasTombstoneLedger, ports.HasEmbeddingCache,
         ports.DerivedReader, ports.HasExperience, ports.HasRelations)


def members(protocol: type) -> set[str]:
    """Public names a Protocol declares (methods and annotated attributes such as ``experience``), its bases' included."""
    return {name for cls in protocol.__mro__ if cls not in (typing.Protocol, typing.Generic, object)
            for name in (*vars(cls), *vars(cls).get("__annotations__", {})) if not name.startswith("_")}


def storage_uses(service: type) -> set[str]:
    """Attributes read off ``self._storage`` (or a local bound to it) anywhere in the service's module."""
    tree = ast.parse(Path(inspect.getfile(service)).read_text(encoding="utf-8"))
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == service.__name__)

    def is_storage(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "_storage"
                and isinstance(node.value, ast.Name) and node.value.id == "self")

    aliases = {t.id for n in ast.walk(cls) if isinstance(n, ast.Assign) and is_storage(n.value)
               for t in n.targets if isinstance(t, ast.Name)}
    return {n.attr for n in ast.walk(cls) if isinstance(n, ast.Attribute)
            and (is_storage(n.value) or (isinstance(n.value, ast.Name) and n.value.id in aliases))}


@pytest.mark.parametrize(("service", "protocol"), SERVICES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_service_uses_only_the_roles_it_declares(service: type, protocol: type) -> None:
    # Only ``storage``'s hint is evaluated: other parameters may name types imported for type checking only.
    hint = service.__init__.__annotations__["storage"]
    assert (eval(hint, vars(sys.modules[service.__module__])) if isinstance(hint, str) else hint) is protocol
    used = storage_uses(service)
    assert used, f"{service.__name__} reads nothing off its storage: the walk missed it"
    assert used <= members(protocol), sorted(used - members(protocol))


def test_storage_is_exactly_the_composition_of_the_roles() -> None:
    assert members(ports.Storage) == set().union(*(members(r) for r in ROLES))
    assert set(ports.Storage.__mro__) >= set(ROLES)


def test_no_role_is_left_unexported() -> None:
    from hlmem.application.ports import (activity, basics, budget, claims, derived, event_log, experience, governance,
                                         heartbeat, jobs, needs, providers, search, storage)

    declared = {name for module in (activity, basics, budget, claims, derived, event_log, experience, governance,
                                    heartbeat, jobs, needs, providers, search, storage)
                for name, value in vars(module).items()
                if isinstance(value, type) and value.__module__ == module.__name__}
    assert declared <= set(ports.__all__)
    assert all(hasattr(ports, name) for name in ports.__all__)
