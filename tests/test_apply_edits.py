"""`learn apply`: diffs, the managed section, restated rewrites, backups, concurrent edits,
crashes, confirmation, targets and recorded decisions."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_report_digest import sample_result

from learn.commands.apply import command
from learn.records.proposal import RunResult
from learn.report import apply as apply_mod
from learn.report import runs
from learn.report.apply import backups_dir, plan_file, write_plan
from learn.report.edits import BEGIN, END, ApplyError, ConcurrentEditError, RuleEdit

Recorded = list[tuple[str, str, str, str | None]]

EXISTING = "# Project\n\nSome notes the user wrote.\n\n- Run tests before committing.\n- Keep PRs small.\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "CLAUDE.md").write_text(EXISTING)
    return root


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> Recorded:
    calls: Recorded = []
    monkeypatch.setattr(runs, "_recorder", lambda k, d, t, f, **kw: calls.append((k, d, t, f)))
    return calls


def use_run(monkeypatch: pytest.MonkeyPatch, result: RunResult) -> None:
    # The pending proposals of the project apply runs for (any state for --only).
    monkeypatch.setattr(runs, "_proposals", lambda since, project, every_state: result)


def project_only_run(project: Path) -> RunResult:
    """The sample run with the restated rule pointing at this project's CLAUDE.md."""
    r = sample_result()
    props = [dataclasses.replace(p, existing_rule_file=str(project / "CLAUDE.md"))
             if p.status == "restated" else p for p in r.proposals]
    return dataclasses.replace(r, proposals=tuple(props))


def project_dir(tmp_path: Path) -> Path:
    """A project folder beside the test's HOME (a folder holding HOME is no project)."""
    root = tmp_path / "p"
    root.mkdir(exist_ok=True)
    return root


def invoke(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(command, list(args), input=input)


def test_apply_appends_managed_section_rewrites_restated_and_backs_up(
        project: Path, recorded: Recorded, monkeypatch: pytest.MonkeyPatch) -> None:
    use_run(monkeypatch, project_only_run(project))
    res = invoke("--project", str(project), "--scope", "project", "--yes")
    assert res.exit_code == 0, res.output
    # The diff was shown before writing.
    assert f"+++ {project / 'CLAUDE.md'}" in res.output
    assert "+- Use uv for every Python install and run; never pip." in res.output
    text = (project / "CLAUDE.md").read_text()
    # The user's text is untouched above the section; the restated line is rewritten in place.
    assert text.startswith("# Project\n\nSome notes the user wrote.\n\n- Run `pytest -q` and see it")
    assert "- Run tests before committing." not in text
    assert "- Keep PRs small.\n\n" + BEGIN in text
    section = text[text.index(BEGIN):]
    assert section.rstrip().endswith(END)
    assert "- Use uv for every Python install and run; never pip. <!-- learn directive:use-uv-not-pip, 3 sessions, last 2026-11-20 -->" in section
    assert "Run tests with `.venv/bin/pytest`." in section
    assert "Write release notes" not in text  # the judge declined it
    # A backup of the original, private.
    backups = list(backups_dir().iterdir())
    assert len(backups) == 1 and backups[0].read_text() == EXISTING
    assert backups[0].stat().st_mode & 0o777 == 0o600
    # Decisions recorded with their target.
    assert {(k, d) for k, d, _, _ in recorded} == {
        ("directive:use-uv-not-pip", "accepted"), ("directive:run-tests-before-commit", "accepted"),
        ("fix:pytest-needs-venv", "accepted")}
    assert all(f == str((project / "CLAUDE.md").resolve()) for *_, f in recorded)


def test_apply_twice_adds_nothing_and_new_rules_join_the_section(
        project: Path, recorded: Recorded, monkeypatch: pytest.MonkeyPatch) -> None:
    result = project_only_run(project)
    use_run(monkeypatch, result)
    assert invoke("--project", str(project), "--scope", "project", "--yes").exit_code == 0
    once = (project / "CLAUDE.md").read_text()
    res = invoke("--project", str(project), "--scope", "project", "--yes")
    assert res.exit_code == 0, res.output
    assert (project / "CLAUDE.md").read_text() == once
    assert "already in CLAUDE.md" in res.output
    assert once.count("use-uv-not-pip") == 1

    # A rule added later goes inside the existing section, just before its end marker.
    req = next(p for p in result.proposals if p.kind == "request")
    later = dataclasses.replace(req, kind="directive")  # a rule, not a command
    use_run(monkeypatch, dataclasses.replace(result, proposals=(later,)))
    res = invoke("--project", str(project), "--only", "directive:release-notes", "--yes")
    assert res.exit_code == 0, res.output
    after = (project / "CLAUDE.md").read_text()
    assert after.count(BEGIN) == 1 and after.count(END) == 1
    assert after.index("Write release notes.") < after.index(END)
    assert after.replace("- Write release notes. <!-- learn directive:release-notes, 3 sessions, "
                         "last 2026-11-19 -->\n", "") == once


def test_restated_rule_not_found_is_appended_with_a_note(tmp_path: Path) -> None:
    tmp_path = project_dir(tmp_path)
    path = tmp_path / "CLAUDE.md"
    path.write_text("- Something else entirely.\n")
    edit = RuleEdit("directive:x", "Always run the linter.", path,
                    replace_line="- Run the linter before pushing.")
    plan = plan_file(path, [edit], [tmp_path])
    assert "Always run the linter." in plan.new_text
    assert plan.new_text.startswith("- Something else entirely.\n\n" + BEGIN)
    assert any("not found" in n for n in plan.notes)


def test_concurrent_edit_is_detected_and_nothing_written(project: Path) -> None:
    path = project / "CLAUDE.md"
    plan = plan_file(path, [RuleEdit("directive:a", "Rule A.", path)], [project])
    assert plan.changed and "+- Rule A." in plan.diff()
    path.write_text(EXISTING + "- Added in the editor meanwhile.\n")
    with pytest.raises(ConcurrentEditError):
        write_plan(plan)
    assert path.read_text() == EXISTING + "- Added in the editor meanwhile.\n"
    assert not backups_dir().exists() or not list(backups_dir().iterdir())


def test_file_created_meanwhile_is_a_concurrent_edit(tmp_path: Path) -> None:
    tmp_path = project_dir(tmp_path)
    path = tmp_path / "CLAUDE.md"
    plan = plan_file(path, [RuleEdit("directive:a", "Rule A.", path)], [tmp_path])
    assert plan.original is None and plan.diff().startswith("--- /dev/null")
    path.write_text("new\n")
    with pytest.raises(ConcurrentEditError):
        write_plan(plan)


def test_crash_between_backup_and_replace_loses_nothing(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = project / "CLAUDE.md"
    plan = plan_file(path, [RuleEdit("directive:a", "Rule A.", path)], [project])

    def crash(path: Path, data: bytes, mode: int) -> None:
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(apply_mod, "_atomic_replace", crash)
    with pytest.raises(OSError):
        write_plan(plan)
    assert path.read_text() == EXISTING
    backups = list(backups_dir().iterdir())
    assert len(backups) == 1 and backups[0].read_text() == EXISTING
    assert sorted(x.name for x in project.iterdir()) == [".git", "CLAUDE.md"]


def test_crash_through_the_command_reports_and_exits_nonzero(
        project: Path, recorded: Recorded, monkeypatch: pytest.MonkeyPatch) -> None:
    use_run(monkeypatch, project_only_run(project))

    def crash(path: Path, data: bytes, mode: int) -> None:
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(apply_mod, "_atomic_replace", crash)
    res = invoke("--project", str(project), "--scope", "project", "--yes")
    assert res.exit_code == 1
    assert "original is unchanged" in res.output
    assert (project / "CLAUDE.md").read_text() == EXISTING
    assert recorded == []  # nothing was written, so nothing was accepted


def test_write_replaces_atomically_keeping_mode_and_symlink(tmp_path: Path) -> None:
    tmp_path = project_dir(tmp_path)
    real = tmp_path / "dotfiles" / "CLAUDE.md"
    real.parent.mkdir()
    real.write_text("- A.\n")
    real.chmod(0o644)
    link = tmp_path / "CLAUDE.md"
    link.symlink_to(real)
    plan = plan_file(link, [RuleEdit("directive:b", "B.", link)], [tmp_path])
    write_plan(plan)
    assert link.is_symlink()
    assert "- B. <!-- learn directive:b -->" in real.read_text()
    assert real.stat().st_mode & 0o777 == 0o644


def test_new_file_is_created_as_any_new_file_is(tmp_path: Path) -> None:
    # The person's file, not learn's: 0666 less the umask, as the project's other files
    # (learn's own files stay 0600: tests/test_new_rule_file_mode.py).
    tmp_path = project_dir(tmp_path)
    path = tmp_path / ".claude" / "rules" / "tooling.md"
    umask = os.umask(0o022)
    os.umask(umask)
    write_plan(plan_file(path, [RuleEdit("directive:b", "B.", path)], [tmp_path]))
    assert path.read_text().startswith(BEGIN + "\n")
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_damaged_markers_are_refused(tmp_path: Path) -> None:
    tmp_path = project_dir(tmp_path)
    path = tmp_path / "CLAUDE.md"
    path.write_text(f"{BEGIN}\n- x\n")
    with pytest.raises(ApplyError, match="damaged"):
        plan_file(path, [RuleEdit("directive:b", "B.", path)], [tmp_path])


def test_crlf_file_keeps_its_line_endings(tmp_path: Path) -> None:
    tmp_path = project_dir(tmp_path)
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(b"# T\r\n- A.\r\n")
    write_plan(plan_file(path, [RuleEdit("directive:b", "B.", path)], [tmp_path]))
    data = path.read_bytes()
    assert data.startswith(b"# T\r\n- A.\r\n\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_non_tty_without_yes_refuses(project: Path, recorded: Recorded,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    use_run(monkeypatch, project_only_run(project))
    res = invoke("--project", str(project), "--scope", "project")
    assert res.exit_code == 2
    assert "refusing to write" in res.output
    assert "+- Use uv" in res.output  # the diff is still shown
    assert (project / "CLAUDE.md").read_text() == EXISTING
    assert recorded == []


def test_interactive_confirmation(project: Path, recorded: Recorded,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    use_run(monkeypatch, project_only_run(project))
    monkeypatch.setattr("learn.commands.apply_writes.interactive", lambda: True)
    res = invoke("--project", str(project), "--scope", "project", input="n\n")
    assert res.exit_code == 0 and "skipped" in res.output
    assert (project / "CLAUDE.md").read_text() == EXISTING
    res = invoke("--project", str(project), "--scope", "project", input="y\n")
    assert res.exit_code == 0, res.output
    assert "Use uv for every" in (project / "CLAUDE.md").read_text()


def test_dry_run_writes_nothing(project: Path, recorded: Recorded,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    use_run(monkeypatch, project_only_run(project))
    res = invoke("--project", str(project), "--dry-run")
    assert res.exit_code == 0 and "+- Use uv" in res.output
    assert (project / "CLAUDE.md").read_text() == EXISTING and recorded == []


def test_edit_records_edited_with_the_new_words(project: Path, recorded: Recorded,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    use_run(monkeypatch, project_only_run(project))
    monkeypatch.setattr("click.edit", lambda text: "Use uv.\n  Never pip.\n")
    res = invoke("--project", str(project), "--only", "directive:use-uv-not-pip",
                 "--scope", "project", "--edit", "--yes")
    assert res.exit_code == 0, res.output
    assert "- Use uv. Never pip. <!-- learn directive:use-uv-not-pip" in \
        (project / "CLAUDE.md").read_text()
    assert recorded == [("directive:use-uv-not-pip", "edited", "Use uv. Never pip.",
                         str((project / "CLAUDE.md").resolve()))]


def test_dismiss_records_and_writes_nothing(project: Path, recorded: Recorded,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    use_run(monkeypatch, project_only_run(project))
    res = invoke("--project", str(project), "--dismiss", "use-uv-not-pip", "--yes")
    assert res.exit_code == 0, res.output
    assert recorded == [("directive:use-uv-not-pip", "dismissed",
                         "Use uv for every Python install and run; never pip.", None)]
    assert (project / "CLAUDE.md").read_text() == EXISTING
    assert invoke("--project", str(project), "--dismiss", "nope").exit_code != 0


def test_targets_by_scope_and_flags(project: Path, recorded: Recorded, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path(os.environ["HOME"])
    use_run(monkeypatch, project_only_run(project))
    sub = project / "src"
    sub.mkdir()
    # Judged scopes: the uv rule is user scope, the fix project scope (found from a subdir).
    assert invoke("--project", str(sub), "--yes").exit_code == 0
    assert "Use uv for every" in (home / ".claude" / "CLAUDE.md").read_text()
    assert "Run tests with" in (project / "CLAUDE.md").read_text()

    use_run(monkeypatch, sample_result())
    assert invoke("--project", str(project), "--target", "rules", "--scope", "project",
                  "--only", "fix:pytest-needs-venv", "--yes").exit_code == 0
    assert "Run tests with" in (project / ".claude" / "rules" / "tooling.md").read_text()
    assert invoke("--project", str(project), "--agents", "--only", "fix:pytest-needs-venv",
                  "--yes").exit_code == 0
    assert "Run tests with" in (project / "AGENTS.md").read_text()
    nested = project / "src" / "CLAUDE.md"  # an instruction file of the project
    assert invoke("--project", str(project), "--file", str(nested), "--only",
                  "fix:pytest-needs-venv", "--yes").exit_code == 0
    assert "Run tests with" in nested.read_text()
    # --file names an instruction file; any other file is refused, nothing written.
    other = tmp_path / "elsewhere.md"
    res = invoke("--project", str(project), "--file", str(other), "--only",
                 "fix:pytest-needs-venv", "--yes")
    assert res.exit_code == 1 and "not an instruction file learn may write" in res.output
    assert not other.exists()


def test_budget_warning(project: Path, recorded: Recorded,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "CLAUDE.md").write_text("".join(f"- rule {i}\n" for i in range(199)))
    use_run(monkeypatch, project_only_run(project))
    res = invoke("--project", str(project), "--scope", "project", "--dry-run")
    assert "warning:" in res.output and "(budget 200)" in res.output
    res = invoke("--project", str(project), "--scope", "project", "--dry-run",
                 "--max-lines", "1000")
    assert "warning:" not in res.output
    # The budget comes from the config file when no flag is given.
    config = Path(os.environ["HOME"]) / ".config" / "learn" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[apply]\nmax_lines = 1000\nmax_bytes = 100\n")
    res = invoke("--project", str(project), "--scope", "project", "--dry-run")
    assert "(budget 200)" not in res.output and "(budget 100)" in res.output


def test_no_run_where_no_session_can_be_read_is_nothing_to_apply(project: Path) -> None:
    # Nothing to show is not a failure (docs/usage.md); "run `learn run` there first" was
    # untrue here, where a run reads 0 sessions (tests/test_cli_consistent_codes.py).
    res = invoke("--yes", "--project", str(project))
    assert res.exit_code == 0, res.output
    assert f"nothing to apply: learn reads no session of {project}" in res.output


def test_has_skill_items_are_not_written_by_default(project: Path, recorded: Recorded,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    r = project_only_run(project)
    skill = dataclasses.replace(r.proposals[0], status="has-skill", existing_rule="python-env")
    use_run(monkeypatch, dataclasses.replace(r, proposals=(skill,)))
    res = invoke("--project", str(project), "--yes")
    assert res.exit_code == 0
    assert "`python-env` skill" in res.output and "nothing to apply" in res.output
    assert (project / "CLAUDE.md").read_text() == EXISTING and recorded == []


def test_project_rule_goes_to_the_project_it_was_said_in(tmp_path: Path) -> None:
    """A run over all projects: with no --project, a project rule lands in the
    CLAUDE.md of the project whose sessions said it, not in the current directory."""
    from learn.records.proposal import Proposal, Quote, Verdict
    from learn.report.targets import TargetChoice, choose_target

    web = tmp_path / "web"
    api = tmp_path / "api"
    web.mkdir()
    api.mkdir()
    verdict = Verdict(accepted=True, summary="Use bun.", category="tooling", scope="project",
                      confidence=0.9)
    p = Proposal(kind="directive", label="use-bun-not-npm", text="use bun", sessions=2, count=2,
                 last_seen=None, verdict=verdict,
                 quotes=(Quote("s1", "use bun", None, project=str(web)),
                         Quote("s2", "bun please", None, project=str(web))))
    assert choose_target(p, TargetChoice(project_dir=api, follow_quotes=True)) == web / "CLAUDE.md"
    # Named explicitly, the project wins.
    assert choose_target(p, TargetChoice(project_dir=api)) == api / "CLAUDE.md"
    # Quotes from two projects: no single home, so the current project.
    mixed = Proposal(**{**{f: getattr(p, f) for f in p.__dataclass_fields__},
                        "quotes": (*p.quotes, Quote("s3", "bun", None, project=str(api)))})
    assert choose_target(mixed, TargetChoice(project_dir=api, follow_quotes=True)) == api / "CLAUDE.md"
