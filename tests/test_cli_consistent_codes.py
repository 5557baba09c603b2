"""The commands that read `--project`, `--since` and `--out`, or name a proposal, agree on
what a mistake is and on its exit code (docs/usage.md, "Exit codes": 2 a usage error, 0
nothing to do). The audit found `learn digest --project nosuch` saying "run `learn run`
there first" (exit 1) where `learn run --project nosuch` said no such folder (exit 2),
`--since 1y` exit 1 in digest and 2 in run, and "no stored run: run `learn run` there
first" right after a run that read no sessions."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from fixtures.view.corpus import install
from test_report_digest import sample_result

from learn.cli import cli
from learn.report import runs


def learn(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder beside HOME where no session ever ran, as the current directory."""
    folder = tmp_path / "empty"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def stored(monkeypatch: pytest.MonkeyPatch) -> None:
    """A store whose pending proposals for any project are the sample run's."""
    result = sample_result()
    monkeypatch.setattr(runs, "_proposals", lambda since, project, every_state: result)


SHOWING = [["digest"], ["apply"], ["report"], ["decline", "directive:use-uv-not-pip"], ["stats"],
           ["run", "--offline"]]


@pytest.mark.parametrize("command", SHOWING, ids=lambda c: c[0])
def test_a_project_folder_that_does_not_exist_is_a_usage_error_everywhere(
        empty_folder: Path, command: list[str]) -> None:
    res = learn(*command, "--project", "nosuch")
    assert res.exit_code == 2, res.output
    assert "Invalid value for --project: nosuch: no such folder" in res.output
    assert "no stored run" not in res.output


@pytest.mark.parametrize("command", [["digest"], ["apply"], ["report"]], ids=lambda c: c[0])
def test_after_a_run_that_read_no_sessions_there_is_nothing_to_show_not_a_failure(
        empty_folder: Path, command: list[str]) -> None:
    ran = learn("run", "--offline", "--quiet")
    assert ran.exit_code == 0 and "Read 0 sessions" in ran.output, ran.output
    res = learn(*command)
    assert res.exit_code == 0, res.output
    assert f"learn reads no session of {empty_folder}, so no run has anything to show" \
        in res.output
    assert "run `learn run` there first" not in res.output
    assert not (empty_folder / "learn-report.html").exists()


@pytest.mark.parametrize("command", [["digest"], ["apply"], ["report"]], ids=lambda c: c[0])
def test_sessions_no_run_has_read_are_still_a_run_to_make_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    home = install(Path.home() / ".claude", Path.home() / ".codex", tmp_path / "work" / "shop")
    monkeypatch.chdir(home.project)
    res = learn(*command)
    assert res.exit_code == 1, res.output
    assert "run `learn run` there first" in res.output


def test_a_window_with_no_run_still_fails_as_digest_promises(empty_folder: Path) -> None:
    # `--since`: "Only a run recorded since then ...; exit 1 when there is none" (unattended freshness
    # checks rely on it), said truthfully: there is nothing to run `learn run` on.
    res = learn("digest", "--since", "1d")
    assert res.exit_code == 1
    assert "no stored run since 1d" in res.output and "learn reads no session" in res.output


SINCE_READERS = [["digest"], ["apply"], ["report"], ["run", "--offline"], ["sessions"]]


@pytest.mark.parametrize("command", SINCE_READERS, ids=lambda c: c[0])
def test_since_is_read_one_way_with_one_error_everywhere(
        empty_folder: Path, command: list[str]) -> None:
    res = learn(*command, "--since", "1y")
    assert res.exit_code == 2, res.output
    assert "Invalid value for --since: cannot read --since '1y'" in res.output


@pytest.mark.parametrize("command", SINCE_READERS, ids=lambda c: c[0])
def test_a_since_in_the_future_is_a_usage_error(empty_folder: Path, command: list[str]) -> None:
    res = learn(*command, "--since", "2999-01-01")
    assert res.exit_code == 2, res.output
    assert "'2999-01-01' is in the future" in res.output
    assert "no stored run" not in res.output


@pytest.mark.parametrize("command", [["digest"], ["report"]], ids=lambda c: c[0])
def test_an_out_file_that_is_an_agents_instructions_is_refused_as_a_usage_error(
        empty_folder: Path, command: list[str]) -> None:
    res = learn(*command, "--out", "CLAUDE.md")
    assert res.exit_code == 2, res.output
    assert ("refusing to write to CLAUDE.md: it is an agent's instruction file; learn writes "
            "a report only to a file of its own (`learn apply` writes rules)") in res.output
    assert "CLAUDE.md is CLAUDE.md" not in res.output
    assert not (empty_folder / "CLAUDE.md").exists()


@pytest.mark.parametrize("command", [["decline", "nosuchkey"], ["apply", "--only", "nosuchkey"],
                                     ["apply", "--dismiss", "nosuchkey"]],
                         ids=lambda c: " ".join(c[:2]))
def test_a_key_that_names_no_proposal_is_a_usage_error(
        empty_folder: Path, stored: None, command: list[str]) -> None:
    res = learn(*command)
    assert res.exit_code == 2, res.output
    assert f"not a proposal of {empty_folder}: nosuchkey" in res.output


@pytest.mark.parametrize("command", [["decline", "nosuchkey"], ["apply", "--only", "nosuchkey"]],
                         ids=lambda c: c[0])
def test_a_key_where_nothing_can_be_proposed_is_a_usage_error(
        empty_folder: Path, command: list[str]) -> None:
    res = learn(*command)
    assert res.exit_code == 2, res.output
    assert f"not a proposal of {empty_folder}: nosuchkey; learn reads no session" in res.output


def test_undo_with_nothing_on_record_is_nothing_to_do(empty_folder: Path) -> None:
    res = learn("apply", "--undo", "--yes")
    assert res.exit_code == 0, res.output
    assert "nothing to undo" in res.output
