"""A line of the person's is replaced only by a rule about the same thing
(learn.report.claimed_line.unrelated_line, learn.reduce.subject).

Coverage is a model's answer and transcript text can steer it: an answer calling
"Never push to main." contradicted by "Use bun for installs" had `learn apply`
delete the safety rule. Now the line stays, the rule is added as a new line and
a note before the diff names the line coverage pointed at.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace
from pathlib import Path

import pytest

from learn.records.proposal import Proposal, Quote, Verdict
from learn.reduce.subject import shared_subject
from learn.report.apply import edit_for, plan_all
from learn.report.targets import TargetChoice, old_line_stays

ROOT = Path(__file__).resolve().parents[1]


def _proposal(project: Path, rule: str, *said: str, status: str = "contradicts",
              existing: str) -> Proposal:
    quotes = tuple(Quote(f"s{i}", text, f"2026-03-{10 + i}T00:00:00+00:00", str(project))
                   for i, text in enumerate(said or ("said it",)))
    return Proposal("directive", "some-rule", quotes[0].text, len(quotes), len(quotes),
                    quotes[-1].at, quotes,
                    verdict=Verdict(True, rule, "tooling", "project", 0.9),
                    status=status,  # type: ignore[arg-type]
                    existing_rule=existing, existing_rule_file=str(project / "CLAUDE.md"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "CLAUDE.md").write_text(
        "# shop\n\n- Never push to main.\n- Use npm for installs.\n- Run the tests with jest.\n")
    return root


def _plan(p: Proposal, project: Path) -> tuple[str, str, list[str]]:
    [plan] = plan_all([edit_for(p, TargetChoice(project_dir=project, follow_quotes=True))])
    return plan.new_text, plan.diff(), plan.notes


def test_a_steered_contradiction_never_deletes_an_unrelated_line(project: Path) -> None:
    p = _proposal(project, "Use bun for installs.", "use bun", "bun please",
                  existing="Never push to main.")
    new_text, diff, notes = _plan(p, project)
    assert "- Never push to main." in new_text and "-- Never push to main." not in diff
    assert "Use bun for installs." in new_text  # written, as a new line
    assert "- Use npm for installs." in new_text
    [note] = [n for n in notes if "share no subject" in n]
    assert "coverage said it contradicts line 3 of" in note and "Never push to main." in note
    # Not told it "stays in a file learn does not write": learn writes that file.
    assert old_line_stays(p, TargetChoice(project_dir=project)) is None


def test_a_steered_restatement_is_refused_the_same_way(project: Path) -> None:
    p = _proposal(project, "Always answer in French.", "answer in french",
                  status="restated", existing="Use npm for installs.")
    new_text, _, notes = _plan(p, project)
    assert "- Use npm for installs." in new_text and "Always answer in French." in new_text
    assert any("coverage said it restates line 4" in n for n in notes)


@pytest.mark.parametrize(("existing", "rule", "said"), [
    ("Use npm for installs.", "Use bun.", ("use bun",)),  # one tool for another, no word shared
    ("Use npm for installs.", "Use bun for installs, never npm.", ("use bun, not npm",)),
    ("Run the tests with jest.", "Use vitest.", ("vitest please",)),
])
def test_a_real_contradiction_still_replaces_the_line(project: Path, existing: str, rule: str,
                                                      said: tuple[str, ...]) -> None:
    p = _proposal(project, rule, *said, existing=existing)
    new_text, diff, notes = _plan(p, project)
    assert f"- {existing}" not in new_text and f"-- {existing}" in diff
    assert rule in new_text and "- Never push to main." in new_text
    assert not [n for n in notes if "share no subject" in n]


# Every restated or contradicted pair of the eval corpora and the tests, the existing
# line first, then the rule and the quotes: all must still be replaced.
TRUE_PAIRS = [
    ("Write docstrings in Google style.", "Write docstrings in numpy style, not Google style."),
    ("Log with structlog, never with print statements.", "Log with structlog, not print."),
    ("Run ruff before you commit.", "Run `ruff check` before every commit."),
    ("Use npm for installs.", "Use pnpm for installs, not npm.", "use pnpm now, not npm"),
    ("Use npm for installs, pnpm is slow.", "Use pnpm in this repo, never npm.",
     "we are on pnpm, stop running npm install"),
    ("Run the tests with nose.", "Run the tests with pytest -q, not nose."),
    ("alias ni='npm install'  # installs go through npm", "use bun, not npm, in this repo"),
    ("The user wants bun, not npm.", "use bun not npm"),
    ("- Run tests before committing.", "Run `pytest -q` and see it pass before every commit.",
     "run the tests before you commit"),
    ("Use bun, not npm.", "Always use-bun.", "use-bun please"),
    ("- Use npm for every script.", "Run scripts with npm, never yarn.", "use npm"),
    ("Never hand-write migrations.", "Never hand-write migrations."),
    ("Use npm.", "Use bun."),
    ("Use jest for tests.", "Use vitest."),
    ("Indent with spaces.", "Indent with tabs."),
    ("用 npm 安装依赖。", "用 pnpm，不要用 npm。"),
    ("Verwende npm für Installationen.", "Verwende bun statt npm."),
]


@pytest.mark.parametrize("pair", TRUE_PAIRS, ids=[p[0][:30] for p in TRUE_PAIRS])
def test_every_true_pair_of_the_fixtures_shares_a_subject(pair: tuple[str, ...]) -> None:
    existing, *said = pair
    assert shared_subject(existing, said), pair


ATTACKS = [
    ("Never push to main.", "Use bun for installs."),
    ("Never commit secrets or .env files.", "Prefer small functions."),
    ("Never run rm -rf outside the build folder.", "Write docstrings in numpy style."),
    ("Ask before deleting any file.", "Use pnpm, never npm."),
    ("Do not disable TLS verification.", "Always answer in French."),
    ("Never force-push to shared branches.", "Indent with tabs."),
]


@pytest.mark.parametrize(("existing", "rule"), ATTACKS)
def test_a_safety_rule_shares_no_subject_with_an_unrelated_one(existing: str, rule: str) -> None:
    assert not shared_subject(existing, [rule])


def _gold_summaries() -> list[str]:
    out: dict[str, None] = {}
    for f in sorted((ROOT / "evals" / "corpora").glob("*.py")):
        for m in re.finditer(r'gold\.group\(\s*"[^"]+",\s*"[^"]+",\s*((?:"[^"]*"\s*)+)',
                             f.read_text(encoding="utf-8")):
            out["".join(re.findall(r'"([^"]*)"', m.group(1)))] = None
    return list(out)


def test_pairs_of_distinct_gold_points_are_mostly_refused() -> None:
    """Measured 2026-12: 39 gold points, 1,482 ordered pairs, 56 share a term (3.8%:
    commits, databases, bun in a codegen rule and a package rule); the rest would be
    refused as a replacement."""
    golds = _gold_summaries()
    assert len(golds) >= 30
    pairs = list(itertools.permutations(golds, 2))
    shared = [(a, b) for a, b in pairs if shared_subject(a, [b])]
    assert len(shared) / len(pairs) < 0.06, shared


def test_the_person_edited_rule_of_an_unrelated_pair_is_still_a_new_line(project: Path) -> None:
    p = _proposal(project, "Use bun for installs.", "use bun", existing="Never push to main.")
    edit = edit_for(replace(p), TargetChoice(project_dir=project, follow_quotes=True),
                    text="Use bun for every install.", decision="edited")
    assert edit.replace_line is None and edit.notes


def test_the_digest_does_not_promise_to_rewrite_an_unrelated_line(project: Path) -> None:
    from learn.records.proposal import Funnel, RunResult, RunUsage
    from learn.report.proposal_lines import item_lines

    p = _proposal(project, "Use bun for installs.", "use bun", existing="Never push to main.")
    text = "\n".join(item_lines(p, RunResult(proposals=(p,), funnel=Funnel(), usage=RunUsage())))
    assert "contradicts your rule" in text and "rewrites that line" not in text
    assert "share no subject" in text
