"""`learn apply` for every agent a project uses: each gets the rule in the file it reads.

A project that uses Copilot and Cursor gets valid files for both (their frontmatter read
back by a YAML parser, the globs equal to the rule's scope); a project that uses none of them
gets none of their files; a rule written for one agent is not proposed again as new, and one
written for one agent but said to another is said so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.agent_files import readers_of, scope_globs
from learn.reduce.rule_places import strip_frontmatter
from learn.reduce.rules import collect_rules
from learn.report.agent_formats import frontmatter_for


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    return root


def _proposal(project: Path, label: str, rule: str, *, globs: tuple[str, ...] = (),
              agents: tuple[tuple[str, int], ...] = (("claude", 2),)) -> Proposal:
    quotes = tuple(Quote(f"s{i}", "said it", f"2026-03-2{i}T00:00:00+00:00", str(project),
                         agent=agents[0][0]) for i in range(2))
    return Proposal("directive", label, "said it", 2, 2, quotes[0].at, quotes,
                    verdict=Verdict(True, rule, "workflow", "project", 0.9),
                    surface="path-rule" if globs else None, surface_rules=globs, agents=agents)


def _record(tmp_path: Path, project: Path, *proposals: Proposal,
            sessions: tuple[tuple[str, str], ...] = ()) -> None:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook
    from learn.store.scan_tables import ScannedSession, ScanTables

    (tmp_path / "data").mkdir(exist_ok=True)
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record(list(proposals), run_id=None, fallback_project=str(project))
        scans = ScanTables(store)
        for sid, agent in sessions:
            scans.record_session(ScannedSession(sid, agent, str(project), f"/x/{sid}", "h", None,
                                                0, "2026-03-20T00:00:00+00:00"))


def _front(path: Path) -> dict[str, object]:
    front, _ = strip_frontmatter(path.read_text())
    parsed = yaml.safe_load(front)
    assert isinstance(parsed, dict), path
    return parsed


def _new_file(diff: str, path: Path) -> str:
    """The text of a file the diff creates, from `+++ path` to the next file's header."""
    lines = diff.splitlines()
    start = lines.index(f"+++ {path}") + 2  # past the @@ hunk header
    out: list[str] = []
    for line in lines[start:]:
        if line.startswith(("--- ", "+++ ", "@@")) or not line.startswith("+"):
            break
        out.append(line[1:])
    return "\n".join(out) + "\n"


def _apply(project: Path, *args: str) -> str:
    from learn.commands.apply import command

    res = CliRunner().invoke(command, ["--project", str(project), *args])
    assert res.exit_code == 0, res.output
    return res.output


def test_a_project_using_copilot_and_cursor_gets_valid_files_for_both(tmp_path: Path,
                                                                      project: Path) -> None:
    (project / ".cursor" / "rules").mkdir(parents=True)  # Cursor: its rules folder
    scoped = ("src/api/**/*.ts", "**/*.test.ts")
    _record(tmp_path, project,
            _proposal(project, "small-prs", "Keep pull requests small: one concern each."),
            _proposal(project, "api-errors", "Return errors as RFC 7807 problem details.",
                      globs=scoped),
            sessions=(("s0", "claude"), ("s1", "copilot")))
    dry = _apply(project, "--dry-run")
    assert "uses Claude Code, Copilot CLI, Cursor" in dry
    assert not (project / ".github").exists()  # nothing written by a dry run
    assert not list((project / ".cursor" / "rules").iterdir())
    for name in (".github/copilot-instructions.md", ".github/instructions/api-errors.instructions.md",
                 ".cursor/rules/learn.mdc", ".cursor/rules/api-errors.mdc", "CLAUDE.md"):
        assert f"+++ {project / name}" in dry, name
    # What the dry run shows is what would be written: its frontmatter parses as YAML too.
    for name, want in ((".cursor/rules/api-errors.mdc", {"globs": ",".join(scoped)}),
                       (".github/instructions/api-errors.instructions.md",
                        {"applyTo": ",".join(scoped)})):
        shown = _new_file(dry, project / name)
        front, _ = strip_frontmatter(shown)
        parsed = yaml.safe_load(front)
        assert {k: parsed[k] for k in want} == want, name

    _apply(project, "--yes")
    copilot = (project / ".github" / "copilot-instructions.md").read_text()
    assert "Keep pull requests small" in copilot and "RFC 7807" not in copilot
    scoped_file = project / ".github" / "instructions" / "api-errors.instructions.md"
    assert _front(scoped_file) == {"applyTo": ",".join(scoped)}
    assert "RFC 7807" in scoped_file.read_text()
    always = _front(project / ".cursor" / "rules" / "learn.mdc")
    assert always["alwaysApply"] is True and isinstance(always["description"], str)
    assert "Keep pull requests small" in (project / ".cursor" / "rules" / "learn.mdc").read_text()
    cursor = _front(project / ".cursor" / "rules" / "api-errors.mdc")
    assert cursor["globs"] == ",".join(scoped) and cursor["alwaysApply"] is False
    # Each agent reads its file back with the scope it was written with.
    assert scope_globs(scoped_file.read_text(), scoped_file) == list(scoped)
    mdc = project / ".cursor" / "rules" / "api-errors.mdc"
    assert scope_globs(mdc.read_text(), mdc) == list(scoped)
    # Planned again for the same rule: nothing new in any of them.
    from learn.report.agent_formats import plan_agent_file
    from learn.report.edits import RuleEdit

    for path, key in ((scoped_file, "directive:api-errors"), (mdc, "directive:api-errors"),
                      (project / ".cursor" / "rules" / "learn.mdc", "directive:small-prs")):
        again = plan_agent_file(path, [RuleEdit(key=key, text="x", target=path, form="agent-rule")])
        assert not again.changed, path


def test_a_project_using_no_other_agent_gets_none_of_their_files(tmp_path: Path,
                                                                 project: Path) -> None:
    _record(tmp_path, project, _proposal(project, "small-prs", "Keep pull requests small."),
            sessions=(("s0", "claude"),))
    out = _apply(project, "--yes")
    assert "uses" not in out
    assert (project / "CLAUDE.md").is_file()
    present = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())
    assert present == ["CLAUDE.md"]


@pytest.mark.parametrize("folder, agent", [(".windsurf/rules", "windsurf"),
                                           (".kiro/steering", "kiro")])
def test_windsurf_and_kiro_keep_the_scope_in_their_own_words(tmp_path: Path, project: Path,
                                                             folder: str, agent: str) -> None:
    (project / folder).mkdir(parents=True)
    _record(tmp_path, project,
            _proposal(project, "always", "Write commit messages in the imperative."),
            _proposal(project, "scoped", "Use the query builder, never raw SQL.",
                      globs=("db/**/*.py",)))
    _apply(project, "--yes")
    always, scoped = _front(project / folder / "learn.md"), _front(project / folder / "scoped.md")
    if agent == "windsurf":
        assert always == {"trigger": "always_on"}
        assert scoped == {"trigger": "glob", "globs": "db/**/*.py"}
    else:
        assert always == {"inclusion": "always"}
        assert scoped == {"inclusion": "fileMatch", "fileMatchPattern": "db/**/*.py"}
    path = project / folder / "scoped.md"
    assert scope_globs(path.read_text(), path) == ["db/**/*.py"]


def test_gemini_keeps_a_folder_scope_by_folder_and_another_in_words(tmp_path: Path,
                                                                    project: Path) -> None:
    _record(tmp_path, project,
            _proposal(project, "api", "Validate every request body.", globs=("src/api/**",)),
            _proposal(project, "tests", "Name tests after the behaviour.",
                      globs=("**/*.test.ts",)),
            sessions=(("g1", "gemini"),))
    _apply(project, "--yes", "--agent", "gemini")
    assert not (project / "CLAUDE.md").exists()  # named agents only: Gemini does not read it
    assert "Validate every request body" in (project / "src" / "api" / "GEMINI.md").read_text()
    root = (project / "GEMINI.md").read_text()
    assert "When working on `**/*.test.ts`: Name tests after the behaviour." in root


def test_windsurf_files_are_continued_rather_than_cut_at_12000_characters(
        tmp_path: Path, project: Path) -> None:
    rules = project / ".windsurf" / "rules"
    rules.mkdir(parents=True)
    (rules / "learn.md").write_text("---\ntrigger: always_on\n---\n" + "- an old rule\n" * 850)
    _record(tmp_path, project, _proposal(project, "small-prs", "Keep pull requests small."))
    _apply(project, "--yes")
    assert "Keep pull requests small" not in (rules / "learn.md").read_text()
    assert "Keep pull requests small" in (rules / "learn-2.md").read_text()
    assert len((rules / "learn-2.md").read_text()) < 12_000


def test_frontmatter_values_are_yaml_strings_whatever_the_words(tmp_path: Path) -> None:
    nasty = 'Say "no": #never *always* {x} [y] & | > %'
    globs = ("*.py", "src/*:weird/**", "a, b/**")
    for name in ("x.mdc", ".windsurf/rules/x.md", ".kiro/steering/x.md",
                 ".github/instructions/x.instructions.md"):
        text = frontmatter_for(tmp_path / name, globs, nasty)
        front, _ = strip_frontmatter(text)
        parsed = yaml.safe_load(front)
        assert isinstance(parsed, dict), name
        if name.endswith(".mdc"):
            assert parsed["description"] == nasty and parsed["globs"] == ",".join(globs)


def _cursor_line_reader(front: str) -> dict[str, str]:
    """Cursor's fallback reading of `.mdc` frontmatter: `key: rest of the line`, verbatim
    (quotes kept, a YAML list read as nothing), as measured on Cursor 3.17 and reported."""
    out: dict[str, str] = {}
    for line in front.splitlines():
        key, sep, rest = line.partition(":")
        if sep and not line[:1].isspace():
            out[key.strip()] = rest.strip()
    return out


@pytest.mark.parametrize("globs, written, yaml_reads", [
    (("src/api/**/*.ts", "**/*.test.ts"), "src/api/**/*.ts,**/*.test.ts", True),
    (("**/*.test.ts", "src/api/**/*.ts"), "src/api/**/*.ts,**/*.test.ts", True),  # reordered
    (("web/*.{ts,tsx}",), "web/*.ts,web/*.tsx", True),  # a comma inside braces would split
    (("**/*.py",), "**/*.py", False),  # bare all the same: what Cursor matches
])
def test_cursor_globs_are_written_as_cursor_reads_them(tmp_path: Path, globs: tuple[str, ...],
                                                       written: str, yaml_reads: bool) -> None:
    """Bare and comma-joined with no spaces: Cursor's line reader keeps quotes in a pattern
    and reads a YAML list as no globs. YAML reads the same string whenever one glob can
    open a plain scalar; every pattern is in the rule's scope and nothing else is."""
    text = frontmatter_for(tmp_path / ".cursor" / "rules" / "x.mdc", globs, "Keep errors typed.")
    front, _ = strip_frontmatter(text)
    assert _cursor_line_reader(front)["globs"] == written
    assert _cursor_line_reader(front)["description"] == "Keep errors typed."
    if yaml_reads:
        assert yaml.safe_load(front)["globs"] == written
    else:
        with pytest.raises(yaml.YAMLError):
            yaml.safe_load(front)
    assert scope_globs(text, tmp_path / "x.mdc") == written.split(",")


def test_coverage_reads_every_agents_files_and_says_who_reads_them(tmp_path: Path,
                                                                   project: Path) -> None:
    (project / ".cursor" / "rules").mkdir(parents=True)
    (project / ".cursor" / "rules" / "db.mdc").write_text(
        '---\ndescription: "db"\nglobs:\n  - "db/**"\nalwaysApply: false\n---\n'
        "- Never hand-write migrations.\n")
    (project / "GEMINI.md").write_text("- Prefer small functions.\n")
    (project / ".github").mkdir()
    (project / ".github" / "copilot-instructions.md").write_text("- Run make check.\n")
    corpus = collect_rules(project, home=tmp_path / "home")
    lines = {r.text: r for r in corpus.rules}
    assert set(lines) >= {"Never hand-write migrations.", "Prefer small functions.",
                          "Run make check."}
    assert lines["Never hand-write migrations."].heading[0] == "(loaded only for db/**)"
    assert readers_of(project / ".cursor" / "rules" / "db.mdc") == {"cursor"}
    assert readers_of(project / "GEMINI.md") == {"gemini"}
    assert "copilot" in readers_of(project / "AGENTS.md")


def test_a_rule_written_for_one_agent_and_said_to_another_is_said_so(tmp_path: Path,
                                                                     project: Path) -> None:
    from dataclasses import replace

    from learn.records.proposal import Funnel, RunResult, RunUsage
    from learn.report.agent_targets import written_elsewhere
    from learn.report.proposal_lines import item_lines

    mdc = project / ".cursor" / "rules" / "db.mdc"
    mdc.parent.mkdir(parents=True)
    mdc.write_text("---\nalwaysApply: true\n---\n- Never hand-write migrations.\n")
    p = replace(_proposal(project, "migrations", "Never hand-write migrations."),
                existing_rule="Never hand-write migrations.", existing_rule_file=str(mdc))
    assert written_elsewhere(p) == ("claude",)
    lines = "\n".join(item_lines(p, RunResult((), Funnel(), RunUsage())))
    assert "written for Cursor" in lines and "Claude Code" in lines
    # Apply writes it where Claude Code reads it, and leaves Cursor's file alone.
    _record(tmp_path, project, p)
    before = mdc.read_text()
    _apply(project, "--yes")
    assert "Never hand-write migrations." in (project / "CLAUDE.md").read_text()
    assert mdc.read_text() == before


def test_a_rule_rewritten_in_place_goes_to_the_other_agents_files_of_its_project(
        tmp_path: Path, project: Path) -> None:
    """A restated rule is rewritten where it is (its project's CLAUDE.md); the Codex sessions
    that said it too get it in that project's AGENTS.md, never in ~/.codex/AGENTS.md."""
    from dataclasses import replace

    (project / "CLAUDE.md").write_text("- Run ruff before you commit.\n")
    p = replace(_proposal(project, "ruff", "Run `ruff check` before every commit.",
                          agents=(("claude", 1), ("codex", 1))),
                status="restated", existing_rule="Run ruff before you commit.",
                existing_rule_file=str(project / "CLAUDE.md"))
    _record(tmp_path, project, p, sessions=(("c1", "codex"),))
    _apply(project, "--yes")
    assert "Run `ruff check` before every commit." in (project / "CLAUDE.md").read_text()
    assert "Run ruff before you commit." not in (project / "CLAUDE.md").read_text()
    assert "Run `ruff check` before every commit." in (project / "AGENTS.md").read_text()
    assert not (Path.home() / ".codex" / "AGENTS.md").exists()


def test_the_other_agents_files_are_undone_with_the_rest(tmp_path: Path, project: Path) -> None:
    """Their writes go through the same journal: `--undo` removes the files it created and
    puts back the one it changed."""
    (project / ".kiro" / "steering").mkdir(parents=True)
    (project / "GEMINI.md").write_text("# Notes\n\n- Use tabs.\n")
    _record(tmp_path, project,
            _proposal(project, "small-prs", "Keep pull requests small: one concern each."),
            sessions=(("s0", "claude"),))
    _apply(project, "--yes")
    kiro = project / ".kiro" / "steering" / "learn.md"
    assert "Keep pull requests small" in kiro.read_text()
    assert "Keep pull requests small" in (project / "GEMINI.md").read_text()
    _apply(project, "--undo", "--yes")
    assert not kiro.exists()
    assert (project / "GEMINI.md").read_text() == "# Notes\n\n- Use tabs.\n"
    assert not (project / "CLAUDE.md").exists()
