"""The packaged-model server's plumbing, without a model: why it cannot run, and what it would start."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from hlmem.adapters.llm import llamacpp
from hlmem.adapters.llm.llamacpp import PACKAGED_MODELS, LlamaCppServer, free_port, unavailable


def test_an_unknown_model_is_named_with_the_known_ones() -> None:
    why = unavailable("qwen-72b")
    assert why is not None and "unknown packaged model 'qwen-72b'" in why and "smollm2-135m" in why


def test_a_missing_package_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(llamacpp.importlib.util, "find_spec",
                        lambda name, *a: None if name == "llama_cpp.server" else real(name, *a))
    why = unavailable("smollm2-135m")
    assert why == "llama-cpp-python[server] is not installed (pip install 'hlmem[llm-local]')"
    with pytest.raises(RuntimeError, match="hlmem\\[llm-local\\]"):
        LlamaCppServer("smollm2-135m")


def test_the_server_listens_on_loopback_only_and_answers_to_the_models_name(monkeypatch: pytest.MonkeyPatch,
                                                                            tmp_path: Path) -> None:
    monkeypatch.setattr(llamacpp, "unavailable", lambda model: None)
    monkeypatch.setattr(llamacpp, "model_path", lambda model, cache: tmp_path / "m.gguf")
    server = LlamaCppServer("gemma3-270m", port=4321, threads=1, n_ctx=2048)
    cmd = server.command()
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1" and cmd[cmd.index("--port") + 1] == "4321"
    assert cmd[cmd.index("--model_alias") + 1] == "gemma3-270m"
    assert cmd[cmd.index("--chat_format") + 1] == "gemma"  # a base model: no template in its GGUF
    assert server.base_url == "http://127.0.0.1:4321/v1"
    assert "--chat_format" not in LlamaCppServer("smollm2-135m", port=4321).command()  # its GGUF has one


def test_a_free_port_is_on_loopback_and_unused() -> None:
    import socket

    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_every_packaged_model_names_its_package() -> None:
    assert set(PACKAGED_MODELS) == {"smollm2-135m", "gemma3-270m"}
    assert all(m.package.isidentifier() for m in PACKAGED_MODELS.values())
