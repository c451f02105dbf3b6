"""The peers benchmark's protocol (benchmarks/peers/peers_protocol.py): vectors on the wire, the
driver's request loop, and the parent's Driver against a small driver script; offline, no peer."""

from __future__ import annotations

import io
import json
import struct
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

PEERS = Path(__file__).resolve().parents[3] / "benchmarks" / "peers"
if str(PEERS) not in sys.path:
    sys.path.insert(0, str(PEERS))

import peers_protocol as proto  # noqa: E402

floats32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


@given(st.lists(floats32, max_size=64))
def test_a_vector_survives_the_wire_exactly(values):
    assert list(proto.decode_vector(proto.encode_vector(values))) == values


def test_the_wire_format_is_little_endian_float32():
    text = proto.encode_vector([1.0, -2.5])
    assert proto.decode_vector(text).tobytes() == struct.pack("<2f", 1.0, -2.5)


@pytest.mark.parametrize(("text", "dim", "message"), [
    ("not base64!", None, "not base64"),
    ("AAA=", None, "not float32"),
    (proto.encode_vector([0.0, 1.0]), 3, "2 dimensions, expected 3"),
])
def test_a_bad_vector_is_refused_with_its_reason(text, dim, message):
    with pytest.raises(proto.ProtocolError, match=message):
        proto.decode_vector(text, dim)


class Echo:
    """A handler that times a sleep-free call and answers what it was given."""

    name = "echo"
    version = "echo 1"

    def __init__(self) -> None:
        self.added: list[str] = []

    def op_warm(self, msg, watch):
        return {}

    def op_open(self, msg, watch):
        self.added = []
        return {"opened": msg["scope"]}

    def op_add(self, msg, watch):
        vector = proto.decode_vector(msg["vector"])
        with watch:
            self.added.append(msg["id"])
        return {"ref": f"r{len(self.added)}", "dim": len(vector)}

    def op_recall(self, msg, watch):
        with watch:
            ids = list(reversed(self.added))[: msg["k"]]
        return {"ids": ids, "returned": len(ids)}

    def op_close(self, msg, watch):
        if msg.get("fail"):
            raise ValueError("store is gone")
        return {"stats": {"memories": len(self.added)}}


def converse(handler, *requests) -> list[dict]:
    stdin = io.StringIO("".join(json.dumps(r) + "\n" if isinstance(r, dict) else r for r in requests))
    out = io.StringIO()
    proto.serve(handler, stdin=stdin, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_serve_answers_each_request_with_the_timed_figures():
    replies = converse(Echo(), {"op": "open", "scope": "c"},
                       {"op": "add", "id": "D1:1", "vector": proto.encode_vector([1, 2, 3])},
                       {"op": "add", "id": "D1:2", "vector": proto.encode_vector([1, 2, 3])},
                       {"op": "recall", "k": 1}, {"op": "close"}, {"op": "quit"})
    hello, opened, add1, add2, recall, close, quit_ = replies
    assert hello["op"] == "hello" and hello["system"] == "echo" and hello["protocol"] == proto.PROTOCOL_VERSION
    assert opened["opened"] == "c"
    assert (add1["ref"], add2["ref"], add1["dim"]) == ("r1", "r2", 3)
    assert all(r["cpu_ms"] >= 0 and r["wall_ms"] >= 0 for r in (add1, add2, recall))
    assert recall["ids"] == ["D1:2"]
    assert close["stats"] == {"memories": 2}
    assert quit_["op"] == "quit" and quit_["peak_rss_mib"] > 0


def test_serve_reports_errors_and_keeps_serving():
    replies = converse(Echo(), "{not json\n", "[1]\n", {"op": "fly"}, {"op": "close", "fail": True},
                       {"op": "open", "scope": "x"})
    _, bad_json, not_object, unknown, failed, opened = replies
    assert not bad_json["ok"] and "bad request" in bad_json["error"]
    assert not not_object["ok"] and "JSON object" in not_object["error"]
    assert not unknown["ok"] and "unknown op 'fly'" in unknown["error"]
    assert not failed["ok"] and failed["error"] == "ValueError: store is gone" and "Traceback" in failed["traceback"]
    assert opened["ok"] and opened["opened"] == "x"


def test_an_add_the_driver_did_not_time_is_an_error():
    class Untimed(Echo):
        def op_add(self, msg, watch):
            return {"ref": "r"}

    reply = proto.handle(Untimed(), {"op": "add", "id": "a", "vector": proto.encode_vector([0.0])})
    assert not reply["ok"] and "did not time its add" in reply["error"]


def test_the_stopwatch_adds_up_its_blocks():
    watch = proto.Stopwatch()
    for _ in range(3):
        with watch:
            sum(range(10_000))
    assert watch.blocks == 3 and watch.cpu_ms > 0 and watch.wall_ms > 0


DRIVER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {peers!r})
    from peers_protocol import run_driver

    class Handler:
        name = "tiny"
        version = "tiny 0"

        def op_add(self, msg, watch):
            print("a library printing to stdout must not break the protocol")
            with watch:
                pass
            if msg["id"] == "die":
                sys.exit(3)
            return {{"ref": msg["id"]}}

    run_driver(Handler)
""")


def test_driver_talks_to_a_real_process_and_survives_its_chatter(tmp_path):
    script = tmp_path / "driver_tiny.py"
    script.write_text(DRIVER.format(peers=str(PEERS)))
    driver = proto.Driver("tiny", [sys.executable, str(script)], log=tmp_path / "tiny.log", timeout=60)
    try:
        assert driver.hello["version"] == "tiny 0"
        assert driver.call("add", id="D1:1")["ref"] == "D1:1"
        with pytest.raises(proto.ProtocolError, match="unknown op 'recall'|has no attribute"):
            driver.call("recall", k=1)
        assert "must not break the protocol" in driver.log_tail()
        with pytest.raises(proto.ProtocolError, match=r"exited \(3\) before answering add"):
            driver.call("add", id="die")
    finally:
        driver.close()


def test_a_driver_that_cannot_start_says_why(tmp_path):
    script = tmp_path / "driver_broken.py"
    script.write_text("import no_such_module_for_peers\n")
    with pytest.raises(proto.ProtocolError, match="no_such_module_for_peers"):
        proto.Driver("broken", [sys.executable, str(script)], log=tmp_path / "broken.log", timeout=60)
