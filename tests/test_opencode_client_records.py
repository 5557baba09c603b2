"""What OpenCode 1.18.33 writes that a reader must not miscount (an audit that drove the real
client offline): a custom command's body stored as a plain text part, a fork's copies of
earlier messages, `opencode run`'s sessions and automatic rejections, and a store named by
`OPENCODE_DB`. The stores here are real SQLite files built in a temp HOME; the texts are
this project's own.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apsw
import pytest

from learn.transcripts.blocks import ToolResultBlock
from learn.transcripts.claude.literals import (
    DENIAL_KIND_PERMISSION_RULE,
    DENIAL_KIND_USER_REJECTED,
)
from learn.transcripts.files.discover import scan
from learn.transcripts.models import UserEvent
from learn.transcripts.opencode.lower import REJECTED, RUN_ENTRYPOINT
from learn.transcripts.parser import parse
from learn.transcripts.view.origin import is_headless
from learn.transcripts.view.replay_files import (
    FingerprintCache,
    config_command_templates,
    load_templates,
    template_paths,
)
from learn.transcripts.view.session import build_session

T0 = 1_796_000_000_000  # epoch ms
SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, time_created INTEGER,
                      time_updated INTEGER);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT,
                      slug TEXT, directory TEXT NOT NULL, title TEXT NOT NULL,
                      version TEXT NOT NULL, permission TEXT, agent TEXT,
                      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
                      time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
                   time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL,
                              time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
                              data TEXT NOT NULL);
"""
# The rules `opencode run` gives its sessions.
RUN_RULES = [{"permission": p, "pattern": "*", "action": "deny"}
             for p in ("question", "plan_enter", "plan_exit")]

REVIEW = """---
description: review what is staged
---
Go through the staged diff and look for correctness problems, unsafe input handling and
missing tests. Pay particular attention to: $ARGUMENTS
List each problem with its file and line, most serious first, and say which ones block a merge.
"""


def _body(template: str, args: str) -> str:
    return template.split("---\n", 2)[2].replace("$ARGUMENTS", args).strip()


class Store:
    """An OpenCode SQLite store as 1.18.33 lays it out (the columns learn reads)."""

    def __init__(self, path: Path, project: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.project = project
        self.conn = apsw.Connection(str(path))
        with self.conn:
            self.conn.execute(SCHEMA)
            self.conn.execute("INSERT INTO project VALUES ('prj_1', ?, ?, ?)", (str(project), T0, T0))
        self.n = 0

    def session(self, sid: str, at: int, *, permission: list[Any] | None = None,
                title: str = "work", parent: str | None = None) -> str:
        with self.conn:
            self.conn.execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
                "permission, time_created, time_updated) VALUES (?, 'prj_1', ?, 's', ?, ?, "
                "'1.18.33', ?, ?, ?)",
                (sid, parent, str(self.project), title,
                 json.dumps(permission) if permission is not None else None, at, at + 60_000))
        return sid

    def message(self, sid: str, at: int, info: dict[str, Any], parts: list[dict[str, Any]]) -> str:
        self.n += 1
        mid = f"msg_{self.n:04d}"
        with self.conn:
            self.conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                              (mid, sid, at, at, json.dumps({**info, "time": {"created": at}})))
            for i, part in enumerate(parts):
                self.conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                                  (f"prt_{self.n:04d}{i:02d}", mid, sid, at, at, json.dumps(part)))
        return mid

    def user(self, sid: str, at: int, text: str) -> str:
        return self.message(sid, at, {"role": "user", "agent": "build"},
                            [{"type": "text", "text": text}])

    def reply(self, sid: str, at: int, *parts: dict[str, Any]) -> str:
        cwd = str(self.project)
        return self.message(sid, at, {"role": "assistant", "modelID": "m", "mode": "build",
                                      "path": {"cwd": cwd, "root": cwd}},
                            [{"type": "step-start"}, *parts])

    @staticmethod
    def rejected(call_id: str, error: str) -> dict[str, Any]:
        return {"type": "tool", "tool": "write", "callID": call_id,
                "state": {"status": "error", "input": {"filePath": "/etc/hosts"}, "error": error,
                          "time": {"start": T0, "end": T0}}}

    def close(self) -> Path:
        self.conn.close()
        return self.path


def _data() -> Path:
    return Path.home() / ".local" / "share" / "opencode"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "work" / "ledger"
    project.mkdir(parents=True)
    return project


def _view(path: Path, project: Path | None = None) -> Any:
    prints = FingerprintCache().for_project(str(project) if project else None)
    return build_session(parse(path), fingerprints=prints)


def _typed(path: Path, project: Path | None = None) -> list[str]:
    return [t.text for t in _view(path, project).human_turns]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture(autouse=True)
def _no_opencode_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENCODE_CONFIG_DIR", "OPENCODE_CONFIG", "OPENCODE_DB"):
        monkeypatch.delenv(var, raising=False)


# ---------------------------------------------------------------- O1: command templates


def _command_session(project: Path, text: str) -> Path:
    store = Store(_data() / "opencode.db", project)
    store.session("ses_cmd1", T0)
    store.user("ses_cmd1", T0 + 1_000, text)
    store.reply("ses_cmd1", T0 + 2_000, {"type": "text", "text": "Two problems found."})
    return store.close() / "ses_cmd1"


@pytest.mark.parametrize("where", [
    "xdg/opencode/command/review.md",
    "xdg/opencode/commands/team/review.md",
    "config_dir/command/review.md",
    "home/.opencode/commands/review.md",
    "project/.opencode/command/review.md",
    "ancestor/.opencode/commands/review.md",
])
def test_an_opencode_command_body_is_not_typed_only_its_arguments(
        where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenCode stores a command's expanded body as a plain text part of the person's
    message, nothing naming the command: its template on disk is what tells it."""
    project = _project(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("OPENCODE_CONFIG_DIR", str(tmp_path / "config_dir"))
    roots = {"xdg": tmp_path / "xdg", "config_dir": tmp_path / "config_dir",
             "home": Path.home(), "project": project, "ancestor": project.parent}
    head, rest = where.split("/", 1)
    template = _write(roots[head] / rest, REVIEW)
    assert template in template_paths(project)
    path = _command_session(project, _body(REVIEW, "the currency rounding"))
    assert _typed(path, project) == ["the currency rounding"]


def test_without_its_template_an_opencode_command_body_reads_as_typed(tmp_path: Path) -> None:
    """The same session with no template on disk: the whole body is the person's (the test
    above fails without the folders being read)."""
    project = _project(tmp_path)
    path = _command_session(project, _body(REVIEW, "the currency rounding"))
    assert _typed(path, project) == [_body(REVIEW, "the currency rounding")]


def test_an_opencode_command_defined_in_its_jsonc_config_is_not_typed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`command.<name>.template` in opencode.json / opencode.jsonc (global or the
    project's), JSONC's comments and trailing commas allowed."""
    project = _project(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    body = _body(REVIEW, "$ARGUMENTS")
    _write(project / "opencode.jsonc", "// project config\n" + json.dumps(
        {"command": {"review": {"template": body, "description": "review"}}},
        indent=2).replace('"review"\n', '"review", /* trailing */\n') + "\n")
    assert body in load_templates(project)
    path = _command_session(project, _body(REVIEW, "the ledger export"))
    assert _typed(path, project) == ["the ledger export"]

    _write(tmp_path / "xdg" / "opencode" / "opencode.json",
           json.dumps({"command": {"r": {"template": "Summarise the open pull requests: $1"}}}))
    assert "Summarise the open pull requests: $1" in load_templates(None)


def test_an_opencode_config_that_does_not_parse_gives_no_template_and_no_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    _write(tmp_path / "xdg" / "opencode" / "opencode.jsonc", '{"command": {"x": {"template": ')
    _write(project / ".opencode" / "command" / "fix.md", "Fix the failing build step.")
    assert load_templates(project) == ["Fix the failing build step."]
    assert config_command_templates('{"command": []}') == []
    assert config_command_templates('// only\n{"command": {"a": {"template": "x // y",},},}') == [
        "x // y"]


# ---------------------------------------------------------------- O2: forks


def test_an_opencode_fork_does_not_count_the_turns_it_copied(tmp_path: Path) -> None:
    """A fork is a new session (no parent) opening with copies of the earlier messages:
    new ids, the original times, before the fork was created. Those turns were typed in
    the first session; the fork's own later turns are its own."""
    project = _project(tmp_path)
    store = Store(_data() / "opencode.db", project)
    store.session("ses_first", T0)
    store.user("ses_first", T0 + 1_000, "never commit generated files")
    store.reply("ses_first", T0 + 2_000, {"type": "text", "text": "Understood."},
                Store.rejected("call_1", f"{REJECTED} with the following feedback: "
                                         "write it under build/ instead"))
    forked = T0 + 600_000
    store.session("ses_fork", forked, title="work (fork #1)")
    store.user("ses_fork", T0 + 1_000, "never commit generated files")
    store.reply("ses_fork", T0 + 2_000, {"type": "text", "text": "Understood."},
                Store.rejected("call_1", f"{REJECTED} with the following feedback: "
                                         "write it under build/ instead"))
    store.user("ses_fork", forked + 5_000, "now try the other approach")
    db = store.close()

    first = _view(db / "ses_first")
    assert [(t.text, t.origin) for t in first.human_turns] == [
        ("never commit generated files", "typed"), ("write it under build/ instead", "denial")]
    fork = _view(db / "ses_fork")
    assert [(t.text, t.origin) for t in fork.human_turns] == [
        ("now try the other approach", "typed")]
    # It starts at its own first message, after the session it was copied from.
    assert fork.started_at == datetime.fromtimestamp((forked + 5_000) / 1000, UTC)


# ---------------------------------------------------------------- O3: `opencode run`


def _results(path: Path) -> dict[str, ToolResultBlock]:
    return {b.tool_use_id: b for e in parse(path).events if isinstance(e, UserEvent)
            for b in e.blocks if isinstance(b, ToolResultBlock)}


def test_an_opencode_run_session_is_headless_and_its_rejections_are_the_clients(
        tmp_path: Path) -> None:
    """`opencode run` sets its own deny rules on the session and rejects every ask itself,
    writing the words a person's rejection has: a refusal, no person's denial."""
    project = _project(tmp_path)
    store = Store(_data() / "opencode.db", project)
    for sid, rules in (("ses_run", RUN_RULES), ("ses_tui", None)):
        store.session(sid, T0, permission=rules)
        store.user(sid, T0 + 1_000, "tidy the hosts file")
        store.reply(sid, T0 + 2_000, Store.rejected("call_a", f"{REJECTED}."))
    db = store.close()

    run = _view(db / "ses_run")
    assert run.entrypoint == RUN_ENTRYPOINT and is_headless(run.entrypoint)
    assert _results(db / "ses_run")["call_a"].denial_kind == DENIAL_KIND_PERMISSION_RULE
    tui = _view(db / "ses_tui")
    assert tui.entrypoint is None
    assert _results(db / "ses_tui")["call_a"].denial_kind == DENIAL_KIND_USER_REJECTED


# ---------------------------------------------------------------- O4: OPENCODE_DB


def _one_session_store(path: Path, project: Path, sid: str, text: str) -> Path:
    store = Store(path, project)
    store.session(sid, T0)
    store.user(sid, T0 + 1_000, text)
    return store.close()


def test_a_store_named_by_opencode_db_is_found_and_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path)
    _data().mkdir(parents=True)
    elsewhere = _one_session_store(tmp_path / "stores" / "work.sqlite", project, "ses_abs",
                                   "typed into a store of its own")
    monkeypatch.setenv("OPENCODE_DB", str(elsewhere))
    [found] = scan(all_projects=True).files
    assert (found.session_id, found.path) == ("ses_abs", elsewhere / "ses_abs")
    assert _typed(found.path) == ["typed into a store of its own"]

    # Relative: to the data folder.
    _one_session_store(_data() / "mine.db", project, "ses_rel", "typed into mine")
    monkeypatch.setenv("OPENCODE_DB", "mine.db")
    assert [f.session_id for f in scan(all_projects=True).files] == ["ses_rel"]
    # In memory: nothing kept, nothing looked for, nothing breaks.
    monkeypatch.setenv("OPENCODE_DB", ":memory:")
    assert [f.session_id for f in scan(all_projects=True).files] == ["ses_rel"]


def test_a_store_once_named_in_the_data_folder_is_read_when_no_longer_set(
        tmp_path: Path) -> None:
    """`mine.db` holds OpenCode's tables: read with OPENCODE_DB unset; another SQLite file
    there is no store."""
    project = _project(tmp_path)
    _one_session_store(_data() / "mine.db", project, "ses_rel", "typed into mine")
    other = apsw.Connection(str(_data() / "cache.db"))
    other.execute("CREATE TABLE kv (k TEXT, v TEXT)")
    other.close()
    [found] = scan(all_projects=True).files
    assert found.path == _data() / "mine.db" / "ses_rel"
    assert _typed(found.path) == ["typed into mine"]


def test_a_store_named_by_opencode_db_is_found_with_no_data_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenCode writes the store OPENCODE_DB names and nothing in its data folder: the
    folder's absence said "no OpenCode here" and the store was never looked at."""
    project = _project(tmp_path)
    elsewhere = _one_session_store(tmp_path / "stores" / "work.db", project, "ses_abs",
                                   "typed with no data folder")
    assert not _data().exists()
    monkeypatch.setenv("OPENCODE_DB", str(elsewhere))
    [found] = scan(all_projects=True).files
    assert found.path == elsewhere / "ses_abs"
    assert _typed(found.path) == ["typed with no data folder"]
