"""Rule corpus collection and the coverage check."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from _reduce_helpers import ScriptedBackend, TopicEmbedder, failing, items_of, section
from fakes.anthropic_server import FakeAnthropicServer

from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import ModelRequest
from learn.models.retry import RetryPolicy
from learn.records.proposal import Proposal
from learn.reduce.coverage import check_coverage
from learn.reduce.rules import (
    RuleCorpus,
    RuleLine,
    Skill,
    collect_rules,
    frontmatter_fields,
    rule_lines_of,
)

DOC = """---
paths: src/**
---
# Tools
Use bun for everything.

## Git
- never force push
  <!-- a comment -->
```bash
git push --force   # not a rule
```

# Style
1. be concise
"""


def test_rule_lines_keep_heading_paths_and_drop_fences_blank_lines_and_frontmatter() -> None:
    lines = rule_lines_of(DOC, "/x/CLAUDE.md", "user")
    assert [(r.heading, r.text) for r in lines] == [
        (("Tools",), "Use bun for everything."),
        (("Tools", "Git"), "never force push"),
        (("Style",), "be concise"),
    ]
    assert lines[1].display() == "Tools > Git > never force push"
    assert all(r.file == "/x/CLAUDE.md" and r.scope == "user" for r in lines)


def test_skill_frontmatter_folds_block_descriptions() -> None:
    text = '---\nname: release\ndescription: >\n  Cut a release:\n  bump, tag, push.\nother: "x"\n---\nbody'
    assert frontmatter_fields(text) == {"name": "release", "description": "Cut a release: bump, tag, push.", "other": "x"}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_collect_rules_reads_every_rule_file_and_skill(tmp_path: Path, _isolated_home: Path) -> None:
    home = _isolated_home
    repo = tmp_path / "repo"
    project = repo / "pkg" / "app"
    (repo / ".git").mkdir(parents=True)
    write(home / ".claude" / "CLAUDE.md", "# Me\n- user claude rule\n")
    write(home / ".claude" / "rules" / "git.md", "- user rules-dir rule\n")
    write(home / ".codex" / "AGENTS.md", "- codex user rule\n")
    write(tmp_path / "AGENTS.md", "- above the git root: not read\n")
    write(repo / "AGENTS.md", "- repo root agents rule\n")
    write(repo / "pkg" / "AGENTS.md", "- pkg agents rule\n")
    write(project / "AGENTS.md", "- app agents rule\n")
    write(project / "CLAUDE.md", "# App\n## Build\n- project claude rule\n")
    write(project / ".claude" / "CLAUDE.md", "- dot-claude rule\n")
    write(project / ".claude" / "rules" / "style.md", "- project rules-dir rule\n")
    write(project / "CLAUDE.local.md", "- local rule\n")
    write(home / ".claude" / "skills" / "release" / "SKILL.md", "---\nname: release\ndescription: Cut a release\n---\n")
    write(project / ".claude" / "skills" / "deploy" / "SKILL.md", "---\ndescription: 'Deploy the app'\n---\n")
    write(project / ".claude" / "skills" / "empty" / "SKILL.md", "no frontmatter\n")

    corpus = collect_rules(project)
    texts = [r.text for r in corpus.rules]
    assert texts == [
        "user claude rule", "user rules-dir rule", "codex user rule", "repo root agents rule",
        "pkg agents rule", "project claude rule", "app agents rule", "dot-claude rule",
        "project rules-dir rule", "local rule",
    ]
    by_text = {r.text: r for r in corpus.rules}
    assert by_text["project claude rule"].heading == ("App", "Build")
    assert by_text["project claude rule"].file == str(project / "CLAUDE.md")
    assert by_text["user claude rule"].scope == "user"
    assert by_text["local rule"].scope == "project"
    assert [(s.name, s.description, s.scope) for s in corpus.skills] == [
        ("release", "Cut a release", "user"), ("deploy", "Deploy the app", "project"),
    ]


def prop(label: str, text: str, kind: str = "directive") -> Proposal:
    return Proposal(kind=kind, label=label, text=text, sessions=2, count=2, last_seen=None, quotes=())  # type: ignore[arg-type]


CORPUS = RuleCorpus(
    rules=(
        RuleLine("/r/CLAUDE.md", ("Tools",), "We use bun for everything; never npm"),
        RuleLine("/r/CLAUDE.md", ("Git",), "never force push"),
    ),
    skills=(Skill("write-docs", "Write the docs for a change", "/s/SKILL.md"),),
)
PROPOSALS = [prop("use-bun-not-npm", "use bun"), prop("write-docs-please", "write the docs"),
             prop("be-concise-please", "be concise"), prop("mock-nothing-ever", "no mocks")]


def answer_by_text(request: ModelRequest) -> Mapping[str, Any]:
    out: list[dict[str, Any]] = []
    for i, _, text in items_of(request.user):
        if "bun" in text:
            out.append({"id": i, "verdict": "rule", "rule_index": 0})
        elif "docs" in text:
            out.append({"id": i, "verdict": "skill", "skill_index": 0})
        elif "concise" in text:
            out.append({"id": i, "verdict": "rule", "rule_index": 99})
        else:
            out.append({"id": i, "verdict": "new"})
    return {"verdicts": out}


def test_verdicts_set_status_existing_rule_and_file() -> None:
    backend = ScriptedBackend(answer_by_text)
    result = check_coverage(PROPOSALS, CORPUS, backend=backend, model="m", embedder=TopicEmbedder())
    (req,) = backend.requests
    assert req.tool.name == "check_coverage"
    assert section(req.user, "RULES") == ["Tools > We use bun for everything; never npm", "Git > never force push"]
    assert section(req.user, "SKILLS") == ["write-docs — Write the docs for a change"]
    assert req.user.index("RULES:") < req.user.index("SKILLS:") < req.user.index("ITEMS:")
    bun, docs, concise, mocks = result.proposals
    assert (bun.status, bun.existing_rule, bun.existing_rule_file) == (
        "restated", "We use bun for everything; never npm", "/r/CLAUDE.md")
    assert (docs.status, docs.existing_rule, docs.existing_rule_file) == ("has-skill", "write-docs", "/s/SKILL.md")
    assert concise.status == "new" and concise.existing_rule is None  # out-of-range index
    assert mocks.status == "new"
    assert not result.failed and result.calls == 1


def test_rules_are_shortlisted_by_vector() -> None:
    many = tuple(RuleLine("/r/CLAUDE.md", (), f"filler rule number {i}") for i in range(50))
    corpus = RuleCorpus(rules=(*many, RuleLine("/r/CLAUDE.md", (), "bun, not npm")), skills=())
    backend = ScriptedBackend(lambda r: {"verdicts": []})
    check_coverage([prop("use-bun-not-npm", "use bun")], corpus, backend=backend, model="m",
                   embedder=TopicEmbedder(), k=3)
    rules = section(backend.requests[0].user, "RULES")
    assert "bun, not npm" in rules and len(rules) == 3


def test_a_failed_call_leaves_everything_new_and_sets_failed() -> None:
    result = check_coverage(PROPOSALS, CORPUS, backend=ScriptedBackend(failing), model="m",
                            embedder=TopicEmbedder())
    assert result.failed
    assert all(p.status == "new" for p in result.proposals)
    assert result.failures


def test_no_rules_means_no_call() -> None:
    backend = ScriptedBackend(answer_by_text)
    result = check_coverage(PROPOSALS, RuleCorpus(), backend=backend, model="m", embedder=TopicEmbedder())
    assert backend.requests == [] and not result.failed and result.skipped


def test_only_the_requested_kinds_are_checked() -> None:
    backend = ScriptedBackend(answer_by_text)
    props = [prop("use-bun-not-npm", "use bun", kind="request"), prop("use-bun-always", "bun", kind="directive")]
    result = check_coverage(props, CORPUS, backend=backend, model="m", embedder=TopicEmbedder(), kinds=("directive",))
    assert [k for _, k, _ in items_of(backend.requests[0].user)] == ["directive"]
    assert [p.status for p in result.proposals] == ["new", "restated"]


@pytest.mark.parametrize("status", [500])
def test_server_error_through_the_sdk_fails_coverage(status: int) -> None:
    with FakeAnthropicServer() as fake:
        fake.enqueue_status(status, times=2)
        backend = AnthropicBackend(api_key="k", base_url=fake.base_url,
                                   retry=RetryPolicy(max_attempts=2, sleep=lambda s: None))
        result = check_coverage(PROPOSALS, CORPUS, backend=backend, model="claude-sonnet-4-5",
                                embedder=TopicEmbedder())
        assert result.failed and all(p.status == "new" for p in result.proposals)
        assert fake.requests[0].tool_name == "check_coverage"
