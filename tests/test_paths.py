"""learn's directories are private, parents included."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from learn.paths import atomic_write_text, ensure_private_dir


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_every_directory_learn_creates_is_0700(tmp_path: Path) -> None:
    existing = tmp_path / "userdir"
    existing.mkdir(mode=0o755)
    os.chmod(existing, 0o755)
    target = existing / ".cache" / "learn" / "mined"
    ensure_private_dir(target)
    assert _mode(existing / ".cache") == 0o700
    assert _mode(existing / ".cache" / "learn") == 0o700
    assert _mode(target) == 0o700
    assert _mode(existing) == 0o755  # a directory the user already had is left alone


def test_atomic_write_is_0600_and_replaces_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    f = out / "out.md"
    atomic_write_text(f, "one\n")
    atomic_write_text(f, "two\n")
    assert f.read_text() == "two\n"
    assert _mode(f) == 0o600
    assert [p.name for p in out.iterdir()] == ["out.md"]  # no temp file left behind


def test_a_file_written_into_learns_missing_cache_dir_makes_it_0700(
        _isolated_home: Path) -> None:
    """The listing's judgement was the first file in ~/.cache/learn, and its directory
    came out 0755 (doctor then warned about it)."""
    from learn.paths import cache_dir

    old = os.umask(0o022)
    try:
        atomic_write_text(cache_dir() / "sessions-judged.json", "{}")
        elsewhere = _isolated_home / "code" / "app" / ".claude" / "rules" / "x.md"
        atomic_write_text(elsewhere, "a rule\n", mode=0o644)
    finally:
        os.umask(old)
    assert stat.S_IMODE(cache_dir().stat().st_mode) == 0o700
    # A project's folders follow the person's umask: only learn's own are private.
    assert stat.S_IMODE(elsewhere.parent.stat().st_mode) == 0o755
