"""A path-scoped rule is written under its own globs: a file of the same name already in
the agent's rule folder, scoped to other globs or loaded always, is left byte for byte as
it is and the rule goes to `<name>-2`, which the preview names; a file scoped to the same
set of globs takes the rule in."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.agent_files import scope_globs
from learn.reduce.surfaces import paths_of

GLOBS = ("src/api/**", "**/*.test.ts")
RULE = "Return errors as RFC 7807 problem details."


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook
    from learn.store.scan_tables import ScannedSession, ScanTables

    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    quotes = tuple(Quote(f"s{i}", "said it", f"2026-03-2{i}T00:00:00+00:00", str(root),
                         agent="claude") for i in range(2))
    p = Proposal("directive", "api-errors", "said it", 2, 2, quotes[0].at, quotes,
                 verdict=Verdict(True, RULE, "workflow", "project", 0.9),
                 surface="path-rule", surface_rules=GLOBS, agents=(("claude", 2),))
    (tmp_path / "data").mkdir()
    with FeedbackStore.open(tmp_path / "data" / "learn.db") as store:
        ProposalBook(store).record([p], run_id=None, fallback_project=str(root))
        ScanTables(store).record_session(ScannedSession("s1", "copilot", str(root), "/x/s1", "h",
                                                        None, 0, "2026-03-20T00:00:00+00:00"))
    return root


def _apply(project: Path, *args: str) -> str:
    from learn.commands.apply import command

    res = CliRunner().invoke(command, ["--project", str(project), *args])
    assert res.exit_code == 0, res.output
    return res.output


def _scope(path: Path) -> frozenset[str]:
    text = path.read_text(encoding="utf-8")
    return frozenset(paths_of(text) if ".claude" in path.parts else scope_globs(text, path))


OTHER_SCOPE = [
    (".claude/rules/api-errors.md", '---\npaths:\n  - "docs/**"\n---\n# Docs\n- Mine.\n'),
    (".claude/rules/api-errors.md", "# API\n- Mine, loaded always.\n"),
    (".cursor/rules/api-errors.mdc", "---\ndescription: mine\nalwaysApply: true\n---\n- Mine.\n"),
    (".cursor/rules/api-errors.mdc",
     "---\ndescription: mine\nglobs: src/api/**\nalwaysApply: false\n---\n- Mine.\n"),
    (".github/instructions/api-errors.instructions.md", '---\napplyTo: "docs/**"\n---\n- Mine.\n'),
    (".kiro/steering/api-errors.md", "---\ninclusion: always\n---\n- Mine.\n"),
    (".windsurf/rules/api-errors.md", '---\ntrigger: glob\nglobs: "docs/**"\n---\n- Mine.\n'),
]


@pytest.mark.parametrize("name, mine", OTHER_SCOPE)
def test_a_same_named_file_scoped_otherwise_is_left_and_the_rule_gets_its_own(
        project: Path, name: str, mine: str) -> None:
    existing = project / name
    existing.parent.mkdir(parents=True)
    existing.write_text(mine)
    own = existing.with_name(existing.name.replace("api-errors", "api-errors-2"))

    dry = _apply(project, "--dry-run")
    assert f"+++ {own}" in dry and f"+++ {existing}" not in dry

    _apply(project, "--yes")
    assert existing.read_text() == mine
    assert RULE in own.read_text()
    assert _scope(own) == frozenset(GLOBS)


SAME_SCOPE = [
    (".claude/rules/api-errors.md",
     '---\npaths:\n  - "**/*.test.ts"\n  - "src/api/**"\n---\n- Mine.\n'),  # order aside
    (".cursor/rules/api-errors.mdc",
     "\ufeff---\r\ndescription: mine\r\nglobs: src/api/**,**/*.test.ts\r\n---\r\n- Mine.\r\n"),
    (".kiro/steering/api-errors.md",
     '---\ninclusion: fileMatch\nfileMatchPattern: ["src/api/**", "**/*.test.ts"]\n---\n- M.\n'),
]


@pytest.mark.parametrize("name, mine", SAME_SCOPE)
def test_a_same_named_file_scoped_the_same_takes_the_rule(project: Path, name: str,
                                                          mine: str) -> None:
    existing = project / name
    existing.parent.mkdir(parents=True)
    existing.write_bytes(mine.encode())

    _apply(project, "--yes")

    text = existing.read_bytes().decode()
    assert text.startswith(mine) and RULE in text
    assert not list(existing.parent.glob("api-errors-2*"))


def test_a_rules_folder_that_is_a_file_gives_the_first_name_to_be_refused(
        tmp_path: Path) -> None:
    from learn.report.scoped_files import scoped_file

    folder = tmp_path / "rules"
    folder.write_text("not a folder")
    # Every name is unreadable: the search ends, and planning says why it cannot write.
    assert scoped_file(folder, "api", ".md", frozenset(GLOBS)) == folder / "api.md"
