"""Training the learned extractor's CRF (scripts/train_extractor.py drives it).

Deterministic: items are read in file order, the feature and label sets come from them alone,
and crfsuite's L-BFGS has no random start, so the same data and parameters write the same model
file byte for byte (tests/unit/adapters/extraction checks it on a tiny set).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hlmem.adapters.extraction.features import featurize
from hlmem.adapters.extraction.labels import Example, detection_tags, examples, slot_tags, subject_core
from hlmem.adapters.extraction.tokens import PosTagger

#: L1 and L2 weights and iterations, chosen by 5-fold cross-validation on the training sets
#: (docs/benchmarks/extraction.md): a light L1 keeps the two files at about 1 MB each.
PARAMS: dict[str, Any] = {"c1": 0.02, "c2": 0.05, "max_iterations": 150, "feature.possible_transitions": True}


def load_items(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Items of every JSONL file, in order; a malformed line is an error naming its file and line."""
    items: list[dict[str, Any]] = []
    for path in paths:
        with Path(path).open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                except ValueError as exc:
                    raise ValueError(f"{path}:{n}: not JSON: {exc}") from exc
                if not isinstance(item, dict) or item.get("kind") not in ("fact", "nonfact", "sequence"):
                    raise ValueError(f"{path}:{n}: an item needs kind fact, nonfact or sequence")
                items.append(item)
    return items


def relation_slots(items: Iterable[Mapping[str, Any]]) -> list[str]:
    """Slots whose value is, in some item, the subject of another claim (child Maya, Maya's age)."""
    found: set[str] = set()
    for item in items:
        exps = list(item.get("expect", ())) + list(item.get("current", ()))
        subjects = {subject_core(str(e.get("subject", "user"))).casefold() for e in exps} - {""}
        for e in exps:
            if str(e["value"]).casefold() in subjects:
                preds = e["predicate"] if isinstance(e["predicate"], list) else [e["predicate"]]
                found.add(preds[0])
    return sorted(found)


def build(items: Sequence[Mapping[str, Any]], pos: PosTagger) -> tuple[list[Example], int]:
    """Aligned examples and how many expectations could not be placed."""
    out: list[Example] = []
    missed = 0
    for example, miss in examples(items, pos):
        out.append(example)
        missed += miss
    return out, missed


def slots_path(model: Path) -> Path:
    """The slot model beside the detector: ``extractor.crfsuite`` → ``extractor.slots.crfsuite``."""
    return model.with_name(model.stem + ".slots" + model.suffix)


def train(exs: Sequence[Example], model: Path, params: Mapping[str, Any] | None = None) -> None:
    """Train on ``exs`` and write the two model files (crfsuite's format): the detector at
    ``model`` (values and mentions) and the slot model at :func:`slots_path`."""
    import pycrfsuite

    model.parent.mkdir(parents=True, exist_ok=True)
    for path, view in ((model, detection_tags), (slots_path(model), slot_tags)):
        trainer = pycrfsuite.Trainer(verbose=False)
        for ex in exs:
            if ex.tokens:
                trainer.append(featurize(list(ex.tokens)), view(ex.tags))
        trainer.set_params(dict(PARAMS if params is None else params))
        trainer.train(str(path))


def data_digest(paths: Iterable[Path]) -> str:
    """SHA-256 over the training files' bytes, in order (recorded in the metadata)."""
    h = hashlib.sha256()
    for path in paths:
        h.update(Path(path).read_bytes())
    return h.hexdigest()


def file_digest(path: Path) -> str:
    """SHA-256 of a model: the detector's bytes, then the slot model's when there is one."""
    h = hashlib.sha256(Path(path).read_bytes())
    if slots_path(Path(path)).is_file():
        h.update(slots_path(Path(path)).read_bytes())
    return h.hexdigest()


def folds(items: Sequence[Mapping[str, Any]], k: int) -> list[list[int]]:
    """Item indices in ``k`` folds, round robin in file order (a sequence stays in one fold)."""
    return [list(range(f, len(items), k)) for f in range(k)]
