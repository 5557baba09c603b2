"""A file learn writes is in its folder on disk when learn says it is written: the rename
is followed by a sync of the folder (held_folder.replace_in), not only of the file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from learn.report.held_folder import fill, hold, replace_in


def test_the_folder_is_synced_after_the_rename(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "shop" / ".claude"
    folder.mkdir(parents=True)
    (folder / "CLAUDE.md").write_text("# mine\n")
    synced: list[tuple[bool, int, bool]] = []
    real = os.fsync

    def spy(fd: int) -> None:
        st = os.fstat(fd)
        # (a folder?, its inode, the new name already in it?)
        there = stat.S_ISDIR(st.st_mode) and "CLAUDE.md" in os.listdir(folder) and \
            (folder / "CLAUDE.md").read_text() == "# new\n"
        synced.append((stat.S_ISDIR(st.st_mode), st.st_ino, there))
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    held = hold(folder, None, private=False, make=False)
    try:
        replace_in(held, "CLAUDE.md", b"# new\n", 0o644, None, lambda: None, fill)
    finally:
        held.close()
    assert (folder / "CLAUDE.md").read_text() == "# new\n"
    dirs = [s for s in synced if s[0]]
    assert dirs and dirs[-1][1] == folder.stat().st_ino and dirs[-1][2]
    assert not [f for f in os.listdir(folder) if f.endswith(".learn")]
