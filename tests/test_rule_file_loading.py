"""A rule lands in a file its agent loads when the rule should load, and nowhere else.

An unscoped rule (loaded always) never goes into a `learn.*` the person already has that
loads for some globs, or only on request (Cursor's agent-requested and manual rules,
Windsurf's `manual` and `model_decision`, Kiro's `manual`): it goes to `learn-2.*`, with
learn's always-loaded frontmatter. A file learn wrote itself is found again on a later
apply. Within one apply, two rules with the same file name but different scopes get a
file each, and two with the same scope share one."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.rule_places import frontmatter_value, strip_frontmatter
from learn.reduce.surfaces import paths_of

UNSCOPED = "Run the linter before every commit."
# A rule of the API's code, not of the workflow (a workflow rule is never scoped).
WRAPPED = "Wrap the handlers' errors in the shared error type."
API = "Return errors as RFC 7807 problem details."
DOCS = "Link every page from the docs index."
API_GLOBS = ("src/api/**",)
DOCS_GLOBS = ("docs/**",)
FOLDERS = (".cursor/rules", ".windsurf/rules", ".kiro/steering", ".claude/rules")
# Copilot's unscoped rules go to `.github/copilot-instructions.md`, its scoped ones here.
SCOPED_FOLDERS = (*FOLDERS, ".github/instructions")


def _proposal(root: Path, kind: str, label: str, rule: str, globs: tuple[str, ...] = (),
              category: str = "workflow") -> Proposal:
    quotes = tuple(Quote(f"{label}{kind}{i}", "said it", f"2026-03-2{i}T00:00:00+00:00",
                         str(root), agent="claude") for i in range(2))
    return Proposal(kind, label, "said it", 2, 2, quotes[0].at, quotes,  # type: ignore[arg-type]
                    verdict=Verdict(True, rule, category, "project", 0.9),
                    surface="path-rule" if globs else None, surface_rules=globs,
                    agents=(("claude", 2),))


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             proposals: list[tuple[str, str, str, tuple[str, ...]]]) -> Path:
    """A repository whose learn store holds `proposals` (kind, label, rule, globs)."""
    for name in ("DATA", "CONFIG", "CACHE"):
        monkeypatch.setenv(f"LEARN_{name}_DIR", str(tmp_path / name.lower()))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    for folder in SCOPED_FOLDERS:  # the project uses these agents: each gets the rule
        (root / folder).mkdir(parents=True)
    (tmp_path / "data").mkdir()
    _record(root, proposals)
    return root


def _record(root: Path, proposals: list[tuple[str, str, str, tuple[str, ...]]]) -> None:
    """`proposals` proposed by a run, pending."""
    from learn.paths import data_dir
    from learn.store.feedback import FeedbackStore
    from learn.store.proposals import ProposalBook

    with FeedbackStore.open(data_dir() / "learn.db") as store:
        ProposalBook(store).record([_proposal(root, *p) for p in proposals], run_id=None,
                                   fallback_project=str(root))


def _apply(project: Path, *args: str) -> str:
    from learn.commands.apply import command

    res = CliRunner().invoke(command, ["--project", str(project), *args])
    assert res.exit_code == 0, res.output
    return res.output


def _loads(path: Path) -> frozenset[str] | str:
    """When the file's agent loads it, read from its own keys: "always", "on request", or
    the globs. Written out per agent here, apart from learn's reader of the same keys."""
    text = path.read_text(encoding="utf-8")
    front, _ = strip_frontmatter(text)

    def value(key: str) -> str:
        v = frontmatter_value(front, key)
        return ",".join(v) if isinstance(v, list) else (v or "")

    def globs(key: str) -> frozenset[str]:
        return frozenset(g.strip() for g in value(key).split(",") if g.strip())

    if path.name.endswith(".instructions.md"):
        return globs("applyTo") or "on request"
    if path.suffix == ".mdc":
        if value("alwaysApply").lower() == "true":
            return "always"
        return globs("globs") or "on request"
    if ".windsurf" in path.parts:
        trigger = value("trigger")
        return "always" if trigger == "always_on" else \
            (globs("globs") or "on request") if trigger == "glob" else "on request"
    if ".kiro" in path.parts:
        inclusion = value("inclusion") or "always"  # Kiro's default
        return "always" if inclusion == "always" else \
            (globs("fileMatchPattern") or "on request") if inclusion == "fileMatch" \
            else "on request"
    return frozenset(paths_of(text)) or "always"  # Claude Code: `paths:`


def _holding(folder: Path, rule: str) -> list[Path]:
    return sorted(p for p in folder.iterdir() if rule in p.read_text(encoding="utf-8"))


NOT_ALWAYS = [
    (".cursor/rules/learn.mdc",
     "---\ndescription: API\nglobs: src/api/**\nalwaysApply: false\n---\n- Mine.\n"),
    (".cursor/rules/learn.mdc",  # agent requested: no globs, a description
     "---\ndescription: When writing migrations\nalwaysApply: false\n---\n- Mine.\n"),
    (".cursor/rules/learn.mdc", "---\nalwaysApply: false\n---\n- Mine, manual.\n"),
    (".cursor/rules/learn.mdc", "- Mine, no frontmatter: manual.\n"),
    (".windsurf/rules/learn.md", '---\ntrigger: glob\nglobs: "src/api/**"\n---\n- Mine.\n'),
    (".windsurf/rules/learn.md", "---\ntrigger: manual\n---\n- Mine.\n"),
    (".windsurf/rules/learn.md",
     "---\ntrigger: model_decision\ndescription: migrations\n---\n- Mine.\n"),
    (".kiro/steering/learn.md",
     '---\ninclusion: fileMatch\nfileMatchPattern: "src/api/**"\n---\n- Mine.\n'),
    (".kiro/steering/learn.md", "---\ninclusion: manual\n---\n- Mine.\n"),
    (".claude/rules/workflow.md", '---\npaths:\n  - "src/api/**"\n---\n- Mine.\n'),
]


@pytest.mark.parametrize("name, mine", NOT_ALWAYS)
def test_an_unscoped_rule_skips_a_same_named_file_not_loaded_always(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, mine: str) -> None:
    project = _project(tmp_path, monkeypatch, [("directive", "lint", UNSCOPED, ())])
    existing = project / name
    existing.write_text(mine)
    own = existing.with_name(existing.stem + "-2" + existing.suffix)

    _apply(project, "--target", "rules", "--yes")

    assert existing.read_text() == mine
    assert UNSCOPED in own.read_text()
    assert _loads(own) == "always"


ALWAYS = [
    (".cursor/rules/learn.mdc", "---\ndescription: mine\nalwaysApply: true\n---\n- Mine.\n"),
    (".windsurf/rules/learn.md", "---\ntrigger: always_on\n---\n- Mine.\n"),
    (".kiro/steering/learn.md", "---\ninclusion: always\n---\n- Mine.\n"),
    (".kiro/steering/learn.md", "- Mine, no frontmatter: Kiro includes it always.\n"),
    (".claude/rules/workflow.md", "# Workflow\n- Mine.\n"),
]


@pytest.mark.parametrize("name, mine", ALWAYS)
def test_an_unscoped_rule_joins_a_same_named_file_loaded_always(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, mine: str) -> None:
    project = _project(tmp_path, monkeypatch, [("directive", "lint", UNSCOPED, ())])
    existing = project / name
    existing.write_text(mine)

    _apply(project, "--target", "rules", "--yes")

    text = existing.read_text()
    assert text.startswith(mine) and UNSCOPED in text
    assert not list(existing.parent.glob("*-2*"))


def test_a_second_apply_finds_the_files_learn_wrote(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    proposals = [("directive", "lint", UNSCOPED, ()), ("directive", "api-errors", API, API_GLOBS)]
    project = _project(tmp_path, monkeypatch, proposals)
    _apply(project, "--target", "rules", "--yes")
    first = {p: p.read_text() for folder in FOLDERS for p in (project / folder).iterdir()}

    # Applied rules stay applied; `--only` names them again (one more pending is what
    # lets apply run at all).
    _record(project, [("fix", "unrelated", DOCS, ())])
    _apply(project, "--target", "rules", "--yes", "--only", "directive:lint",
           "--only", "directive:api-errors")

    after = {p: p.read_text() for folder in FOLDERS for p in (project / folder).iterdir()}
    assert after == first  # no `-2` file, no second copy of either rule
    for folder in FOLDERS:
        assert [_loads(p) for p in _holding(project / folder, UNSCOPED)] == ["always"]
        assert [_loads(p) for p in _holding(project / folder, API)] == [frozenset(API_GLOBS)]


def test_one_apply_gives_two_scopes_of_one_name_a_file_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Three labels of one file name (learn.report.targets.slug), two scopes: the third
    # rule shares the first's scope, and so its file.
    project = _project(tmp_path, monkeypatch, [
        ("directive", "api-errors", API, API_GLOBS),
        ("directive", "api_errors", DOCS, DOCS_GLOBS),
        ("fix", "api-errors", WRAPPED, API_GLOBS),
    ])

    _apply(project, "--yes")

    for folder in SCOPED_FOLDERS:
        api, docs, third = (_holding(project / folder, r) for r in (API, DOCS, WRAPPED))
        assert len(api) == len(docs) == 1, folder
        assert _loads(api[0]) == frozenset(API_GLOBS), folder
        assert _loads(docs[0]) == frozenset(DOCS_GLOBS), folder
        assert third == api, folder


def test_one_apply_keeps_an_unscoped_rule_and_a_scoped_one_of_one_name_apart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The scoped rule's label is the name of learn's file of unscoped rules.
    project = _project(tmp_path, monkeypatch, [("directive", "lint", UNSCOPED, ()),
                                               ("directive", "learn", API, API_GLOBS)])

    _apply(project, "--yes")

    for folder in (".cursor/rules", ".windsurf/rules", ".kiro/steering"):
        unscoped, scoped = (_holding(project / folder, r) for r in (UNSCOPED, API))
        assert [_loads(p) for p in unscoped] == ["always"], folder
        assert [_loads(p) for p in scoped] == [frozenset(API_GLOBS)], folder


@pytest.mark.parametrize("name, text, loads", [
    ("a.instructions.md", '---\napplyTo: "**"\n---\n', "always"),
    ("a.instructions.md", '---\napplyTo: "src/**"\n---\n', frozenset({"src/**"})),
    ("a.instructions.md", "---\ndescription: attach me\n---\n", "on request"),
    (".cursor/rules/a.mdc", "---\nglobs: src/**\nalwaysApply: true\n---\n", "always"),
    (".windsurf/rules/a.md", "- No frontmatter.\n", "on request"),
    (".kiro/steering/a.md", "---\ninclusion: auto\n---\n", "on request"),
    (".claude/rules/a.md", '---\npaths: ["src/**"]\n---\n', frozenset({"src/**"})),
])
def test_a_rule_file_loads_as_its_agent_reads_its_keys(name: str, text: str,
                                                        loads: object) -> None:
    from learn.reduce.agent_files import loading

    assert loading(text, Path("/p") / name) == loads
