"""One rule, every agent's file, each read once: the surfaces an audit of multi-agent
projects found wrong (2026-12).

- a restated or contradicted rule's old line was rewritten in CLAUDE.md only: Codex and
  Gemini kept "Use npm" beside "Use bun, never npm";
- a CLAUDE.md (or GEMINI.md) importing `@AGENTS.md` got the rule as well as AGENTS.md,
  read twice; Copilot and Cursor got their own copy as well as the AGENTS.md they read;
- an AGENTS.override.md hides AGENTS.md from Codex, and learn wrote AGENTS.md;
- the Codex size line measured one file against 32 KiB, whatever the chain above it and
  config.toml said;
- `--agents` said Claude Code got the rule when it read none of the files written, and
  `--agents --agent claude` wrote nothing and said nothing;
- Gemini's `context.fileName` was ignored.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.agent_files import readers_of
from learn.report.agent_targets import agent_edits
from learn.report.apply import edit_for, plan_file
from learn.report.edits import RuleEdit
from learn.report.targets import TargetChoice


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    for name in ("LEARN_DATABASE_URL", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME",
                 "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir(exist_ok=True)
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    return root


def _home(project: Path) -> Path:
    return project.parent / "home"


def _proposal(project: Path, label: str, rule: str, *, scope: str = "project",
              agents: tuple[tuple[str, int], ...] = (("claude", 2),)) -> Proposal:
    quotes = tuple(Quote(f"s{i}", "said it", f"2026-03-2{i}T00:00:00+00:00", str(project),
                         agent=agents[0][0]) for i in range(2))
    return Proposal("directive", label, "said it", 2, 2, quotes[0].at, quotes,
                    verdict=Verdict(True, rule, "workflow", scope, 0.9),  # type: ignore[arg-type]
                    agents=agents)


def _main(p: Proposal, project: Path, kind: str = "claude") -> RuleEdit:
    return edit_for(p, TargetChoice(project_dir=project, kind=kind,  # type: ignore[arg-type]
                                    follow_quotes=True))


def _planned(edits: list[RuleEdit], project: Path) -> dict[str, str]:
    """Each edited file's planned text, by its path relative to the project."""
    out: dict[str, str] = {}
    for e in edits:
        plan = plan_file(e.target, [e], [project])
        out[str(e.target.relative_to(project))] = plan.new_text
    return out


# 1. The old line goes from every file that holds it.

def test_a_contradicted_rule_rewrites_the_old_line_in_every_agents_file(project: Path) -> None:
    for name in ("CLAUDE.md", "AGENTS.md", "GEMINI.md"):
        (project / name).write_text("# shop\n\n- Use npm for installs.\n- Keep PRs small.\n")
    p = replace(_proposal(project, "use-bun", "Use bun for installs, never npm."),
                status="contradicts", existing_rule="Use npm for installs.",
                existing_rule_file=str(project / "CLAUDE.md"))
    main = _main(p, project)
    others = agent_edits(p, main, ["claude", "codex", "gemini"], home=_home(project))
    texts = _planned([main, *others], project)
    assert set(texts) == {"CLAUDE.md", "AGENTS.md", "GEMINI.md"}
    for name, text in texts.items():
        assert "Use npm for installs." not in text, name
        assert text.count("Use bun for installs, never npm.") == 1, name
        assert "- Keep PRs small." in text, name


def test_a_file_that_never_held_the_old_line_gets_the_rule_without_a_note(
        project: Path) -> None:
    (project / "CLAUDE.md").write_text("- Use npm for installs.\n")
    (project / "AGENTS.md").write_text("# shop\n\n- Keep PRs small.\n")
    p = replace(_proposal(project, "use-bun", "Use bun for installs, never npm."),
                status="contradicts", existing_rule="Use npm for installs.",
                existing_rule_file=str(project / "CLAUDE.md"))
    main = _main(p, project)
    (codex,) = agent_edits(p, main, ["claude", "codex"], home=_home(project))
    plan = plan_file(codex.target, [codex], [project])
    assert "Use bun for installs, never npm." in plan.new_text
    assert not [n for n in plan.notes if "by hand" in n]


# 2. An import is one file: the rule is written to AGENTS.md once.

def test_a_claude_md_importing_agents_md_gets_the_rule_once_in_agents_md(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from learn.commands.apply_agents import ForAgents

    (project / "CLAUDE.md").write_text("# shop\n\n@AGENTS.md\n")
    (project / ".codex").mkdir()  # the project uses Codex too
    p = _proposal(project, "small-prs", "Keep pull requests small.")
    choice = TargetChoice(project_dir=project, follow_quotes=True)
    main = _main(p, project)
    for_agents = ForAgents(choice, ())
    others = for_agents.edits(p, main)
    assert [e.target for e in others] == [project / "AGENTS.md"]
    assert not for_agents.keeps_main(main)
    assert "written once, to" in capsys.readouterr().out


def test_a_gemini_md_importing_agents_md_does_not_get_its_own_copy(project: Path) -> None:
    (project / "GEMINI.md").write_text("@AGENTS.md\n")
    assert "gemini" in readers_of(project / "AGENTS.md", _home(project))
    p = _proposal(project, "small-prs", "Keep pull requests small.")
    main = _main(p, project)
    others = agent_edits(p, main, ["claude", "codex", "gemini"], home=_home(project))
    assert [e.target for e in others] == [project / "AGENTS.md"]


# 3. The AGENTS.md written for Codex is Copilot's and Cursor's too.

def test_copilot_and_cursor_read_the_agents_md_written_for_codex(project: Path) -> None:
    (project / ".cursor" / "rules").mkdir(parents=True)
    p = _proposal(project, "small-prs", "Keep pull requests small.")
    main = _main(p, project)
    others = agent_edits(p, main, ["claude", "codex", "copilot", "cursor"],
                         home=_home(project))
    assert [e.target for e in others] == [project / "AGENTS.md"]


# 4. Codex reads an AGENTS.override.md in place of AGENTS.md.

def test_codex_gets_the_override_it_reads_and_the_others_their_agents_md(
        project: Path) -> None:
    (project / "AGENTS.override.md").write_text("# for now\n")
    assert _main(_proposal(project, "small-prs", "Keep pull requests small."), project,
                 "agents").target == project / "AGENTS.override.md"
    p = _proposal(project, "small-prs", "Keep pull requests small.")
    main = _main(p, project)
    others = agent_edits(p, main, ["claude", "codex", "opencode", "copilot"],
                         home=_home(project))
    # OpenCode's AGENTS.md is Copilot's too; Codex reads only the override.
    assert [e.target for e in others] == [project / "AGENTS.override.md",
                                          project / "AGENTS.md"]
    assert readers_of(project / "AGENTS.md", _home(project)) >= {"copilot", "opencode"}
    assert "codex" not in readers_of(project / "AGENTS.md", _home(project))


def test_a_user_rule_goes_to_the_codex_home_override_when_there_is_one(project: Path) -> None:
    codex = _home(project) / ".codex"
    codex.mkdir(exist_ok=True)
    (codex / "AGENTS.override.md").write_text("# temporary\n")
    p = _proposal(project, "small-prs", "Keep pull requests small.", scope="user")
    assert _main(p, project, "agents").target == codex / "AGENTS.override.md"


# 5. Codex's limit is the chain's, from config.toml.

def test_the_codex_size_line_counts_the_chain_above_a_nested_agents_md(project: Path) -> None:
    from learn.report.health import budget_line, over_budget

    (project / "AGENTS.md").write_text("x" * 32_740)
    nested = project / "packages" / "api" / "AGENTS.md"
    nested.parent.mkdir(parents=True)
    text = "- Validate every request body.\n" * 10
    assert over_budget(nested, text, max_lines=200, max_bytes=25_000)
    line = budget_line(nested, text, max_lines=200, max_bytes=25_000)
    assert line.startswith("AGENTS.md: 32.3 KiB")
    assert "not read" in line


def test_the_codex_size_line_uses_project_doc_max_bytes(project: Path) -> None:
    from learn.report.health import budget_line, over_budget

    codex = _home(project) / ".codex"
    codex.mkdir(exist_ok=True)
    (codex / "config.toml").write_text("project_doc_max_bytes = 8192\n")
    text = "- a rule learn wrote.\n" * 400  # 8.6 KiB
    assert over_budget(project / "AGENTS.md", text, max_lines=200, max_bytes=10**6)
    assert "of Codex's 8 KiB" in budget_line(project / "AGENTS.md", text, max_lines=200,
                                            max_bytes=10**6)


# 8. `--agents`: Claude Code gets the file it reads, and an empty apply says why.

def test_agents_target_gives_claude_its_claude_md_when_it_does_not_import_agents_md(
        project: Path) -> None:
    (project / "CLAUDE.md").write_text("# shop\n")
    p = _proposal(project, "small-prs", "Keep pull requests small.")
    main = _main(p, project, "agents")
    assert main.target == project / "AGENTS.md"
    others = agent_edits(p, main, ["claude", "codex"], home=_home(project))
    assert [e.target for e in others] == [project / "CLAUDE.md"]


def test_agents_target_for_claude_alone_writes_claude_md(project: Path) -> None:
    from learn.commands.apply import command
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    (project / "CLAUDE.md").write_text("# shop\n")
    data = project.parent / "data"
    data.mkdir(exist_ok=True)
    with FeedbackStore.open(data / "learn.db") as store:
        ProposalBook(store).record([_proposal(project, "small-prs", "Keep pull requests small.")],
                                   run_id=None, fallback_project=str(project))
    res = CliRunner().invoke(command, ["--project", str(project), "--agents", "--agent",
                                       "claude", "--yes"])
    assert res.exit_code == 0, res.output
    assert "Keep pull requests small." in (project / "CLAUDE.md").read_text()
    assert not (project / "AGENTS.md").exists()


def test_an_apply_that_reaches_none_of_the_named_agents_says_why(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from learn.commands.apply_agents import ForAgents

    p = _proposal(project, "small-prs", "Keep pull requests small.", scope="user")
    choice = TargetChoice(project_dir=project, kind="agents", follow_quotes=True)
    main = _main(p, project, "agents")
    for_agents = ForAgents(choice, ("cursor",))  # Cursor keeps user rules in its settings
    assert for_agents.edits(p, main) == []
    assert not for_agents.keeps_main(main)
    assert "nothing written" in capsys.readouterr().err


# 10. Gemini reads the files its settings name.

def test_gemini_writes_the_file_its_context_setting_names(project: Path) -> None:
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(
        json.dumps({"context": {"fileName": "AGENTS.md"}}))
    p = _proposal(project, "small-prs", "Keep pull requests small.")
    main = _main(p, project)
    others = agent_edits(p, main, ["claude", "gemini"], home=_home(project))
    assert [e.target for e in others] == [project / "AGENTS.md"]
    assert "gemini" not in readers_of(project / "GEMINI.md", _home(project))


def test_gemini_reading_agents_md_among_its_files_gets_no_second_copy(project: Path) -> None:
    gemini = _home(project) / ".gemini"
    gemini.mkdir(exist_ok=True)
    (gemini / "settings.json").write_text(
        json.dumps({"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}))
    p = _proposal(project, "small-prs", "Keep pull requests small.")
    main = _main(p, project)
    others = agent_edits(p, main, ["claude", "codex", "gemini"], home=_home(project))
    assert [e.target for e in others] == [project / "AGENTS.md"]


def test_an_import_commented_out_is_no_import(project: Path) -> None:
    """Claude Code strips HTML comments: `<!-- @AGENTS.md -->` imports nothing, and Claude
    Code gets the rule in its CLAUDE.md."""
    (project / "CLAUDE.md").write_text("# shop\n\n<!-- @AGENTS.md -->\n")
    assert "claude" not in readers_of(project / "AGENTS.md", _home(project))
    p = _proposal(project, "small-prs", "Keep pull requests small.")
    main = _main(p, project, "agents")
    others = agent_edits(p, main, ["claude", "codex"], home=_home(project))
    assert [e.target for e in others] == [project / "CLAUDE.md"]


def test_a_claude_md_not_made_yet_is_kept_beside_the_agents_md(project: Path) -> None:
    """With no CLAUDE.md, Claude Code would read AGENTS.md; the CLAUDE.md this apply makes
    is what it reads then, and it imports nothing."""
    from learn.commands.apply_agents import ForAgents

    (project / ".codex").mkdir()
    (project / ".claude").mkdir()
    p = _proposal(project, "small-prs", "Keep pull requests small.")
    main = _main(p, project)
    for_agents = ForAgents(TargetChoice(project_dir=project, follow_quotes=True), ())
    assert [e.target for e in for_agents.edits(p, main)] == [project / "AGENTS.md"]
    assert for_agents.keeps_main(main)


def test_an_agent_whose_file_holds_only_an_unrelated_line_coverage_named_gets_the_rule(
        project: Path) -> None:
    # A steered coverage answer: "restated" at a line that shares no subject with the rule
    # (learn.report.claimed_line.unrelated_line). Codex, which reads that AGENTS.md, does not
    # have the rule: it gets it as a new line, and the line named stays.
    (project / "CLAUDE.md").write_text("# shop\n")
    (project / "AGENTS.md").write_text("# shop\n\n- Never push to main.\n")
    p = replace(_proposal(project, "use-bun", "Use bun for installs."),
                status="restated", existing_rule="Never push to main.",
                existing_rule_file=str(project / "AGENTS.md"))
    main = _main(p, project)
    (codex,) = agent_edits(p, main, ["claude", "codex"], home=_home(project))
    text = _planned([codex], project)["AGENTS.md"]
    assert "- Never push to main." in text
    assert text.count("Use bun for installs.") == 1
