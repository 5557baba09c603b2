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
