"""`read_session` gives a session file's bytes exactly, whatever its size, and reads a
file that grew after its fstat (a live session being written) to its end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from learn.transcripts.files import sources
from learn.transcripts.files.sources import NotRegularFile, read_session


@pytest.mark.parametrize("size", [0, 1, 8191, (1 << 20) + 3, 5 * (1 << 20) + 7])
def test_the_bytes_are_the_file_s(tmp_path: Path, size: int) -> None:
    path = tmp_path / "s.jsonl"
    data = os.urandom(size)
    path.write_bytes(data)
    got, st = read_session(path)
    assert got == data
    assert st.size == size and st.inode == path.stat().st_ino


def test_a_file_that_grew_after_its_fstat_is_read_to_its_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.jsonl"
    data = b'{"type":"user"}\n' * 200_000  # 3.2 MB: more than one read past the fstat's size
    path.write_bytes(data)
    real = os.fstat

    def smaller(fd: int) -> os.stat_result:
        st = real(fd)
        fields = list(st)
        fields[6] = 100  # st_size, as the fstat saw it before the writer appended
        return os.stat_result(fields)

    monkeypatch.setattr(sources.os, "fstat", smaller)
    got, _ = read_session(path)
    assert got == data


def test_a_directory_named_like_a_session_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.mkdir()
    with pytest.raises(NotRegularFile):
        read_session(path)
