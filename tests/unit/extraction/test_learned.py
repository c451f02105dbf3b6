"""The learned extractor (adapters/extraction/, ADR 0078): tokens, alignment, decoding, subjects,
thresholds, training reproducibility, the shipped model, bad input."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from hlmem.adapters.extraction.labels import align, subject_core
from hlmem.adapters.extraction.tagger import LearnedExtractor, ModelError, Span, decode, default_model
from hlmem.adapters.extraction.tokens import Token, tokenize
from hlmem.adapters.extraction.training import build, file_digest, load_items, relation_slots, train
from hlmem.adapters.extraction.wiring import offline_extractor
from hlmem.adapters.text.pos import jieba_tagger
from hlmem.application.extraction.combine import CombinedExtractor
from hlmem.application.extraction.extractors import RuleExtractor
from hlmem.domain.candidates import SourceEvent
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

POS = jieba_tagger()
TINY = [
    {"id": "t1", "kind": "fact", "text": "I live in Leeds.", "expect": [{"subject": "user", "predicate": ["lives_in"], "value": "Leeds"}]},
    {"id": "t2", "kind": "fact", "text": "I live in Porto now.", "expect": [{"subject": "user", "predicate": ["lives_in"], "value": "Porto"}]},
    {"id": "t3", "kind": "fact", "text": "My mom lives in Tucson.", "expect": [{"subject": "user's mom", "predicate": ["lives_in"], "value": "Tucson"}]},
    {"id": "t4", "kind": "fact", "text": "My dad lives in Boston.", "expect": [{"subject": "user's dad", "predicate": ["lives_in"], "value": "Boston"}]},
    {"id": "t5", "kind": "fact", "text": "我住在杭州。", "expect": [{"subject": "用户", "predicate": ["lives_in"], "value": "杭州"}]},
    {"id": "t6", "kind": "fact", "text": "我妈住在成都。", "expect": [{"subject": "用户的妈妈", "predicate": ["lives_in"], "value": "成都"}]},
    {"id": "t7", "kind": "nonfact", "text": "What is the weather in Leeds?"},
    {"id": "t8", "kind": "fact", "text": "my daughter Maya is two", "expect": [
        {"subject": "user", "predicate": ["child"], "value": "Maya"}, {"subject": "Maya", "predicate": ["age"], "value": "two"}]},
    {"id": "t9", "kind": "sequence", "texts": ["I live in Denver.", "Moved to Austin last week."],
     "current": [{"subject": "user", "predicate": ["lives_in"], "value": "Austin"}],
     "absent": [{"subject": "user", "predicate": ["lives_in"], "value": "Denver"}]},
]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("model")
    exs, _ = build(TINY, POS)
    train(exs, folder / "m.crfsuite", {"c1": 0.0, "c2": 0.01, "max_iterations": 50})
    (folder / "m.json").write_text(json.dumps({"threshold": 0.0, "relation_slots": relation_slots(TINY)}))
    return folder / "m.crfsuite"


def _event(text: str, role: str = "user") -> SourceEvent:
    return SourceEvent(event_id="ev_1", text=text, role=role, session_id="s", origin_class="direct_user",
                       session_kind="interactive", occurred_at=datetime(2026, 3, 2, tzinfo=timezone.utc))


def test_tokens_keep_offsets_and_cut_han_runs_with_jieba() -> None:
    text = "I'm 5'7 and 我住在杭州, v1.2!"
    tokens = tokenize(text, POS)
    assert all(text[t.start:t.end] == t.text for t in tokens)
    assert [t.text for t in tokens][:4] == ["I", "'m", "5'7", "and"]
    assert any(t.text == "杭州" and t.han and t.pos == "ns" for t in tokens)
    assert tokens[-1].clause > tokens[0].clause  # "and" and "," open clauses


def test_tokenize_refuses_what_is_not_text() -> None:
    with pytest.raises(TypeError, match="must be str"):
        tokenize(b"bytes", POS)  # type: ignore[arg-type]
    assert tokenize("", POS) == []


def test_alignment_tags_values_subjects_and_values_that_are_subjects() -> None:
    ex, missed = align("My mom lives in Tucson.", TINY[2]["expect"], POS)
    assert missed == 0 and dict(zip((t.text for t in ex.tokens), ex.tags)) == {
        "My": "O", "mom": "B-SUBJ", "lives": "O", "in": "O", "Tucson": "B-lives_in@o", ".": "O"}
    ex, _ = align(TINY[7]["text"], TINY[7]["expect"], POS)
    assert [tag for tag in ex.tags if tag != "O"] == ["B-child", "B-age@o"]  # Maya is a value, not a SUBJ
    _, missed = align("I live in Leeds.", [{"subject": "user", "predicate": "lives_in", "value": "York"}], POS)
    assert missed == 1
    assert subject_core("用户的妈妈") == "妈妈" and subject_core("user's mom") == "mom" and subject_core("用户") == ""


def test_decode_turns_runs_into_spans_and_skips_subject_mentions() -> None:
    tokens = tokenize("my mom Ann lives in New York", POS)
    tags = ["O", "B-S", "I-S", "O", "O", "B-VO", "I-VO"]
    spans = decode(tokens, tags, [1.0, 0.9, 0.9, 1.0, 1.0, 0.8, 0.6])
    assert spans == [Span("", True, 20, 28, 5, 6, pytest.approx(0.7))]
    assert decode(tokens, ["I-age", *["O"] * 6], [0.5] * 7)[0].slot == "age"  # an I- without its B- starts a span


def test_the_subject_is_the_nearest_mention_and_kin_words_read_as_the_rules_write_them(tiny_model: Path) -> None:
    ext = LearnedExtractor(DEFAULT_REGISTRY, POS, model=tiny_model)
    def claims(text: str, tags: list[str]) -> list[tuple[str, str, str]]:
        tokens = tokenize(text, POS)
        spans = decode(tokens, tags, [1.0] * len(tags))
        return [(c.subject, c.predicate, c.value) for c in ext.claims(text, tokens, spans, tags, "ev_1")]
    assert claims("My mom lives in Tucson", ["O", "B-S", "O", "O", "B-lives_in@o"]) == [("user's mom", "lives_in", "Tucson")]
    assert claims("我妈住在成都", ["O", "B-S", "O", "O", "B-lives_in@o"]) == [("用户的妈妈", "lives_in", "成都")]
    assert claims("my daughter Maya is two", ["O", "O", "B-child", "O", "B-age@o"]) == [
        ("user", "child", "Maya"), ("Maya", "age", "two")]
    # someone else's value with nobody mentioned is dropped, never given to the user
    assert claims("lives in Tucson", ["O", "O", "B-lives_in@o"]) == []


def test_the_threshold_drops_uncertain_spans_and_negation_flips_polarity(tiny_model: Path) -> None:
    ext = LearnedExtractor(DEFAULT_REGISTRY, POS, model=tiny_model)
    text = "I don't live in Leeds"
    tokens = tokenize(text, POS)
    tags = ["O", "O", "O", "O", "O", "B-lives_in"]
    spans = decode(tokens, tags, [1.0, 1.0, 1.0, 1.0, 1.0, 0.4])
    assert ext.claims(text, tokens, spans, tags, threshold=0.5) == []
    (only,) = ext.claims(text, tokens, spans, tags, threshold=0.3)
    assert (only.value, only.polarity, only.extractor, only.evidence_quote) == ("Leeds", False, "learned", text)


def test_a_tiny_model_learns_its_examples_and_reads_the_user_only(tiny_model: Path) -> None:
    ext = LearnedExtractor(DEFAULT_REGISTRY, POS, model=tiny_model)
    got = [(c.subject, c.predicate, c.value) for c in ext.extract([_event("I live in Leeds.")])]
    assert got == [("user", "lives_in", "Leeds")]
    assert ext.extract([_event("I live in Leeds.", role="assistant")]) == []


def test_training_is_reproducible(tmp_path: Path) -> None:
    exs, _ = build(TINY, POS)
    for name in ("a", "b"):
        train(exs, tmp_path / f"{name}.crfsuite", {"c1": 0.0, "c2": 0.01, "max_iterations": 30})
    assert file_digest(tmp_path / "a.crfsuite") == file_digest(tmp_path / "b.crfsuite")


def test_the_shipped_model_loads_and_matches_its_metadata() -> None:
    model, meta = default_model()
    info = json.loads(meta.read_text(encoding="utf-8"))
    assert file_digest(model) == info["model_sha256"] and 0.0 < info["threshold"] < 1.0
    assert "fresh_r3.jsonl" not in info["data"] and "sealed.jsonl" not in info["data"]
    ext = LearnedExtractor(DEFAULT_REGISTRY, POS)
    assert ext.threshold == info["threshold"]
    got = {(c.subject, c.predicate, c.value) for c in ext.extract([_event("I moved to Seattle last year.")])}
    assert ("user", "lives_in", "Seattle") in got
    assert ext.extract([_event("what's the weather like today?")]) == []


def test_a_missing_or_broken_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="metadata"):
        LearnedExtractor(DEFAULT_REGISTRY, POS, model=tmp_path / "none.crfsuite")
    (tmp_path / "bad.json").write_text(json.dumps({"threshold": 0.5}))
    (tmp_path / "bad.crfsuite").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot open"):
        LearnedExtractor(DEFAULT_REGISTRY, POS, model=tmp_path / "bad.crfsuite")
    (tmp_path / "nothr.json").write_text(json.dumps({"threshold": "high"}))
    with pytest.raises(ModelError, match="threshold"):
        LearnedExtractor(DEFAULT_REGISTRY, POS, model=tmp_path / "nothr.crfsuite")


def test_bad_training_data_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": "a", "kind": "fact", "text": "x", "expect": []}\n{oops\n')
    with pytest.raises(ValueError, match=r"d.jsonl:2: not JSON"):
        load_items([path])
    path.write_text('{"id": "a", "kind": "opinion"}\n')
    with pytest.raises(ValueError, match="kind fact, nonfact or sequence"):
        load_items([path])


def test_the_default_offline_extractor_is_the_rules() -> None:
    assert isinstance(offline_extractor(DEFAULT_REGISTRY, POS), RuleExtractor)
    assert isinstance(offline_extractor(DEFAULT_REGISTRY, POS, "rules"), RuleExtractor)
    assert isinstance(offline_extractor(DEFAULT_REGISTRY, POS, "union"), CombinedExtractor)
    assert isinstance(offline_extractor(DEFAULT_REGISTRY, POS, "learned"), LearnedExtractor)
    with pytest.raises(ValueError, match="unknown offline extractor"):
        offline_extractor(DEFAULT_REGISTRY, POS, "magic")


def test_strange_input_yields_no_claims_and_no_error() -> None:
    ext = LearnedExtractor(DEFAULT_REGISTRY, POS)
    for text in ("", "   ", "?!…", "😀" * 50, "a" * 5000, "\x00\x01"):
        assert ext.extract([_event(text)]) == [] or all(c.value for c in ext.extract([_event(text)]))


def test_a_store_extracts_with_the_rules_unless_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    from hlmem import Memory

    monkeypatch.delenv("HLMEM_EXTRACTOR", raising=False)
    with Memory(":memory:", embedder="none") as mem:
        assert mem._container.extractor().name == "rules"  # noqa: SLF001 - the composition root's choice
    monkeypatch.setenv("HLMEM_EXTRACTOR", "union")
    with Memory(":memory:", embedder="none") as mem:
        assert mem._container.extractor().name == "rules+learned"  # noqa: SLF001
    monkeypatch.setenv("HLMEM_EXTRACTOR", "magic")
    with pytest.raises(Exception, match="HLMEM_EXTRACTOR 'magic' must be one of rules, union, fallback, learned"):
        Memory(":memory:", embedder="none")


def test_a_learned_claim_goes_through_the_write_pipeline_with_its_source(monkeypatch: pytest.MonkeyPatch) -> None:
    from hlmem import Memory

    monkeypatch.setenv("HLMEM_EXTRACTOR", "union")
    with Memory(":memory:", embedder="none") as mem:
        mem.add("我跟我爸妈住在一起 在郑州")  # no rule reads this; the tagger does
        got = [(c.subject, c.predicate, c.value, c.source) for c in mem.claims().items]
    assert ("用户", "lives_in", "郑州", "extracted:learned#crf.lives_in") in got
