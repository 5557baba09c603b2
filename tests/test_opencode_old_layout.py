"""OpenCode's per-project store (its first versions, 0.0.x-0.3): found, placed, read once.

`<data>/project/<slug>/storage/session/info/<id>.json`, its messages in
`session/message/<id>/`, and either parts inside each message (the first builds) or
part files in `session/part/<id>/<message id>/`. The texts and ids are this project's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from learn.transcripts.blocks import ToolResultBlock, ToolUseBlock
from learn.transcripts.files.discover import scan
from learn.transcripts.files.sources import read_session, source_stat
from learn.transcripts.models import AssistantEvent, UserEvent
from learn.transcripts.opencode.project_storage import slug
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

T0 = 1_751_450_000_000  # 2025-07-02, epoch ms


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "src" / "tide-tables"
    project.mkdir(parents=True)
    return project


def _data() -> Path:
    return Path.home() / ".local" / "share" / "opencode"


def _write(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))
    return path


class OldSession:
    """One session of a per-project store, as OpenCode's first versions wrote it."""

    def __init__(self, sid: str, folder: str, *, info: dict[str, Any] | None = None) -> None:
        self.sid = sid
        self.storage = _data() / "project" / folder / "storage" / "session"
        self.info = _write(self.storage / "info" / f"{sid}.json",
                           info if info is not None else {"id": sid, "title": "New Session"})
        self.n = 0

    def _mid(self) -> str:
        self.n += 1
        return f"msg_{self.sid[-4:]}{self.n:04d}"

    def inline(self, role: str, parts: list[dict[str, Any]], *, cwd: str | None = None,
               tools: dict[str, Any] | None = None) -> Path:
        """A message of the first builds: parts inside it, facts under `metadata`."""
        mid = self._mid()
        metadata: dict[str, Any] = {"time": {"created": T0 + self.n * 1000},
                                    "sessionID": self.sid, "tool": tools or {}}
        if role == "assistant":
            metadata["assistant"] = {"modelID": "claude-sonnet-4", "providerID": "anthropic",
                                     "path": {"cwd": cwd or "", "root": cwd or ""}, "cost": 0,
                                     "system": [], "tokens": {}}
        return _write(self.storage / "message" / self.sid / f"{mid}.json",
                      {"id": mid, "role": role, "parts": parts, "metadata": metadata})

    def split(self, role: str, parts: list[dict[str, Any]], *, cwd: str | None = None) -> Path:
        """A message of the later builds: its info, and one file a part."""
        mid = self._mid()
        info: dict[str, Any] = {"id": mid, "sessionID": self.sid, "role": role,
                                "time": {"created": T0 + self.n * 1000}}
        if cwd is not None:
            info |= {"path": {"cwd": cwd, "root": cwd}, "modelID": "gpt-4.1"}
        for i, part in enumerate(parts):
            pid = f"prt_{mid[-8:]}{i:02d}"
            _write(self.storage / "part" / self.sid / mid / f"{pid}.json",
                   {"id": pid, "sessionID": self.sid, "messageID": mid, **part})
        return _write(self.storage / "message" / self.sid / f"{mid}.json", info)


def _typed(path: Path) -> list[str]:
    return [t.text for t in build_session(parse(path)).human_turns]


def test_a_first_builds_session_is_found_placed_and_read_with_its_tool_calls(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    s = OldSession("ses_0001aaaa", slug(str(project)))
    s.inline("user", [{"type": "text", "text": "put the tide constants in one module"},
                      {"type": "text", "text": "Called the Read tool on /x.py\n<results>\n"
                                               "pasted file</results>"}])
    s.inline("assistant", [
        {"type": "step-start"},
        {"type": "tool-invocation", "toolInvocation": {
            "state": "result", "toolCallId": "call_1", "toolName": "bash",
            "args": {"command": "pytest"}, "result": "1 failed"}},
        {"type": "text", "text": "One test fails."}],
        cwd=str(project), tools={"call_1": {"title": "pytest", "error": True,
                                            "time": {"start": T0, "end": T0 + 10}}})
    found = scan(project=project)
    [session] = found.files
    assert (session.path, session.provider, session.session_id) == (s.info, "opencode",
                                                                    "ses_0001aaaa")
    assert session.project == str(project) and found.skipped == {}
    # The pasted file the client read in is context; the person's words are typed.
    assert _typed(s.info) == ["put the tide constants in one module"]
    events = parse(s.info).events
    [use] = [b for e in events if isinstance(e, AssistantEvent) for b in e.blocks
             if isinstance(b, ToolUseBlock)]
    [result] = [b for e in events if isinstance(e, UserEvent) for b in e.blocks
                if isinstance(b, ToolResultBlock)]
    assert (use.name, use.input) == ("bash", {"command": "pytest"})
    assert (result.tool_use_id, result.is_error) == ("call_1", True)
    assert any(isinstance(e, AssistantEvent) and e.text == "One test fails." for e in events)


def test_a_later_builds_session_reads_its_part_files(tmp_path: Path) -> None:
    project = _project(tmp_path)
    s = OldSession("ses_0002bbbb", slug(str(project)),
                   info={"id": "ses_0002bbbb", "title": "t", "version": "0.3.1",
                         "time": {"created": T0, "updated": T0 + 5000}})
    s.split("user", [{"type": "text", "text": "no emojis in commit messages"},
                     {"type": "text", "text": "a reminder the client added", "synthetic": True}])
    s.split("assistant", [{"type": "text", "text": "Understood."}], cwd=str(project / "docs"))
    [session] = scan(project=project).files
    assert session.project == str(project / "docs")  # the reply says where it ran
    assert _typed(s.info) == ["no emojis in commit messages"]


def test_a_migrated_session_is_read_once_from_the_newer_store(tmp_path: Path) -> None:
    project = _project(tmp_path)
    old = OldSession("ses_0003cccc", slug(str(project)))
    old.inline("user", [{"type": "text", "text": "say it once"}])
    old.inline("assistant", [{"type": "text", "text": "ok"}], cwd=str(project))
    storage = _data() / "storage"
    new = _write(storage / "session" / "abc123" / "ses_0003cccc.json",
                 {"id": "ses_0003cccc", "projectID": "abc123", "directory": str(project),
                  "title": "t", "version": "0.4.0", "time": {"created": T0, "updated": T0}})
    _write(storage / "message" / "ses_0003cccc" / "msg_x0000001.json",
           {"id": "msg_x0000001", "sessionID": "ses_0003cccc", "role": "user",
            "time": {"created": T0}})
    _write(storage / "part" / "msg_x0000001" / "prt_1.json",
           {"id": "prt_1", "type": "text", "text": "say it once"})
    found = scan(project=project)
    assert [f.path for f in found.files] == [new]
    [skip] = found.skipped_files
    assert (skip.path, skip.reason, skip.detail) == (old.info, "duplicate", str(new))
    assert [t for f in found.files for t in _typed(f.path)] == ["say it once"]


def test_a_session_no_message_places_is_placed_by_its_folder_or_left_out(tmp_path: Path) -> None:
    project = _project(tmp_path)
    placed = OldSession("ses_0004dddd", slug(str(project)))
    placed.inline("user", [{"type": "text", "text": "quit before any reply"}])
    unplaced = OldSession("ses_0005eeee", "global")
    unplaced.inline("user", [{"type": "text", "text": "outside any repository"}])
    found = scan(project=project)
    assert [f.path for f in found.files] == [placed.info]
    assert found.skipped == {"no_cwd": 1}
    assert [f.path for f in scan(all_projects=True).files] == [unplaced.info, placed.info]


def test_broken_files_are_counted_and_the_rest_read(tmp_path: Path) -> None:
    project = _project(tmp_path)
    s = OldSession("ses_0006ffff", slug(str(project)))
    s.info.write_text("{cut")  # the session file itself: its id is its name
    s.inline("user", [{"type": "text", "text": "the readable turn"}])
    s.inline("assistant", [{"type": "text", "text": "ok"}], cwd=str(project))
    (s.storage / "message" / s.sid / "msg_zzzz9999.json").write_text("[not, an, object")
    [session] = scan(project=project).files
    transcript = parse(session.path)
    assert transcript.provider == "opencode"
    assert transcript.skipped == {"undecodable": 2}
    assert _typed(session.path) == ["the readable turn"]


def test_reading_the_old_store_writes_nothing(tmp_path: Path) -> None:
    project = _project(tmp_path)
    s = OldSession("ses_0007gggg", slug(str(project)))
    s.split("user", [{"type": "text", "text": "leave my files alone"}])
    s.split("assistant", [{"type": "text", "text": "ok"}], cwd=str(project))

    def tree() -> dict[str, tuple[bytes, int]]:
        return {str(p): (p.read_bytes(), p.stat().st_mtime_ns)
                for p in sorted(_data().rglob("*")) if p.is_file()}

    before = tree()
    [session] = scan(project=project).files
    assert _typed(session.path) == ["leave my files alone"]
    buf, stat = read_session(session.path)
    assert stat == source_stat(session.path) and buf == read_session(session.path)[0]
    assert tree() == before and sorted(p.name for p in _data().iterdir()) == ["project"]
