"""Discovery: where transcripts live, which belong to the project, and the caps."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fixtures.view.corpus import CODEX_ID, MAIN_ID, OTHER_ID, SUBDIR_ID, encode, install

from learn.projects import Known, project_of
from learn.transcripts.files.discover import (
    discover,
    parse_since,
    scan,
)
from learn.transcripts.files.heads import (
    last_activity,
    read_head,
)
from learn.transcripts.files.listing import (
    aside_paths_for,
)


@pytest.fixture
def home(tmp_path: Path):  # type: ignore[no-untyped-def]
    h = Path.home()
    return install(h / ".claude", h / ".codex", tmp_path / "work" / "shop")


def ids(files: list) -> list[str]:  # type: ignore[type-arg]
    return [f.session_id for f in files]


def test_default_scope_is_cwd_project_newest_first(home, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(home.project)
    files = discover()
    # main (newest), codex, then the session run in a subdirectory; never the
    # look-alike "shop-old" project, and never a subagent file on its own.
    assert ids(files) == [MAIN_ID, CODEX_ID, SUBDIR_ID]
    assert [f.provider for f in files] == ["claude", "codex", "claude"]
    assert files[0].mtime > files[1].mtime > files[2].mtime
    assert files[0].project == str(home.project)
    assert files[2].project == str(home.project / "api")
    assert files[0].size == home.files["main"].stat().st_size


def test_subagents_attach_to_parent_in_both_layouts(home) -> None:  # type: ignore[no-untyped-def]
    [main] = [f for f in discover(project=home.project) if f.session_id == MAIN_ID]
    assert set(main.subagent_paths) == {home.files["subagent_new"], home.files["subagent_old"]}
    # The macOS resource fork beside the new-layout file is not a subagent.
    assert all(not p.name.startswith("._") for p in main.subagent_paths)
    everything = discover(all_projects=True)
    assert not any(f.path.name.startswith("agent-") for f in everything)


def test_side_question_files_are_asides_not_subagents(home) -> None:  # type: ignore[no-untyped-def]
    # `/btw` writes agent-aside_question-<hex>.jsonl beside real subagents: its
    # question is the person's, so it is listed apart (issue 10, item 6).
    subagents = home.files["subagent_new"].parent
    aside = subagents / "agent-aside_question-0123456789abcdef.jsonl"
    aside.write_text(home.files["subagent_new"].read_text())
    [main] = [f for f in discover(project=home.project) if f.session_id == MAIN_ID]
    assert main.aside_paths == (aside,)
    assert aside not in main.subagent_paths
    assert home.files["subagent_new"] in main.subagent_paths
    assert aside_paths_for(home.files["main"]) == (aside,)


def test_all_projects(home) -> None:  # type: ignore[no-untyped-def]
    files = discover(all_projects=True, project=Path("/elsewhere"))
    assert ids(files) == [MAIN_ID, CODEX_ID, SUBDIR_ID, OTHER_ID]


def test_project_is_compared_by_realpath_through_symlinks(home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    link = tmp_path / "link-to-shop"
    link.symlink_to(home.project)
    # Asking through the symlink finds the sessions recorded under the real path...
    assert ids(discover(project=link)) == [MAIN_ID, CODEX_ID, SUBDIR_ID]
    # ...and a session recorded under the symlinked path belongs to the real project.
    path = home.files["main"]
    text = path.read_text().replace(str(home.project), str(link))
    linked = home.claude / "projects" / encode(link) / "4c0ffee0-0000-4000-8000-000000000004.jsonl"
    linked.parent.mkdir(parents=True)
    linked.write_text(text.replace(MAIN_ID, "4c0ffee0-0000-4000-8000-000000000004"))
    assert "4c0ffee0-0000-4000-8000-000000000004" in ids(discover(project=home.project))
    known = Known()
    known.add_root(str(home.project))
    assert project_of(str(link / "api"), known) == project_of(str(home.project))
    assert project_of(str(home.project) + "-old", known) != project_of(str(home.project))
    assert project_of(None) is None


def test_since_and_limit(home) -> None:  # type: ignore[no-untyped-def]
    # Last activity: main ends at 09:47, the others at or before 09:02 (mtimes,
    # all in 2027, say nothing about it).
    since = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
    assert ids(discover(all_projects=True, since=since)) == [MAIN_ID]
    assert ids(discover(all_projects=True, limit=2)) == [MAIN_ID, CODEX_ID]
    assert ids(discover(project=home.project, limit=1)) == [MAIN_ID]
    result = scan(all_projects=True, since=datetime(2026, 11, 20, 9, 1, tzinfo=UTC), limit=1)
    assert ids(result.files) == [MAIN_ID]
    assert result.skipped == {"over_limit": 2, "too_old": 1}
    assert [(f.session_id, f.reason) for f in result.skipped_files] == [
        (CODEX_ID, "too_old"), (SUBDIR_ID, "over_limit"), (OTHER_ID, "over_limit")]


def test_scan_counts_other_projects(home) -> None:  # type: ignore[no-untyped-def]
    result = scan(project=home.project)
    assert result.skipped.get("other_project") == 1


def test_config_dir_env_vars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg, cx = tmp_path / "cfg", tmp_path / "cx"
    home = install(cfg, cx, tmp_path / "p")
    # Nothing in ~/.claude or ~/.codex, so the default locations find nothing.
    assert discover(all_projects=True) == []
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(cfg))
    monkeypatch.setenv("CODEX_HOME", str(cx))
    assert ids(discover(project=home.project)) == [MAIN_ID, CODEX_ID, SUBDIR_ID]
    # Explicit dirs win over the environment.
    assert discover(all_projects=True, claude_dir=tmp_path / "none", codex_dir=tmp_path / "none") == []


def test_unreadable_entries_are_skipped_and_counted(home) -> None:  # type: ignore[no-untyped-def]
    pdir = home.files["main"].parent
    (pdir / "dangling.jsonl").symlink_to(pdir / "gone.jsonl")
    (pdir / "not-a-file.jsonl").mkdir()
    result = scan(project=home.project)
    assert ids(result.files) == [MAIN_ID, CODEX_ID, SUBDIR_ID]
    assert result.skipped.get("unreadable") == 1


def test_discovery_never_writes(home) -> None:  # type: ignore[no-untyped-def]
    def snapshot() -> dict[str, tuple[float, int]]:
        out = {}
        for root in (home.claude, home.codex):
            for dirpath, _, names in os.walk(root):
                for name in names:
                    st = (Path(dirpath) / name).stat()
                    out[os.path.join(dirpath, name)] = (st.st_mtime, st.st_size)
        return out

    before = snapshot()
    discover(all_projects=True)
    discover(project=home.project, limit=1)
    assert snapshot() == before


def test_head_reads_cwd_past_a_huge_first_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    big = '{"type":"summary","summary":"' + "x" * 200_000 + '"}\n'
    path.write_text(big + '{"type":"user","cwd":"/a/b","sessionId":"s1"}\n')
    head = read_head(path, "claude")
    assert head.cwd == "/a/b" and head.session_id == "s1"


def test_head_without_cwd(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"summary","summary":"x"}\nnot json\n')
    assert read_head(path, "claude").cwd is None


def test_session_without_cwd_is_only_listed_for_all_projects(home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdir = home.files["main"].parent
    (pdir / "5c0ffee0-0000-4000-8000-000000000005.jsonl").write_text('{"type":"summary","summary":"x"}\n')
    assert "5c0ffee0-0000-4000-8000-000000000005" not in ids(discover(project=home.project))
    assert "5c0ffee0-0000-4000-8000-000000000005" in ids(discover(all_projects=True))
    assert scan(project=home.project).skipped.get("no_cwd") == 1


NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "delta"),
    [("30d", timedelta(days=30)), ("12h", timedelta(hours=12)), ("2w", timedelta(weeks=2)),
     (" 7D ", timedelta(days=7))],
)
def test_parse_since_relative(text: str, delta: timedelta) -> None:
    assert parse_since(text, now=NOW) == NOW - delta


def test_parse_since_dates() -> None:
    day = parse_since("2026-11-01")
    assert day.tzinfo is not None
    assert (day.year, day.month, day.day, day.hour) == (2026, 11, 1, 0)
    assert parse_since("2026-11-01T10:00:00+00:00") == datetime(2026, 11, 1, 10, tzinfo=UTC)


@pytest.mark.parametrize("bad", ["", "30", "thirty days", "3y", "2026-13-01", "-5d"])
def test_parse_since_rejects_with_a_clear_message(bad: str) -> None:
    with pytest.raises(ValueError, match=r"--since .*30d, 12h or 2w.*2026-11-01"):
        parse_since(bad)


# ---------------------------------------------------------------- identity and skips

RESUMED_ID = "6c0ffee0-0000-4000-8000-000000000006"


def _resume(home) -> Path:  # type: ignore[no-untyped-def]
    """A resumed session: the old conversation copied first (old sessionId), then new lines."""
    main = home.files["main"]
    copied = main.read_text()
    new_line = json.dumps({
        "parentUuid": None, "isSidechain": False, "userType": "external",
        "cwd": str(home.project), "sessionId": RESUMED_ID, "version": "2.1.30",
        "type": "user", "uuid": "r001-0000-4000-8000-000000000001",
        "timestamp": "2026-11-21T10:00:00Z",
        "message": {"role": "user", "content": "carry on with the deploy script"}})
    path = main.with_name(f"{RESUMED_ID}.jsonl")
    path.write_text(copied + new_line + "\n")
    os.utime(path, (main.stat().st_mtime + 60, main.stat().st_mtime + 60))
    return path


def test_a_resumed_claude_session_is_listed_under_its_file_name(home) -> None:  # type: ignore[no-untyped-def]
    path = _resume(home)
    # Its first lines name MAIN_ID; the file name is its id, and it is no duplicate.
    assert read_head(path, "claude").session_id == MAIN_ID
    result = scan(all_projects=True)
    assert ids(result.files) == [RESUMED_ID, MAIN_ID, CODEX_ID, SUBDIR_ID, OTHER_ID]
    assert result.files[0].path == path
    assert "duplicate" not in result.skipped
    assert result.skipped_files == ()


def test_the_same_file_name_in_two_project_dirs_is_a_listed_duplicate(home, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    moved = home.claude / "projects" / encode(tmp_path / "moved") / f"{MAIN_ID}.jsonl"
    moved.parent.mkdir(parents=True)
    moved.write_text(home.files["main"].read_text())
    os.utime(moved, (1_700_000_000, 1_700_000_000))  # older than the original
    result = scan(all_projects=True)
    assert ids(result.files).count(MAIN_ID) == 1
    [dup] = result.skipped_files
    assert (dup.path, dup.reason, dup.session_id) == (moved, "duplicate", MAIN_ID)
    assert dup.detail == str(home.files["main"])


def test_every_skipped_file_is_listed_with_its_reason(home) -> None:  # type: ignore[no-untyped-def]
    pdir = home.files["main"].parent
    (pdir / "dangling.jsonl").symlink_to(pdir / "gone.jsonl")
    result = scan(project=home.project)
    listed = {(f.path, f.reason) for f in result.skipped_files}
    assert listed == {(pdir / "dangling.jsonl", "unreadable"), (home.files["other"], "other_project")}
    assert sum(result.skipped.values()) == len(result.skipped_files)
    other = next(f for f in result.skipped_files if f.reason == "other_project")
    assert other.detail == str(home.project) + "-old" and other.session_id == OTHER_ID


def _rollout(home, name: str, lines: list[dict], mtime: float | None = None) -> Path:  # type: ignore[no-untyped-def, type-arg]
    path = home.codex / "sessions" / "2026" / "11" / "21" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


CHILD_ID = "0199c0c0-0000-7000-8000-00000000c0de"
REVIEW_ID = "0199c0c0-0000-7000-8000-0000000be1e1"


@pytest.mark.parametrize(
    ("source", "extra", "kind"),
    [({"subagent": {"thread_spawn": {"parent_thread_id": CODEX_ID, "depth": 1}}}, {}, "thread_spawn"),
     ({"subagent": "review"}, {"parent_thread_id": CODEX_ID}, "review"),
     ("vscode", {"thread_source": "subagent", "parent_thread_id": CODEX_ID}, "subagent")],
)
def test_codex_subagent_rollouts_attach_to_their_parent(home, source, extra, kind) -> None:  # type: ignore[no-untyped-def]
    child = _rollout(home, f"rollout-2026-11-21T10-00-00-{CHILD_ID}.jsonl", [
        {"timestamp": "2026-11-21T10:00:00Z", "type": "session_meta",
         "payload": {"id": CHILD_ID, "cwd": str(home.project), "source": source, **extra}},
        {"timestamp": "2026-11-21T10:00:01Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "review the diff for bugs"}},
    ])
    result = scan(project=home.project)
    assert CHILD_ID not in ids(result.files)
    [codex] = [f for f in result.files if f.session_id == CODEX_ID]
    assert codex.subagent_paths == (child,)
    [skip] = [f for f in result.skipped_files if f.reason == "subagent"]
    assert (skip.path, skip.session_id) == (child, CHILD_ID)
    assert skip.detail == f"{kind} of {CODEX_ID}"


def test_a_codex_review_without_a_parent_is_still_no_session(home) -> None:  # type: ignore[no-untyped-def]
    _rollout(home, f"rollout-2026-11-21T10-00-00-{REVIEW_ID}.jsonl", [
        {"timestamp": "2026-11-21T10:00:00Z", "type": "session_meta",
         "payload": {"id": REVIEW_ID, "cwd": str(home.project), "source": {"subagent": "review"}}},
    ])
    result = scan(all_projects=True)
    assert REVIEW_ID not in ids(result.files)
    assert result.skipped == {"subagent": 1}
    assert result.skipped_files[0].detail == "review of an unknown session"


LEGACY_ID = "0198bbbb-0000-7000-8000-00000000aaaa"
ZST_ID = "0199dddd-0000-7000-8000-00000000dddd"
QUIET_ID = "0199eeee-0000-7000-8000-00000000eeee"


def test_codex_identity_from_every_era(home) -> None:  # type: ignore[no-untyped-def]
    import zstandard

    # Bare era: a header with no type, the cwd only in <environment_context>.
    _rollout(home, f"rollout-2025-08-20T10-00-00-{LEGACY_ID}.jsonl", [
        {"id": LEGACY_ID, "timestamp": "2025-08-20T10:00:00Z", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text",
         "text": f"<environment_context>\n  <cwd>{home.project}</cwd>\n</environment_context>"}]},
    ])
    # session_meta and nothing said: still an id and a cwd.
    _rollout(home, "rollout-2026-11-21T10-00-00-not-a-uuid.jsonl", [
        {"timestamp": "2026-11-21T10:00:00Z", "type": "session_meta",
         "payload": {"id": QUIET_ID, "cwd": str(home.project), "source": "cli"}},
    ])
    # Compressed: read in memory, never rewritten.
    raw = (json.dumps({"timestamp": "2026-11-21T10:00:00Z", "type": "session_meta",
                       "payload": {"id": ZST_ID, "cwd": str(home.project)}}) + "\n").encode()
    zst = home.codex / "sessions" / "2026" / "11" / "21" / f"rollout-2026-11-21T11-00-00-{ZST_ID}.jsonl.zst"
    zst.write_bytes(zstandard.ZstdCompressor().compress(raw))
    before = zst.read_bytes()
    files = {f.session_id: f for f in discover(project=home.project)}
    assert {LEGACY_ID, QUIET_ID, ZST_ID} <= set(files)
    assert files[LEGACY_ID].project == str(home.project)
    assert files[QUIET_ID].project == str(home.project)
    assert files[ZST_ID].path == zst and zst.read_bytes() == before


def test_since_uses_the_last_timestamp_not_the_mtime(home) -> None:  # type: ignore[no-untyped-def]
    now = datetime.now(UTC).timestamp()
    # Copied today (mtime now), last active long ago: too old.
    old = _rollout(home, f"rollout-2025-01-01T10-00-00-{CHILD_ID}.jsonl", [
        {"timestamp": "2025-01-01T10:00:00Z", "type": "session_meta",
         "payload": {"id": CHILD_ID, "cwd": str(home.project)}},
        {"timestamp": "2025-01-01T10:05:00Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "hello"}},
    ], mtime=now)
    result = scan(all_projects=True, since=datetime(2026, 11, 20, 9, 30, tzinfo=UTC))
    assert CHILD_ID not in ids(result.files)
    assert (old, "too_old") in {(f.path, f.reason) for f in result.skipped_files}
    [main] = result.files
    assert main.last_activity == datetime(2026, 11, 20, 9, 47, tzinfo=UTC).timestamp()


def test_last_activity_reads_past_a_huge_last_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "x"}) + "\n"
        + json.dumps({"timestamp": "2026-03-04T05:06:07.890Z", "type": "event_msg",
                      "payload": {"output": "y" * 300_000}}) + "\n"
        + json.dumps({"type": "summary", "summary": 'a "timestamp": "2030-01-01T00:00:00Z" quote'})
        + "\n")
    # The escaped quote inside a string is not a key; the envelope 300 KB back is.
    assert last_activity(path) == datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC).timestamp()
    (tmp_path / "none.jsonl").write_text('{"record_type":"state"}\n')
    assert last_activity(tmp_path / "none.jsonl") is None
    assert last_activity(tmp_path / "missing.jsonl") is None


def test_archived_codex_sessions_are_listed(home) -> None:  # type: ignore[no-untyped-def]
    archived_id = "0199abab-0000-7000-8000-00000000abab"
    path = home.codex / "archived_sessions" / f"rollout-2026-11-19T10-00-00-{archived_id}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"timestamp": "2026-11-19T10:00:00Z", "type": "session_meta",
                                "payload": {"id": archived_id, "cwd": str(home.project)}}) + "\n")
    assert archived_id in ids(discover(project=home.project))


def test_since_trusts_an_mtime_a_day_older_than_the_cutoff(home) -> None:  # type: ignore[no-untyped-def]
    # The last write is never before the last timestamp written (one clock), so
    # a file last written more than a day (zip archives keep local times) before
    # the cutoff is too old without reading it.
    cutoff = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
    main = home.files["main"]
    stale = cutoff.timestamp() - 2 * 86_400
    os.utime(main, (stale, stale))
    result = scan(all_projects=True, since=cutoff)
    assert MAIN_ID not in ids(result.files)
    # Within the day of slack, the tail decides (main's last line is 09:47).
    near = cutoff.timestamp() - 3600
    os.utime(main, (near, near))
    assert ids(scan(all_projects=True, since=cutoff).files) == [MAIN_ID]


def test_head_reads_the_whole_window_when_the_first_read_ends_on_a_line_without_cwd(
        tmp_path: Path) -> None:
    # The first read (8 kB) ends exactly at a line's end, none of its lines holding a cwd:
    # the lines after it, within the 64 kB window, are still read.
    path = tmp_path / "s.jsonl"
    filler = '{"type":"summary","summary":"' + "x" * 100 + '"}\n'
    lines = filler * ((8192 - 200) // len(filler))
    pad = 8192 - len(lines.encode()) - len('{"type":"summary","summary":""}\n')
    lines += '{"type":"summary","summary":"' + "y" * pad + '"}\n'
    assert len(lines.encode()) == 8192
    path.write_text(lines + '{"type":"user","cwd":"/a/c","sessionId":"s2"}\n')
    head = read_head(path, "claude")
    assert head.cwd == "/a/c" and head.session_id == "s2"


def test_head_reads_a_cwd_line_that_crosses_the_first_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"user","sessionId":"s3","message":"' + "z" * 8000
                    + '","cwd":"/a/d"}\n')
    assert read_head(path, "claude").cwd == "/a/d"


def test_a_codex_head_past_the_first_read_is_found(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2026-01-01T00-00-00-c.jsonl"
    meta = {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
            "payload": {"id": "c1", "cwd": "/w/x", "instructions": "i" * 20_000}}
    path.write_text(json.dumps(meta) + "\n")
    head = read_head(path, "codex")
    assert head.cwd == "/w/x" and head.session_id == "c1"
