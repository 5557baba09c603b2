"""`learn sessions` and `learn show` through click, against a fixture HOME."""

from __future__ import annotations

import json
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from fixtures.fidelity import corpus as fidelity
from fixtures.view.corpus import CODEX_ID, HERE, MAIN_ID, OTHER_ID, SUBDIR_ID, Home, install

from learn.cli import cli


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    h = Path.home()  # conftest points HOME at a temp dir
    installed = install(h / ".claude", h / ".codex", tmp_path / "work" / "shop")
    # The user's /review command, so its replayed body is recognised.
    (h / ".claude" / "commands").mkdir(parents=True)
    shutil.copy(HERE / "review.md", h / ".claude" / "commands" / "review.md")
    monkeypatch.chdir(installed.project)
    return installed


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def sessions_output(*args: str) -> dict:  # type: ignore[type-arg]
    code, out = run("sessions", "--json", *args)
    assert code == 0, out
    data = json.loads(out)
    assert isinstance(data, dict) and set(data) == {"sessions", "skipped"}
    return data


def sessions_json(*args: str) -> list[dict]:  # type: ignore[type-arg]
    rows = sessions_output(*args)["sessions"]
    assert isinstance(rows, list)
    return rows


def test_sessions_json_default_scope_is_the_current_project(home: Home) -> None:
    rows = sessions_json()
    # Newest last activity first, the date the table shows (the Codex file is the
    # second newest by mtime, but its session ended first).
    assert [r["id"] for r in rows] == [MAIN_ID, SUBDIR_ID, CODEX_ID]
    assert [r["last_activity"] for r in rows] == sorted((r["last_activity"] for r in rows),
                                                       reverse=True)
    main = rows[0]
    assert main["provider"] == "claude"
    assert main["project"] == str(home.project)
    assert main["path"] == str(home.files["main"])
    # Exact counts: the replayed /review body is not a human turn.
    assert main["human_turns"] == 13  # 12 on the active branch + the rewound prompt (evidence)
    assert main["human_turns_by_origin"] == {"typed": 7, "denial": 1, "answer": 4, "queued": 1,
                                             "aside": 0}
    assert main["turns"] == 39
    assert (main["tool_calls"], main["failures"], main["denials"], main["interrupts"]) == (7, 1, 2, 1)
    assert main["subagents"] == 2
    assert main["size_bytes"] == home.files["main"].stat().st_size
    assert main["started_at"] == "2026-11-20T09:01:00+00:00"
    codex = rows[2]
    assert (codex["provider"], codex["human_turns"]) == ("codex", 2)
    # The project is the one the session belongs to, the folder it ran in its cwd.
    assert (rows[1]["project"], rows[1]["cwd"]) == (str(home.project), str(home.project / "api"))


def test_sessions_json_scopes(home: Home, tmp_path: Path) -> None:
    assert [r["id"] for r in sessions_json("--all-projects")] == [MAIN_ID, SUBDIR_ID, OTHER_ID, CODEX_ID]
    assert [r["id"] for r in sessions_json("--all-projects", "--limit", "1")] == [MAIN_ID]
    # A sub-folder of a project names the project (learn.projects): every session of it.
    assert [r["id"] for r in sessions_json("--project", str(home.project / "api"))] == \
        [r["id"] for r in sessions_json("--project", str(home.project))]
    assert sessions_json("--project", str(tmp_path)) != []  # a parent directory holds them all
    (tmp_path / "work" / "nothing-here").mkdir(parents=True)
    assert sessions_json("--project", str(tmp_path / "work" / "nothing-here")) == []
    # --since reads last activity (2026-11-20 in the files), not the mtimes
    # (2027): a date before it keeps them, a date after it keeps none.
    assert len(sessions_json("--since", "2026-11-01")) == 3
    assert sessions_json("--since", "2026-12-01") == []


def test_sessions_rejects_bad_options(home: Home) -> None:
    code, out = run("sessions", "--since", "a fortnight")
    assert code == 2 and "30d, 12h or 2w" in out
    code, out = run("sessions", "--all-projects", "--project", str(home.project))
    assert code == 2 and "cannot be combined" in out
    code, out = run("sessions", "--limit", "0")
    assert code == 2


def test_sessions_table(home: Home) -> None:
    code, out = run("sessions")
    assert code == 0
    assert "1c0ffee0" in out and "0199a0b1" in out and "3c0ffee0" not in out
    assert "Skipped: 1 in other projects" in out


def test_sessions_table_when_nothing_is_found(home: Home, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, out = run("sessions", "--project", str(tmp_path / "empty"))
    assert code == 0
    assert "No sessions in scope" in out and "--all-projects" in out


def test_show_by_prefix_and_json(home: Home) -> None:
    code, out = run("show", "1c0f", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["id"] == MAIN_ID and data["human_turns"] == 13
    humans = [i["text"] for i in data["timeline"] if i["type"] == "human"]
    assert humans[0] == "Please add a --dry-run flag to the deploy script."
    assert not any("review the staged changes" in h.casefold() for h in humans)
    assert [d["kind"] for d in data["denial_details"]] == ["user-rejected", "permission-rule"]
    assert data["subagent_paths"] == sorted(
        [str(home.files["subagent_old"]), str(home.files["subagent_new"])]
    )


def test_show_by_path_and_rich_output(home: Home) -> None:
    code, out = run("show", str(home.files["codex"]))
    assert code == 0, out
    assert "codex session " + CODEX_ID in out
    assert "YOU: run the tests with -x please" in out
    assert "shell: pytest -x" in out
    assert "✗ shell: E   AssertionError" in out
    # A Codex id prefix resolves from the rollout file name.
    code, out = run("show", CODEX_ID[:8], "--json")
    assert code == 0 and json.loads(out)["provider"] == "codex"


def test_show_errors(home: Home) -> None:
    # An id that names no session is a usage error (exit 2), as a missing --project is.
    code, out = run("show", "ffff")
    assert code == 2 and "no session matches 'ffff'" in out
    code, out = run("show", "  ")
    assert code == 2 and "session id" in out


def test_show_ambiguous_prefix_and_exact_id(home: Home) -> None:
    twin_id = MAIN_ID[:-1] + "9"
    twin = home.files["main"].with_name(f"{twin_id}.jsonl")
    twin.write_text(home.files["main"].read_text().replace(MAIN_ID, twin_id))
    code, out = run("show", "1c0ffee0")
    assert code == 2 and "matches 2 sessions" in out and twin_id in out
    code, out = run("show", MAIN_ID, "--json")
    assert code == 0 and json.loads(out)["id"] == MAIN_ID


def test_show_marks_turns_typed_off_the_active_branch(home: Home) -> None:
    # The fixture session has a rewound-away prompt: shown where it was typed, marked.
    code, out = run("show", "1c0f")
    assert code == 0, out
    assert "YOU: make the button blue (off the active branch)" in out
    assert "YOU: make the button red\n" in out
    code, out = run("show", "1c0f", "--json")
    data = json.loads(out)
    assert data["off_branch_human_turns"] == 1
    detail = {t["text"]: t["on_branch"] for t in data["human_turns_detail"]}
    assert detail["make the button blue"] is False and detail["make the button red"] is True
    # The timeline stays the context: the active branch only.
    assert "make the button blue" not in [i.get("text") for i in data["timeline"]]


RESUMED_ID = "6c0ffee0-0000-4000-8000-000000000006"


def test_all_projects_lists_every_session_file_under_its_own_id(home: Home) -> None:
    # A resumed session opens with the main session's lines (their sessionId is
    # MAIN_ID); it is its own session, named by its file.
    resumed = home.files["main"].with_name(f"{RESUMED_ID}.jsonl")
    resumed.write_text(home.files["main"].read_text())
    data = sessions_output("--all-projects")
    rows = data["sessions"]
    assert sorted(r["id"] for r in rows) == sorted([MAIN_ID, RESUMED_ID, CODEX_ID, SUBDIR_ID, OTHER_ID])
    assert {r["path"] for r in rows} >= {str(resumed), str(home.files["main"])}
    assert data["skipped"] == []


def test_skipped_files_are_listed_with_their_reason_and_counted(home: Home) -> None:
    child_id = "0199c0c0-0000-7000-8000-00000000c0de"
    child = home.files["codex"].with_name(f"rollout-2026-11-20T09-30-00-{child_id}.jsonl")
    child.write_text(json.dumps({
        "timestamp": "2026-11-20T09:30:00Z", "type": "session_meta",
        "payload": {"id": child_id, "cwd": str(home.project),
                    "source": {"subagent": {"thread_spawn": {"parent_thread_id": CODEX_ID}}}}}) + "\n")
    data = sessions_output()
    skipped = {(s["id"], s["reason"]) for s in data["skipped"]}
    assert skipped == {(OTHER_ID, "other_project"), (child_id, "subagent")}
    sub = next(s for s in data["skipped"] if s["reason"] == "subagent")
    assert sub["path"] == str(child) and sub["provider"] == "codex"
    assert sub["detail"] == f"thread_spawn of {CODEX_ID}"
    [codex] = [r for r in data["sessions"] if r["id"] == CODEX_ID]
    assert codex["subagents"] == 1
    code, out = run("sessions")
    assert code == 0
    assert "1 Codex subagent rollouts" in out and "1 in other projects" in out


@pytest.mark.parametrize("case", fidelity.cases())
def test_every_fidelity_session_file_is_listed_or_skipped_with_a_reason(
    case: str, tmp_path: Path
) -> None:
    """`learn sessions --all-projects` over each real-disk shape: every session file is listed
    under the id its case expects, or (a Codex subagent rollout) skipped with its reason."""
    home, _ = fidelity.install(case, tmp_path)
    data = fidelity.learn(home, "sessions", "--all-projects", "--json")
    listed = {row["path"]: row["id"] for row in data["sessions"]}
    skipped = {row["path"]: row for row in data["skipped"]}
    assert {row["reason"] for row in data["skipped"]} <= {"subagent", "duplicate"}
    # A duplicate is a copy of a session listed from its other place (OpenCode's JSON files
    # a migration to its SQLite store left behind): read once, from the place it names.
    for row in data["skipped"]:
        if row["reason"] == "duplicate":
            assert listed.get(row["detail"] + "/" + row["id"]) == row["id"] or \
                listed.get(row["detail"]) == row["id"], row
    for exp in fidelity.expected(case):
        path = str(home / Path(exp.file).relative_to("home"))
        if path in skipped:
            assert skipped[path]["id"] == exp.id and exp.typed == ()
        else:
            assert listed.get(path) == exp.id, (path, listed)


def test_a_session_pruned_between_discovery_and_parse_is_listed_as_skipped(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    from learn.commands._scope import Scope

    original = Scope.scan

    def scan_then_prune(self: Scope, heads=None):  # type: ignore[no-untyped-def]
        found = original(self, heads)
        home.files["subdir"].unlink()  # Claude Code's cleanup, right after discovery
        return found

    monkeypatch.setattr(Scope, "scan", scan_then_prune)
    data = sessions_output()
    assert SUBDIR_ID not in [r["id"] for r in data["sessions"]]
    [gone] = [s for s in data["skipped"] if s["id"] == SUBDIR_ID]
    assert gone["reason"] == "unreadable" and gone["path"] == str(home.files["subdir"])


def test_a_warm_listing_reuses_the_judgement_until_a_listed_file_changes(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    import learn.transcripts.templates.scripted as scripted
    from learn.index.judged_listing import FILE_NAME
    from learn.paths import cache_dir

    judged = 0
    real = scripted.judged_sessions

    def counting(*args: object, **kwargs: object) -> list[object]:
        nonlocal judged
        judged += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(scripted, "judged_sessions", counting)
    first = sessions_json("--all-projects")
    assert judged == 1
    kept = cache_dir() / FILE_NAME
    assert kept.stat().st_mode & 0o777 == 0o600
    assert sessions_json("--all-projects") == first and judged == 1  # unchanged: kept
    # Another scope is another set of sessions: judged across those.
    sessions_json()
    assert judged == 2
    # A listed file that changes (a session goes on) is judged again, with the rest.
    main = home.files["main"]
    main.write_bytes(main.read_bytes() + b"\n")
    again = sessions_json("--all-projects")
    assert judged == 3
    assert [r["human_turns"] for r in again] == [r["human_turns"] for r in first]
    # A damaged cache file is judged again, nothing lost.
    kept.write_text("{not json")
    assert sessions_json("--all-projects") == again and judged == 4


def test_a_project_folder_that_is_not_there_and_never_had_a_session_is_an_error(
        home: Home, tmp_path: Path) -> None:
    """`learn run --project /nope` exited 0 and said only that nothing was found."""
    code, out = run("sessions", "--project", str(tmp_path / "nope"))
    assert code == 2
    assert "no such folder, and no session ran in it" in out


def test_the_table_dates_a_session_in_the_local_time_zone_as_since_reads_a_date(
        home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = {r["id"]: r for r in sessions_json()}
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # +09:00 all year
    time.tzset()
    try:
        code, out = run("sessions")
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert code == 0
    for sid, row in rows.items():
        at = datetime.fromisoformat(str(row["last_activity"] or row["mtime"]))
        local = at.astimezone(ZoneInfo("Asia/Tokyo"))
        line = next(ln for ln in out.splitlines() if sid[:8] in ln)
        assert local.strftime("%Y-%m-%d %H:%M") in line, (line, at)
        assert at.astimezone(UTC).strftime("%Y-%m-%d %H:%M") not in line
