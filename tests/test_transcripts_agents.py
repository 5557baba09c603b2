"""Gemini CLI, Copilot CLI and OpenCode sessions: where they are, which project, read safely.

The fidelity cases (80-86) pin what each client version's typed turns are; these pin the
places around them: a project told by a Gemini folder's hash or registry, OpenCode's store read
without a write or a lock (while OpenCode writes to it), a store session re-read only when it
changed, and the bad inputs a person's history holds.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path

import apsw
import pytest
from fixtures.fidelity.agent_writers import (
    CopilotEvents,
    GeminiChat,
    OpenCodeSession,
    database_sql,
)

from learn.transcripts.blocks import ToolResultBlock
from learn.transcripts.claude.literals import (
    DENIAL_KIND_PERMISSION_RULE,
    DENIAL_KIND_USER_REJECTED,
)
from learn.transcripts.files.discover import scan
from learn.transcripts.files.sources import read_session, source_stat
from learn.transcripts.lowering import denial_content
from learn.transcripts.models import UserEvent
from learn.transcripts.opencode.lower import REJECTED, RULE_REFUSED
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    return project


def _opencode_db(home: Path, *sessions: OpenCodeSession) -> Path:
    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True, exist_ok=True)
    db = data / "opencode.db"
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA journal_mode=WAL").fetchall()
    with conn:
        for _ in conn.execute(database_sql() + "".join(s.sql() for s in sessions)):
            pass
    conn.close()
    return db


def _append(db: Path, session: OpenCodeSession) -> None:
    """What OpenCode writes as a session goes on: its new rows (the old ones are kept)."""
    conn = apsw.Connection(str(db))
    with conn:
        for _ in conn.execute(session.sql().replace("INSERT INTO", "INSERT OR IGNORE INTO")):
            pass
    conn.close()


def _session(sid: str, project: Path, *texts: str) -> OpenCodeSession:
    s = OpenCodeSession(sid, directory=str(project))
    for text in texts:
        s.user(text)
        s.reply(s.text("ok"))
    return s


def _typed(path: Path) -> list[str]:
    return [t.text for t in build_session(parse(path)).human_turns]


# ---------------------------------------------------------------- Gemini CLI: which project


def test_a_gemini_hash_folder_belongs_to_the_project_whose_path_hashes_to_it(tmp_path: Path) -> None:
    project = _project(tmp_path)
    other = _project(tmp_path / "elsewhere")
    home = Path.home()
    for root, text in ((project, "use pnpm here"), (other, "not this one")):
        folder = hashlib.sha256(str(root).encode()).hexdigest()
        chat = GeminiChat(f"{folder[:8]}-0000-4000-8000-000000000001")
        chat.user(text)
        chat.write_jsonl(home / ".gemini" / "tmp" / folder / "chats" /
                         f"session-2026-11-20T09-00-{folder[:8]}.jsonl")
    found = scan(project=project)
    assert [f.provider for f in found.files] == ["gemini"]
    assert found.files[0].project == str(project)
    # The other folder's hash names no root learn knows: it cannot be placed, so it is out.
    assert found.skipped == {"no_cwd": 1}
    assert _typed(found.files[0].path) == ["use pnpm here"]


def test_a_gemini_slug_folder_is_placed_by_the_registry_without_a_marker(tmp_path: Path) -> None:
    project = _project(tmp_path)
    base = Path.home() / ".gemini"
    base.mkdir()
    (base / "projects.json").write_text(json.dumps({"projects": {str(project): "shop-2"}}))
    chat = GeminiChat("aa11bb22-0000-4000-8000-000000000002")
    chat.user("run the migrations first")
    path = chat.write_jsonl(base / "tmp" / "shop-2" / "chats" /
                            "session-2026-11-20T09-00-aa11bb22.jsonl")
    [found] = scan(project=project).files
    assert found.path == path and found.project == str(project)
    assert build_session(parse(path)).project == str(project)


def test_a_resumed_gemini_json_session_is_read_once_from_its_jsonl_copy(tmp_path: Path) -> None:
    project = _project(tmp_path)
    chats = Path.home() / ".gemini" / "tmp" / "shop" / "chats"
    chats.mkdir(parents=True)
    (chats.parent / ".project_root").write_text(str(project))
    sid = "cc33dd44-0000-4000-8000-000000000003"
    old = GeminiChat(sid)
    old.user("first question")
    legacy = old.write_json(chats / f"session-2026-11-20T09-00-{sid[:8]}.json")
    os.utime(legacy, (1_700_000_000, 1_700_000_000))
    new = GeminiChat(sid)
    new.user("first question")
    new.user("and a follow-up")
    copy = new.write_jsonl(chats / f"session-2026-11-20T09-00-{sid[:8]}.jsonl")
    found = scan(project=project)
    assert [f.path for f in found.files] == [copy]
    assert found.skipped == {"duplicate": 1}
    # `learn show <prefix>`: the 8 characters in the name, then the whole id from the file.
    assert [f.path for f in scan(all_projects=True, id_prefix=sid[:13]).files] == [copy]


# ---------------------------------------------------------------- Copilot CLI


def test_a_copilot_session_without_context_takes_its_cwd_from_workspace_yaml(tmp_path: Path) -> None:
    project = _project(tmp_path)
    sid = "ee55ff66-0000-4000-8000-000000000004"
    events = CopilotEvents(sid, version="0.0.369", cwd=None)
    events.user("add a changelog entry for every fix")
    folder = Path.home() / ".copilot" / "session-state" / sid
    path = events.write(folder / "events.jsonl")
    (folder / "workspace.yaml").write_text(f'id: {sid}\ncwd: "{project}"\nbranch: main\n')
    [found] = scan(project=project).files
    assert (found.path, found.session_id, found.project) == (path, sid, str(project))
    assert build_session(parse(path)).project == str(project)


def test_copilot_home_is_where_copilot_keeps_it(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path)
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "copilot-home"))
    events = CopilotEvents("0a0b0c0d-0000-4000-8000-000000000005", cwd=str(project))
    events.user("hello")
    events.write(tmp_path / "copilot-home" / "session-state" / events.session / "events.jsonl")
    assert [f.provider for f in scan(project=project).files] == ["copilot"]


# ---------------------------------------------------------------- OpenCode: the store, read safely


def test_the_opencode_store_is_read_without_a_byte_written(tmp_path: Path) -> None:
    project = _project(tmp_path)
    db = _opencode_db(Path.home(), _session("ses_aaaa0001", project, "keep the api versioned"))
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in db.parent.iterdir()}
    [found] = scan(project=project).files
    assert found.path == db / "ses_aaaa0001"
    assert _typed(found.path) == ["keep the api versioned"]
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in db.parent.iterdir()}
    assert after == before  # no journal, no WAL growth, no shared-memory file created


def test_the_opencode_store_is_read_while_opencode_holds_a_write_transaction(tmp_path: Path) -> None:
    project = _project(tmp_path)
    db = _opencode_db(Path.home(), _session("ses_bbbb0001", project, "ship it behind a flag"))
    writer = apsw.Connection(str(db))
    writer.execute("BEGIN IMMEDIATE").fetchall()
    writer.execute("UPDATE session SET title = 'busy'").fetchall()
    try:
        assert _typed(db / "ses_bbbb0001") == ["ship it behind a flag"]
    finally:
        writer.execute("ROLLBACK").fetchall()
        writer.close()


def test_a_store_in_a_read_only_folder_with_no_shared_memory_file_is_still_read(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path)
    db = _opencode_db(Path.home(), _session("ses_cccc0001", project, "no more print debugging"))
    for name in ("opencode.db-wal", "opencode.db-shm"):
        (db.parent / name).unlink(missing_ok=True)
    db.parent.chmod(0o500)  # SQLite could create no -shm here: read as immutable
    try:
        assert _typed(db / "ses_cccc0001") == ["no more print debugging"]
    finally:
        db.parent.chmod(0o700)


def test_a_store_session_is_read_again_only_when_it_changed(tmp_path: Path) -> None:
    project = _project(tmp_path)
    s = _session("ses_dddd0001", project, "first")
    db = _opencode_db(Path.home(), s, _session("ses_dddd0002", project, "untouched"))
    first, untouched = source_stat(db / "ses_dddd0001"), source_stat(db / "ses_dddd0002")
    assert first == source_stat(db / "ses_dddd0001")
    s.user("second")
    _append(db, s)
    assert source_stat(db / "ses_dddd0001") != first
    assert source_stat(db / "ses_dddd0002") == untouched  # another session's write is not its
    buf, stat = read_session(db / "ses_dddd0001")
    assert stat == source_stat(db / "ses_dddd0001")
    assert buf == read_session(db / "ses_dddd0001")[0]  # the export is deterministic


def test_since_reads_a_store_sessions_last_update(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _opencode_db(Path.home(), _session("ses_eeee0001", project, "old words"))
    cutoff = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)  # the session's updates end 09:02
    found = scan(project=project, since=cutoff)
    assert found.files == [] and found.skipped == {"too_old": 1}
    assert [f.session_id for f in scan(project=project, since=datetime(2026, 11, 20, 8,
                                                                        tzinfo=UTC)).files] \
        == ["ses_eeee0001"]


def test_a_store_that_is_not_sqlite_is_skipped_with_its_reason(tmp_path: Path) -> None:
    project = _project(tmp_path)
    data = Path.home() / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    (data / "opencode.db").write_bytes(b"not a database, half-synced")
    found = scan(project=project)
    assert found.files == []
    [skip] = found.skipped_files
    assert (skip.reason, skip.provider) == ("unreadable", "opencode")


def test_bad_lines_are_counted_and_the_rest_is_read(tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    chat = GeminiChat("ab12cd34-0000-4000-8000-000000000006")
    chat.user("the good turn")
    path = chat.write_jsonl(chats / "session-2026-11-20T09-00-ab12cd34.jsonl")
    path.write_bytes(path.read_bytes() + b"{not json\n[1, 2]\n" + b'{"neither": "a message"}\n')
    transcript = parse(path)
    assert transcript.provider == "gemini"
    assert transcript.skipped == {"undecodable": 1, "not_object": 1, "invalid": 1}
    assert _typed(path) == ["the good turn"]

    events = CopilotEvents("cd34ef56-0000-4000-8000-000000000007", cwd=None)
    events.user("still read")
    cpath = events.write(tmp_path / "events.jsonl")
    cpath.write_bytes(cpath.read_bytes() + b'{"type": "user.message", "data": {}}\n\xff\xfe\n')
    transcript = parse(cpath)
    assert transcript.provider == "copilot" and sum(transcript.skipped.values()) == 2
    assert _typed(cpath) == ["still read"]


def test_an_unchanged_store_session_comes_from_the_session_index(tmp_path: Path) -> None:
    from learn.index.indexed import indexed_views
    from learn.store import open_store

    project = _project(tmp_path)
    s = _session("ses_ffff0001", project, "prefer small pull requests")
    db = _opencode_db(Path.home(), s)
    files = scan(project=project).files

    def index(found: list) -> list[bool]:  # type: ignore[type-arg]
        with open_store(local_only=True) as local:
            got = indexed_views(found, index=local.index, fingerprints_for=lambda f: (),
                                min_confidence=0.5, views=True, workers=1)
        assert [i.session.human_turns[-1].text for i in got] == [s.messages[-2][1][0]["text"]]
        return [i.from_index for i in got]

    assert index(files) == [False]
    assert index(files) == [True]  # not read out of the store again
    s.user("and squash before merging")
    s.reply(s.text("ok"))
    _append(db, s)
    assert index(scan(project=project).files) == [False]


def test_a_listing_keeps_store_sessions_in_the_index(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`learn sessions` forgets index rows of files that are gone: a store session is no
    file, and must stay (it was dropped on every run, so every warm run read the store again)."""
    from click.testing import CliRunner

    from learn.commands.sessions import command
    from learn.store import open_store

    project = _project(tmp_path)
    db = _opencode_db(Path.home(), _session("ses_abab0001", project, "document every flag"))
    monkeypatch.chdir(project)
    for _ in range(2):
        res = CliRunner().invoke(command, ["--json"])
        assert res.exit_code == 0, res.output
        assert json.loads(res.output)["sessions"][0]["human_turns"] == 1
    with open_store(local_only=True) as local:
        assert list(local.index.get_many([str(db / "ses_abab0001")], views=False))
        assert local.index.heads().get(str(db / "ses_abab0001")) is not None


def test_learn_show_takes_a_store_sessions_path_as_learn_sessions_prints_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from learn.commands.show import command

    project = _project(tmp_path)
    db = _opencode_db(Path.home(), _session("ses_cdcd0001", project, "pin the node version"))
    monkeypatch.chdir(project)
    res = CliRunner().invoke(command, [str(db / "ses_cdcd0001"), "--json"])
    assert res.exit_code == 0, res.output
    view = json.loads(res.output)
    assert (view["provider"], view["id"], view["project"]) == ("opencode", "ses_cdcd0001",
                                                               str(project))
    assert [t["text"] for t in view["human_turns_detail"]] == ["pin the node version"]


# ---------------------------------------------------------------- declined calls, every agent


def _results(path: Path) -> dict[str, ToolResultBlock]:
    return {b.tool_use_id: b for e in parse(path).events if isinstance(e, UserEvent)
            for b in e.blocks if isinstance(b, ToolResultBlock)}


def test_a_call_the_person_declined_is_a_denial_in_every_agent(tmp_path: Path) -> None:
    """Each client records a declined call its own way; each is lowered into the one denial
    shape (learn.transcripts.lowering.denial_content), told apart from a rule's refusal and
    from a call that failed."""
    project = _project(tmp_path)
    c = CopilotEvents("c0000009-0000-4000-8000-000000000009", cwd=str(project))
    c.user("clean up the build folder")
    c.reply("", calls=[("call_a", "bash", {"command": "rm -rf build"}),
                       ("call_b", "bash", {"command": "git push"}),
                       ("call_c", "bash", {"command": "make"})])
    c.decide("call_a", "denied-interactively-by-user")  # no execution line follows
    c.decide("call_b", "denied-by-rules")
    c.run("call_b", "bash", {"command": "git push"}, "Permission denied", ok=False)
    c.decide("call_c", "approved")
    c.run("call_c", "bash", {"command": "make"}, "make: *** [all] Error 2", ok=False)
    copilot = _results(c.write(tmp_path / "cp" / c.session / "events.jsonl"))
    assert copilot["call_a"].denial_kind == DENIAL_KIND_USER_REJECTED
    assert copilot["call_a"].content == denial_content(None)
    assert copilot["call_b"].denial_kind == DENIAL_KIND_PERMISSION_RULE
    assert copilot["call_c"].denial_kind is None and copilot["call_c"].is_error
    assert len(copilot) == 3  # one result a call, whichever line said it

    g = GeminiChat("9e000009-0000-4000-8000-000000000009")
    g.user("clean up the build folder")
    g.gemini("", calls=[g.call("g_a", "run_shell_command", {"command": "rm -rf build"},
                               status="cancelled"),
                        g.call("g_b", "run_shell_command", {"command": "make"}, status="error",
                               output="Error 2")])
    gemini = _results(g.write_jsonl(tmp_path / "gm" / "session-2026-11-20T09-00-9e000009.jsonl"))
    assert gemini["g_a"].denial_kind == DENIAL_KIND_USER_REJECTED
    assert gemini["g_b"].denial_kind is None and gemini["g_b"].is_error

    o = OpenCodeSession("ses_deny000009", directory=str(project))
    o.user("clean up the build folder")
    o.reply(o.tool("o_a", "bash", {"command": "rm -rf build"},
                   error=f"{REJECTED} with the following feedback: move it to /tmp instead"),
            o.tool("o_b", "bash", {"command": "git push"}, error=f"{RULE_REFUSED} tool call."),
            o.tool("o_c", "bash", {"command": "make"}, error="Error 2"))
    opencode = _results(_opencode_db(tmp_path / "home", o) / o.id)
    assert opencode["o_a"].denial_kind == DENIAL_KIND_USER_REJECTED
    assert opencode["o_a"].content == denial_content("move it to /tmp instead")
    assert opencode["o_b"].denial_kind == DENIAL_KIND_PERMISSION_RULE
    assert opencode["o_c"].denial_kind is None and opencode["o_c"].is_error


def test_a_gemini_replys_failed_call_is_a_failure_on_the_branch_the_next_message_follows(
        tmp_path: Path) -> None:
    """The next message names the reply as its parent; the reply's results entry comes
    after it. Hung from the reply, the results were a branch off the active one, and a
    failed `make` was no failure of the session (an audit: `learn show` said 0)."""
    from learn.transcripts.parser import parse
    from learn.transcripts.view.session import build_session

    g = GeminiChat("9e00000a-0000-4000-8000-00000000000a")
    g.user("build it")
    g.gemini("", calls=[g.call("g_b", "run_shell_command", {"command": "make"}, status="error",
                               output="Error 2")])
    g.user("try again with -j1")
    g.gemini("ok", calls=[g.call("g_c", "run_shell_command", {"command": "make -j1"},
                                 status="success", output="done")])
    session = build_session(parse(g.write_jsonl(
        tmp_path / "gm" / "session-2026-11-20T09-00-9e00000a.jsonl")))
    assert [f.tool_use_id for f in session.failures] == ["g_b"]
    assert [t.text for t in session.human_turns] == ["build it", "try again with -j1"]
    assert [c.name for c in session.tool_calls] == ["run_shell_command"] * 2


def test_a_cwd_with_a_nul_is_no_project_and_no_crash(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """No system names a folder with a NUL in it: a transcript whose cwd holds one (damaged
    or forged) made `realpath` raise, and `learn sessions` (and run, signals) exited with a
    traceback for every project on the machine."""
    from click.testing import CliRunner
    from fixtures.fidelity.writers import Chain

    from learn.cli import cli
    from learn.projects.flavour import is_path, path_key

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("LEARN_DATA_DIR", "LEARN_CACHE_DIR", "LEARN_CONFIG_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    bad, good = "/home/dev/np\x00x", str(tmp_path / "ok")
    for sid, cwd in (("a0000000-0000-4000-8000-00000000000a", bad),
                     ("b0000000-0000-4000-8000-00000000000b", good)):
        c = Chain(sid, cwd=cwd)
        c.user("we use bun here, never npm", parent=False)
        c.write(home / ".claude" / "projects" / ("-home-dev-np" if cwd == bad else "-ok") /
                f"{sid}.jsonl")
    assert not is_path(bad) and path_key(bad) == bad
    result = CliRunner().invoke(cli, ["sessions", "--all-projects", "--json"])
    assert result.exit_code == 0, result.output
    ids = {row["id"] for row in json.loads(result.output)["sessions"]}
    assert "b0000000-0000-4000-8000-00000000000b" in ids
