"""A session run inside Codex's own home (~/.codex) does not make ~/.codex a project.

Found running learn on real Codex sessions: the person started Codex in ~/.codex to
fix its config ("danger-full-access is set, why doesn't it work?"), and learn listed
`~/.codex` as a project of its own ("said in 2 projects: …/ai-hack-starter,
/home/kei/.codex"). A project-scope rule said there is planned into that "project's"
AGENTS.md, which is ~/.codex/AGENTS.md: the file Codex loads in every project, so a
rule judged to belong to one project becomes everyone's, without the user-scope
question being asked (and a CLAUDE.md is made in ~/.codex beside it). learn refuses the
home folder itself as a project (learn/report/targets.py `_home_or_above`); the agents'
homes (~/.codex, ~/.claude) are not refused.

Modules: learn/report/targets.py (`project_for`, `choose`), learn/projects (which
folder is a project).

Fixed: an agent's own folder, and anything in it, is no project (learn.projects.
agent_homes); `learn apply` refuses it as it refuses the home folder
(tests/test_f1_agent_homes_are_no_project.py for CLAUDE_CONFIG_DIR, sub-folders, the
listing and the write check).

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _said_to_agents import learn_dirs, record, said_quotes
from click.testing import CliRunner

from learn.records.proposal import Proposal, Verdict


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    learn_dirs(tmp_path, monkeypatch)
    home = Path.home() / ".codex"
    (home / "sessions").mkdir(parents=True)
    (home / "config.toml").write_text('model = "some-model"\n')
    return home


def _record(tmp_path: Path, where: Path) -> None:
    quotes = said_quotes(where, ("codex", "codex"), "check the sandbox setting in config.toml first",
                         prefix="cx")
    record(tmp_path, where,
           Proposal("directive", "check-sandbox-setting", quotes[0].text, 2, 2, quotes[0].at,
                    quotes,
                    verdict=Verdict(True, "Check the sandbox setting in config.toml first.",
                                    "tooling", "project", 0.8),
                    agents=(("codex", 2),)))


def test_project_rule_said_in_codex_home_is_not_written_to_the_global_agents_md(
        tmp_path: Path, codex_home: Path) -> None:
    from learn.commands.apply import command

    _record(tmp_path, codex_home)
    res = CliRunner().invoke(command, ["--project", str(codex_home), "--dry-run"])
    assert f"+++ {codex_home / 'AGENTS.md'}" not in res.output
    assert f"+++ {codex_home / 'CLAUDE.md'}" not in res.output
