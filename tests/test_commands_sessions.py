"""`learn sessions` and `learn show` through click, against a fixture HOME."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
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


def sessions_json(*args: str) -> list[dict]:  # type: ignore[type-arg]
    code, out = run("sessions", "--json", *args)
    assert code == 0, out
    data = json.loads(out)
    assert isinstance(data, list)
    return data


def test_sessions_json_default_scope_is_the_current_project(home: Home) -> None:
    rows = sessions_json()
    assert [r["id"] for r in rows] == [MAIN_ID, CODEX_ID, SUBDIR_ID]
    main = rows[0]
    assert main["provider"] == "claude"
    assert main["project"] == str(home.project)
    assert main["path"] == str(home.files["main"])
    # Exact counts: the replayed /review body is not a human turn.
    assert main["human_turns"] == 12  # the /review argument typed with the replayed body (issue 10, item 5)
    assert main["human_turns_by_origin"] == {"typed": 6, "denial": 1, "answer": 4, "queued": 1}
    assert main["turns"] == 39
    assert (main["tool_calls"], main["failures"], main["denials"], main["interrupts"]) == (7, 1, 2, 1)
    assert main["subagents"] == 2
    assert main["size_bytes"] == home.files["main"].stat().st_size
    assert main["started_at"] == "2026-11-20T09:01:00+00:00"
    codex = rows[1]
    assert (codex["provider"], codex["human_turns"]) == ("codex", 2)
    assert rows[2]["project"] == str(home.project / "api")


def test_sessions_json_scopes(home: Home, tmp_path: Path) -> None:
    assert [r["id"] for r in sessions_json("--all-projects")] == [MAIN_ID, CODEX_ID, SUBDIR_ID, OTHER_ID]
    assert [r["id"] for r in sessions_json("--all-projects", "--limit", "1")] == [MAIN_ID]
    assert [r["id"] for r in sessions_json("--project", str(home.project / "api"))] == [SUBDIR_ID]
    assert sessions_json("--project", str(tmp_path)) != []  # a parent directory holds them all
    assert sessions_json("--project", str(tmp_path / "work" / "nothing-here")) == []
    # The fixture mtimes are in 2027, so any window ending now keeps them; a
    # date after them keeps none.
    assert len(sessions_json("--since", "30d")) == 3
    assert sessions_json("--since", "2027-06-01") == []


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
    code, out = run("sessions", "--project", str(tmp_path / "empty"))
    assert code == 0
    assert "No sessions in scope" in out and "--all-projects" in out


def test_show_by_prefix_and_json(home: Home) -> None:
    code, out = run("show", "1c0f", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["id"] == MAIN_ID and data["human_turns"] == 12
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
    code, out = run("show", "ffff")
    assert code == 1 and "no session matches 'ffff'" in out
    code, out = run("show", "  ")
    assert code == 1 and "session id" in out


def test_show_ambiguous_prefix_and_exact_id(home: Home) -> None:
    twin_id = MAIN_ID[:-1] + "9"
    twin = home.files["main"].with_name(f"{twin_id}.jsonl")
    twin.write_text(home.files["main"].read_text().replace(MAIN_ID, twin_id))
    code, out = run("show", "1c0ffee0")
    assert code == 1 and "matches 2 sessions" in out and twin_id in out
    code, out = run("show", MAIN_ID, "--json")
    assert code == 0 and json.loads(out)["id"] == MAIN_ID
