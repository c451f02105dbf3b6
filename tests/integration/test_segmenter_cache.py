"""jieba's dictionary cache lives in the OS user's cache folder (ADR 0024): a cache that cannot be
read or written never prints a traceback, at most one line, and segmentation works the same.
The cache a short process reads is hlmem's SQLite copy of the dictionary, read word by word
(adapters/text/jieba_dict.py, ADR 0079), beside where jieba's own cache goes.

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
    from hlmem.adapters.text.jieba_dict import dictionary_file
    from hlmem.adapters.text.segment import cache_file, segment_for_index
    print(dictionary_file(cache_file()))
    print(segment_for_index("我住在杭州"))
"""
EXPECTED = "我 住 在 杭州"


def segment_in(cache_home: Path, *, prefix: tuple[str, ...] = (), tmp: Path | None = None,
               home: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home), "PYTHONIOENCODING": "utf-8"}
    # The fallback folder (hlmem-<uid> in the temporary folder): a test's own, never the real /tmp.
    env["TMPDIR"] = str(tmp if tmp is not None else cache_home.parent / "tmp")
    Path(env["TMPDIR"]).mkdir(exist_ok=True)
    if home is not None:
        env["HOME"] = home
        env.pop("XDG_CACHE_HOME")
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


def test_an_unusable_cache_folder_falls_back_to_a_private_temporary_folder_silently(tmp_path: Path) -> None:
    """Issue 33 item 8: a user whose cache folder cannot be made (a service user's missing home)
    warned and rebuilt the dictionary on every run; now it is cached in hlmem-<uid> in the
    temporary folder, quietly, and read again by the next run."""
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache folder cannot be made below a file")
    tmp = tmp_path / "tmp"
    first = segment_in(blocker, tmp=tmp)
    assert first.returncode == 0 and first.stderr == "", first
    path, tokens = first.stdout.splitlines()
    cache = Path(path)
    assert tokens == EXPECTED and cache.parent == tmp / f"hlmem-{os.getuid()}" and cache.is_file()
    assert cache.parent.stat().st_mode & 0o777 == 0o700
    built = cache.stat().st_mtime_ns
    again = segment_in(blocker, tmp=tmp)
    assert (again.returncode, again.stderr, again.stdout) == (0, "", first.stdout)
    assert cache.stat().st_mtime_ns == built  # read, not built again


def test_a_temporary_folder_of_that_name_made_by_someone_else_is_not_used(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    planted = tmp_path / "elsewhere"
    planted.mkdir()
    (tmp / f"hlmem-{os.getuid()}").symlink_to(planted)  # a link someone planted: never followed
    done = segment_in(blocker, tmp=tmp)
    assert done.returncode == 0 and done.stdout.splitlines()[1] == EXPECTED, done
    assert list(planted.iterdir()) == []
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()  # no usable place at all: one line, each run
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
    # A cache folder this user may not write to: the private temporary folder instead, silently
    # (issue 33 item 8), and the next run reads it there.
    os.chown(cache.parent, 65534, 65534)
    cache.unlink()
    try:
        denied = segment_in(tmp_path, prefix=plain)
        again = segment_in(tmp_path, prefix=plain)
    finally:
        os.chown(cache.parent, os.geteuid(), os.getegid())
    assert denied.returncode == 0 and denied.stdout.splitlines()[1] == EXPECTED, denied
    assert denied.stderr == "" and again.stderr == "" and again.stdout == denied.stdout
    assert Path(denied.stdout.splitlines()[0]).parent.name == f"hlmem-{os.geteuid()}"
