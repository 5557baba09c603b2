"""A transcript a Windows tool saved again, a byte order mark before its first line.

No client writes one; PowerShell 5's `Out-File -Encoding utf8` and some editors add it
when a session is copied or saved again. The first line then did not decode and was
dropped as damaged: Claude Code's first typed prompt, Codex's session_meta (the client,
the recorded git facts that place a project from another machine)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from evals.builder.claude import ClaudeSession
from evals.builder.codex import CodexSession
from evals.builder.common import stable_uuid
from learn.transcripts.files.heads import read_head
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
BOM = b"\xef\xbb\xbf"


def _saved_on_windows(path: Path) -> None:
    path.write_bytes(BOM + path.read_bytes().replace(b"\n", b"\r\n"))


@pytest.mark.parametrize("crlf", [False, True])
def test_a_claude_code_session_keeps_its_first_prompt(tmp_path: Path, crlf: bool) -> None:
    s = ClaudeSession(stable_uuid("bom", "claude"), r"C:\Users\me\proj", START)
    s.user("tidy the receipts view")
    s.assistant("Done.")
    s.user("now the basket totals")
    s.assistant("Done too.")
    path = s.write(tmp_path / ".claude")
    plain = build_session(parse(path))
    if crlf:
        _saved_on_windows(path)
    else:
        path.write_bytes(BOM + path.read_bytes())
    read = parse(path)
    assert read.skipped_lines == 0
    assert [t.text for t in build_session(read).human_turns] == [
        t.text for t in plain.human_turns] == ["tidy the receipts view", "now the basket totals"]
    assert read_head(path, "claude").cwd == r"C:\Users\me\proj"


def test_a_codex_rollout_keeps_its_session_meta(tmp_path: Path) -> None:
    c = CodexSession(stable_uuid("bom", "codex"), r"C:\Users\me\proj3", START)
    c.user("the invoice totals look wrong")
    c.assistant("ok")
    path = c.write(tmp_path / ".codex")
    plain = build_session(parse(path))
    _saved_on_windows(path)
    read = parse(path)
    assert read.provider == "codex" and read.skipped_lines == 0
    view = build_session(read)
    assert (view.id, view.project, view.entrypoint) == (plain.id, plain.project, plain.entrypoint)
    assert read_head(path, "codex").cwd == r"C:\Users\me\proj3"
