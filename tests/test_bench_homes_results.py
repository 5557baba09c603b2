"""benchmarks/homes.py `results`: how a home's tool results carry their toolUseResult."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.homes import build


def _results(root: Path) -> list[tuple[str, dict[str, object] | str]]:
    """(the content the model read, the toolUseResult) of each Claude Code tool result."""
    out: list[tuple[str, dict[str, object] | str]] = []
    for path in sorted(root.rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if entry.get("type") != "user" or "toolUseResult" not in entry:
                continue
            block = entry["message"]["content"][0]
            content = block["content"]
            text = content if isinstance(content, str) else "".join(b["text"] for b in content)
            out.append((text, entry["toolUseResult"]))
    return out


def test_full_results_carry_the_whole_outcome_and_short_ones_its_head(tmp_path: Path) -> None:
    build(tmp_path / "short", "spread", 6, mb=20)
    build(tmp_path / "full", "spread", 6, mb=20, results="full")
    short = [r for _, r in _results(tmp_path / "short") if isinstance(r, dict)]
    assert short and all(len(str(r["stdout"])) <= 200 for r in short)
    full = [(text, r) for text, r in _results(tmp_path / "full") if isinstance(r, dict)]
    kinds = {("stdout" in r, "file" in r, "originalFile" in r, "filenames" in r) for _, r in full}
    assert len(kinds) == 4  # a Bash result, a Read or Write, an Edit, a Grep or Glob
    for text, r in full:
        whole = r.get("stdout") or r.get("originalFile") or (r.get("file") or {}).get("content")  # type: ignore[union-attr]
        assert whole is None or whole == text  # the outcome again, as the model read it


def test_an_unknown_results_shape_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="results"):
        build(tmp_path / "x", "spread", 2, mb=1, results="huge")
