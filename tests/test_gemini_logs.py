"""Gemini CLI's `logs.json`: the typed messages of sessions from before chat recording.

A log session is read for what the person typed and nothing else; a session that also
has a chats file is read from that file alone; a broken log or entry is skipped and
counted; nothing in Gemini CLI's folder is written.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fixtures.fidelity.agent_writers import GeminiChat

from learn.transcripts.files.discover import scan
from learn.transcripts.files.heads import last_activity
from learn.transcripts.files.sources import read_session, session_exists, source_stat
from learn.transcripts.models import AssistantEvent
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "work" / "orchard"
    project.mkdir(parents=True)
    return project


def _folder(project: Path) -> Path:
    """The project's folder as the builds before the registry named it: its path's sha256."""
    folder = Path.home() / ".gemini" / "tmp" / hashlib.sha256(str(project).encode()).hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _entry(session: str, n: int, text: str, minute: int = 0) -> dict[str, Any]:
    return {"sessionId": session, "messageId": n, "type": "user", "message": text,
            "timestamp": f"2025-07-02T10:{minute + n:02d}:00.000Z"}


def _write_log(folder: Path, entries: list[Any]) -> Path:
    path = folder / "logs.json"
    path.write_text(json.dumps(entries, indent=2))
    return path


def _typed(path: Path) -> list[str]:
    return [t.text for t in build_session(parse(path)).human_turns]


OLD = "0a1b2c3d-1111-4000-8000-00000000000a"
OTHER = "9f8e7d6c-2222-4000-8000-00000000000b"


def test_a_session_known_only_from_logs_json_is_listed_with_what_was_typed(tmp_path: Path) -> None:
    project = _project(tmp_path)
    folder = _folder(project)
    log = _write_log(folder, [
        _entry(OLD, 0, "rename the fixtures to match the modules"),
        _entry(OLD, 1, "keep the changelog in the same commit"),
        _entry(OTHER, 0, "a second session, later", minute=30),
    ])
    found = scan(project=project)
    assert [(f.provider, f.path) for f in found.files] == [
        ("gemini", log / OTHER), ("gemini", log / OLD)]  # newest first, by their last entry
    assert found.files[1].session_id == OLD and found.files[1].project == str(project)
    assert found.skipped == {}
    assert _typed(log / OLD) == ["rename the fixtures to match the modules",
                                 "keep the changelog in the same commit"]
    transcript = parse(log / OLD)
    assert transcript.provider == "gemini"
    # The log holds what was typed and nothing more: no reply, no tool call.
    assert not [e for e in transcript.events if isinstance(e, AssistantEvent)]


def test_a_session_in_both_a_chats_file_and_the_log_is_counted_once_from_its_chats_file(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    folder = _folder(project)
    chat = GeminiChat(OLD)
    chat.user("use the staging bucket for uploads")
    chat.gemini("Done.")
    chats = chat.write_jsonl(folder / "chats" / f"session-2025-09-01T10-00-{OLD[:8]}.jsonl")
    log = _write_log(folder, [_entry(OLD, 0, "use the staging bucket for uploads"),
                              _entry(OTHER, 0, "only the log knows this one")])
    found = scan(project=project)
    assert sorted(str(f.path) for f in found.files) == sorted([str(chats), str(log / OTHER)])
    assert found.skipped == {}  # the log's entries of a recorded session are no second copy
    typed = [t for f in found.files for t in _typed(f.path)]
    assert typed.count("use the staging bucket for uploads") == 1
    assert "only the log knows this one" in typed


def test_a_slash_command_in_the_log_is_a_command_not_a_typed_turn(tmp_path: Path) -> None:
    project = _project(tmp_path)
    log = _write_log(_folder(project), [
        _entry(OLD, 0, "/chat save before-refactor"),
        _entry(OLD, 1, "/usr/local/bin is not on the PATH in CI"),
        _entry(OLD, 2, "/quit"),
    ])
    # A command's arguments are typed, its name is not (as in every agent's view); a path
    # typed first is no command.
    assert _typed(log / OLD) == ["save before-refactor", "/usr/local/bin is not on the PATH in CI"]


def test_a_logged_shell_mode_command_in_shell_history_is_a_shell_line(tmp_path: Path) -> None:
    """The log keeps `!make deploy` as "make deploy", without its `!`; the project's
    `shell_history` beside it names the command (one of several lines as that run of
    lines), so it is no prompt."""
    project = _project(tmp_path)
    folder = _folder(project)
    log = _write_log(folder, [
        _entry(OLD, 0, "deploy only after the tests pass"),
        _entry(OLD, 1, "make deploy"),
        _entry(OLD, 2, "tar czf \\\nout.tgz build"),
        _entry(OLD, 3, "git log"),
    ])
    (folder / "shell_history").write_text("ls -la\nmake deploy\ntar czf \\\nout.tgz build\n")
    assert _typed(log / OLD) == ["deploy only after the tests pass", "git log"]


def test_a_log_that_is_not_a_json_array_is_skipped_and_the_chats_are_still_read(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    folder = _folder(project)
    chat = GeminiChat(OTHER)
    chat.user("still here")
    chats = chat.write_jsonl(folder / "chats" / f"session-2025-09-01T10-00-{OTHER[:8]}.jsonl")
    for broken in (b"[{\"sessionId\": \"cut", b'{"sessionId": "not a list"}'):
        (folder / "logs.json").write_bytes(broken)
        found = scan(project=project)
        assert [f.path for f in found.files] == [chats]
        [skip] = found.skipped_files
        assert (skip.path, skip.reason, skip.provider) == (folder / "logs.json", "unreadable",
                                                           "gemini")


def test_bad_entries_are_counted_and_the_good_ones_read(tmp_path: Path) -> None:
    project = _project(tmp_path)
    log = _write_log(_folder(project), [
        _entry(OLD, 0, "the good one"),
        {"sessionId": OLD, "messageId": 1, "type": "user", "timestamp": "2025-07-02T10:05:00Z"},
        {"sessionId": OLD, "messageId": 2, "type": "user", "message": 42,
         "timestamp": "2025-07-02T10:06:00Z"},
        {"messageId": 0, "type": "user", "message": "whose?", "timestamp": "2025-07-02T10:07Z"},
        "not an entry",
        {"sessionId": "../escape", "messageId": 0, "type": "user", "message": "no",
         "timestamp": "2025-07-02T10:08:00Z"},
    ])
    found = scan(project=project)
    assert [f.path for f in found.files] == [log / OLD]
    [skip] = found.skipped_files
    assert skip.reason == "unreadable" and skip.detail == "3 of its entries name no session"
    transcript = parse(log / OLD)
    assert transcript.skipped == {"invalid": 2}
    assert _typed(log / OLD) == ["the good one"]


def test_reading_the_log_writes_nothing_in_gemini_clis_folder(tmp_path: Path) -> None:
    project = _project(tmp_path)
    folder = _folder(project)
    _write_log(folder, [_entry(OLD, 0, "prefer small pull requests")])
    (folder / "checkpoint-before.json").write_text(json.dumps(
        [{"role": "user", "parts": [{"text": "prefer small pull requests"}]}]))

    def tree() -> dict[str, tuple[bytes, int]]:
        return {str(p): (p.read_bytes(), p.stat().st_mtime_ns)
                for p in sorted(folder.parent.parent.rglob("*")) if p.is_file()}

    before = tree()
    [found] = scan(project=project).files
    assert _typed(found.path) == ["prefer small pull requests"]  # the checkpoint adds none
    read_session(found.path)
    assert tree() == before


def test_a_log_session_changes_only_when_its_own_entries_do(tmp_path: Path) -> None:
    project = _project(tmp_path)
    folder = _folder(project)
    entries = [_entry(OLD, 0, "first"), _entry(OTHER, 0, "elsewhere", minute=30)]
    log = _write_log(folder, entries)
    old, other = source_stat(log / OLD), source_stat(log / OTHER)
    assert old is not None and session_exists(log / OLD)
    os.utime(log, (1_800_000_000, 1_800_000_000))  # the log's mtime alone says nothing
    entries.append(_entry(OTHER, 1, "another message of the other session", minute=30))
    _write_log(folder, entries)
    assert source_stat(log / OLD) == old
    assert source_stat(log / OTHER) != other
    buf, stat = read_session(log / OLD)
    assert stat == old and buf == read_session(log / OLD)[0]  # the export is deterministic
    assert not session_exists(log / "no-such-session")
    assert last_activity(log / OLD) == datetime(2025, 7, 2, 10, 0, tzinfo=UTC).timestamp()


def test_since_and_id_prefix_find_a_log_session(tmp_path: Path) -> None:
    project = _project(tmp_path)
    log = _write_log(_folder(project), [_entry(OLD, 0, "old words")])
    assert scan(project=project, since=datetime(2025, 8, 1, tzinfo=UTC)).skipped == {"too_old": 1}
    assert [f.path for f in scan(all_projects=True, id_prefix=OLD[:6]).files] == [log / OLD]


def test_a_session_resumed_under_another_id_is_read_from_its_chats_file_alone(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    folder = _folder(project)
    chat = GeminiChat(OLD)
    chat.user("pin the node version")
    chat.user("and the pnpm one, resumed later")
    chats = chat.write_jsonl(folder / "chats" / f"session-2025-07-02T10-00-{OLD[:8]}.jsonl")
    written = datetime(2025, 7, 2, 11, 0, tzinfo=UTC).timestamp()
    os.utime(chats, (written, written))
    later = "5e5e5e5e-3333-4000-8000-00000000000c"
    log = _write_log(folder, [
        _entry(OLD, 0, "pin the node version"),
        # The resumed run logged under the id its process started with.
        _entry(OTHER, 0, "and the pnpm one, resumed later", minute=30),
        {**_entry(later, 0, "after the chats file was last written"),
         "timestamp": "2025-07-02T12:15:00.000Z"},
    ])
    found = scan(project=project)
    assert sorted(str(f.path) for f in found.files) == sorted([str(chats), str(log / later)])
    [skip] = found.skipped_files
    assert (skip.path, skip.reason, skip.detail) == (log / OTHER, "duplicate", str(chats))


def test_plan_prices_a_log_session_rather_than_calling_it_unreadable(tmp_path: Path) -> None:
    # A session a store holds is `<logs.json>/<id>`: `learn plan` stat'ed that path, filed
    # every log session unreadable and left it out of the price (review of 2026-12).
    from learn.mining.cache import MineCache
    from learn.mining.plan import plan_mining

    project = _project(tmp_path)
    log = _write_log(_folder(project), [
        _entry(OLD, 0, "rename the fixtures to match the modules"),
        _entry(OTHER, 0, "keep the changelog in the same commit", minute=30),
    ])
    found = scan(project=project)
    plan = plan_mining(found.files, cache=MineCache(tmp_path / "cache"), model="claude-sonnet-4-5")
    assert plan.unreadable == ()
    assert sorted(p.path for p in plan.to_mine) == sorted([log / OLD, log / OTHER])
    assert plan.raw_bytes == sum(len(read_session(log / s)[0]) for s in (OLD, OTHER))


def test_a_log_session_in_a_chats_files_window_but_not_in_it_is_listed(tmp_path: Path) -> None:
    # The window alone dropped any log session written while a long-lived chats file was
    # open (its chats file gone, or never recorded) as that file's "duplicate".
    project = _project(tmp_path)
    folder = _folder(project)
    chat = GeminiChat(OLD)
    chat.user("pin the node version")
    chats = chat.write_jsonl(folder / "chats" / f"session-2025-07-01T09-00-{OLD[:8]}.jsonl")
    resumed_days_later = datetime(2025, 7, 5, 9, 0, tzinfo=UTC).timestamp()
    os.utime(chats, (resumed_days_later, resumed_days_later))
    log = _write_log(folder, [
        _entry(OLD, 0, "pin the node version"),
        _entry(OTHER, 0, "a session of its own, its chats file deleted", minute=30),
        _entry(OTHER, 1, "still its own words", minute=30),
    ])
    found = scan(project=project)
    assert sorted(str(f.path) for f in found.files) == sorted([str(chats), str(log / OTHER)])
    assert found.skipped == {}
    assert _typed(log / OTHER) == ["a session of its own, its chats file deleted",
                                   "still its own words"]
