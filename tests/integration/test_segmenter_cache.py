"""jieba's dictionary cache lives in the OS user's cache folder (ADR 0024): a cache that cannot be
read or written never prints a traceback, at most one line, and segmentation works the same.

Each case runs a fresh interpreter (the dictionary loads once per process) whose user cache
folder is chosen with ``XDG_CACHE_HOME``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SEGMENT = """
    import sys
    from hlmem.adapters.text.segment import cache_file, segment_for_index
    print(cache_file())
    print(segment_for_index("我住在杭州"))
"""
EXPECTED = "我 住 在 杭州"


def segment_in(cache_home: Path, *, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([*prefix, sys.executable, "-c", textwrap.dedent(SEGMENT)], capture_output=True, text=True,
                          env=env, timeout=180)


def test_the_cache_is_kept_in_the_user_cache_folder_and_reused(tmp_path: Path) -> None:
    first = segment_in(tmp_path)
    assert first.returncode == 0 and first.stderr == "", first
    path, tokens = first.stdout.splitlines()
    assert tokens == EXPECTED
    cache = Path(path)
    assert cache.parent == tmp_path / "hlmem" and cache.is_file()
    assert cache.stat().st_mode & 0o077 == 0  # private to this user
    built = cache.stat().st_mtime_ns
    again = segment_in(tmp_path)
    assert (again.returncode, again.stderr, again.stdout) == (0, "", first.stdout)
    assert cache.stat().st_mtime_ns == built  # read, not built again


def test_an_unusable_cache_folder_gives_one_line_and_no_traceback(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache folder cannot be made below a file")
    done = segment_in(blocker)
    assert done.returncode == 0, done
    assert done.stdout.splitlines()[1] == EXPECTED
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("hlmem: cannot write the segmenter cache")


def test_a_cache_file_that_cannot_be_read_is_replaced_quietly(tmp_path: Path) -> None:
    first = segment_in(tmp_path)
    cache = Path(first.stdout.splitlines()[0])
    cache.unlink()
    cache.mkdir()  # not a file any more: reading fails, and the new file cannot replace a folder
    (cache / "x").write_text("")
    done = segment_in(tmp_path)
    assert done.returncode == 0 and done.stdout.splitlines()[1] == EXPECTED, done
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) <= 1


SETPRIV = shutil.which("setpriv")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0 or SETPRIV is None,
                    reason="needs root and setpriv to act as a user without override rights")
def test_another_users_cache_file_costs_no_traceback(tmp_path: Path) -> None:
    # Root without the capabilities that bypass file permissions acts as an ordinary user: a
    # cache file left mode 0600 by another user (nobody here) cannot be read, as in the report.
    first = segment_in(tmp_path)
    cache = Path(first.stdout.splitlines()[0])
    os.chown(cache, 65534, 65534)
    cache.chmod(0o600)
    plain = (SETPRIV, "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--")
    done = segment_in(tmp_path, prefix=plain)
    assert done.returncode == 0 and done.stdout.splitlines()[1] == EXPECTED, done
    assert done.stderr == ""  # rebuilt and written back in this user's own folder, silently
    assert cache.stat().st_uid == os.geteuid()
    # A cache folder this user may not write to: one line, still no traceback.
    os.chown(cache.parent, 65534, 65534)
    cache.unlink()
    try:
        denied = segment_in(tmp_path, prefix=plain)
    finally:
        os.chown(cache.parent, os.geteuid(), os.getegid())
    assert denied.returncode == 0 and denied.stdout.splitlines()[1] == EXPECTED, denied
    assert "Traceback" not in denied.stderr and len(denied.stderr.splitlines()) == 1
