"""benchmarks/timing: the orjson baseline over several processes decodes what one does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks.timing import cpu_with_children, orjson_lines, orjson_lines_at_once

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the baseline forks")


def _files(tmp_path: Path, sizes: list[int]) -> list[Path]:
    out = []
    for i, n in enumerate(sizes):
        p = tmp_path / f"s{i}.jsonl"
        p.write_text("".join(f'{{"i": {k}, "pad": "{"x" * k}"}}\n' for k in range(n)) + "\n")
        out.append(p)
    return out


def test_every_line_is_decoded_once_over_the_processes(tmp_path: Path) -> None:
    files = _files(tmp_path, [50, 3, 20, 7, 1])
    assert orjson_lines(files) == 81
    for processes in (1, 2, 3, 8):
        assert orjson_lines_at_once(files, processes) == 81


def test_the_processes_cpu_is_counted(tmp_path: Path) -> None:
    files = _files(tmp_path, [2000, 2000])
    before = cpu_with_children()
    orjson_lines_at_once(files, 2)
    assert cpu_with_children() > before


def test_a_line_that_is_not_json_fails_the_baseline(tmp_path: Path) -> None:
    files = _files(tmp_path, [5, 5])
    files[1].write_text('{"ok": 1}\n{not json\n')
    with pytest.raises(RuntimeError, match="orjson baseline process failed"):
        orjson_lines_at_once(files, 2)
