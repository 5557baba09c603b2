"""What a proposal's lines say of a rule already in place, in the digest and the report,
and what its "of your last N sessions" counts.

- learn.report.proposal_lines.item_lines says the rule's outcome itself
  (learn.report.outcomes.in_place_line): the digest had to hand it a copy of the
  proposal marked "new" to drop coverage's "already written ... so that rule is not
  working", and any other caller of item_lines still said it;
- an applied rule is no proposal: no "proposed rule" line (`learn apply` answers "nothing
  to apply"), no "applied before ... may not be working" beside the measure;
- the report's card said "and still said again" of every restated rule, and "you still had
  to say it" of a memory line, whatever was said since;
- a project's digest over a run of every project said "said in 2 of your last 5 sessions"
  where the project had 4 (the fifth started in the home folder).

The rules, quotes and paths are written for this test.
"""

from __future__ import annotations

import dataclasses
from html import escape
from pathlib import Path

import pytest

from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage, Verdict
from learn.reduce.outcomes import InPlace, Said, rule_outcomes
from learn.report import runs
from learn.report.digest import render_digest_markdown
from learn.report.html import render_html
from learn.report.proposal_lines import item_lines

KEY = "directive:wrap-at-ninety"
RULE = "Wrap Python lines at 90 columns."
WRITTEN = "2026-11-10T00:00:00+00:00"
STARTS = {"b1": "2026-11-02T09:00:00+00:00", "b2": "2026-11-05T09:00:00+00:00",
          "s1": "2026-11-12T09:00:00+00:00", "s2": "2026-11-14T09:00:00+00:00"}
WORDS = {"b1": "lines stop at ninety columns here", "b2": "keep it under 90 columns please",
         "s1": "ninety columns, not a hundred and twenty"}


def _result(said: tuple[str, ...], *, state: str | None = None,
            rule_file: str = "/p/CLAUDE.md", measured: bool = True) -> RunResult:
    """The wrap-at-ninety point restated, said in sessions `said` (ids of STARTS), its rule
    in place since WRITTEN in /p/CLAUDE.md (`state` "applied": learn wrote it)."""
    rows = [Said(s, STARTS[s], "wrap-at-ninety", "directive", WORDS[s], "/p") for s in said]
    quotes = tuple(Quote(r.session_id, r.text, r.started_at, "/p") for r in reversed(rows))
    p = Proposal("directive", "wrap-at-ninety", quotes[0].text, len(quotes), len(quotes),
                 quotes[0].at, quotes, status="restated", existing_rule=RULE,
                 existing_rule_file=rule_file,
                 verdict=Verdict(True, RULE, "style", "project", 0.9))
    extra: dict[str, object] = {"states": {KEY: state} if state else {}}
    if measured:
        [o] = rule_outcomes([InPlace(KEY, RULE, rule_file, WRITTEN, project="/p")], rows,
                            STARTS)
        extra["outcomes"] = [o.to_json()]
    return RunResult(proposals=(p,), funnel=Funnel(), usage=RunUsage(sessions_seen=4),
                     extra=extra)


def test_item_lines_say_the_outcome_of_a_rule_first_said_before_it_was_written() -> None:
    result = _result(("b1", "b2"))
    lines = "\n".join(item_lines(result.proposals[0], result))
    # Called by itself, not through the digest's copy of the proposal.
    assert "not working" not in lines
    assert (f'already written in `/p/CLAUDE.md`: "{RULE}" (in place since 2026-11-10) — '
            "not said again in the 2 sessions that started since and loaded it") in lines
    assert lines.count("already written") == 1
    assert lines.count("already written") == render_digest_markdown(result).count(
        "already written")


def test_item_lines_call_a_rule_said_since_it_was_written_not_working() -> None:
    result = _result(("b1", "s1"))
    lines = "\n".join(item_lines(result.proposals[0], result))
    assert ("(in place since 2026-11-10) — said again in 1 of the 2 sessions since, so that "
            "rule is not working: rewrite that line rather than adding another") in lines
    # Pending, not applied: what `learn apply` writes is still said.
    assert f"proposed rule (project scope, style, confidence 0.90): {RULE}" in lines


def test_an_applied_rule_is_no_proposal_and_says_only_its_measure() -> None:
    for said in (("b1", "s1"), ("b1", "b2")):
        result = _result(said, state="applied")
        md = render_digest_markdown(result)
        item = md[md.index("**wrap-at-ninety**"):md.index("## What to do")]
        item = item[:item.find("## Did the rules work?")]
        assert "proposed rule" not in item
        assert "applied before" not in item
        assert f"applied to `/p/CLAUDE.md` on 2026-11-10: \"{RULE}\"" in item
    # Nor where apply would write it: a rule only for some paths is written already.
    result = _result(("b1", "s1"), state="applied")
    scoped = dataclasses.replace(result.proposals[0], surface="path-rule",
                                 surface_rules=("src/**/*.py",))
    lines = "\n".join(item_lines(scoped, result))
    assert "`learn apply`" not in lines.replace(
        "`learn apply` does not write an applied rule again", "")
    assert "written to .claude/rules/" not in lines
    pending = "\n".join(item_lines(scoped, _result(("b1", "s1"))))
    assert "written to .claude/rules/ with `paths:`" in pending
    # Said since: not working, and the step that exists (apply writes it no more).
    said_since = render_digest_markdown(_result(("b1", "s1"), state="applied"))
    assert "so that rule is not working: `learn apply` does not write an applied rule " \
           "again" in said_since


def test_a_restated_rule_with_no_measure_is_not_called_not_working() -> None:
    result = _result(("b1", "s1"), measured=False)
    lines = "\n".join(item_lines(result.proposals[0], result))
    assert "not working" not in lines and "you still had to say it" not in lines
    assert ("not measured against the sessions since it was in place: if you said it after "
            "it was written, rewrite it rather than adding another") in lines


def test_the_report_card_says_what_the_outcome_says() -> None:
    before = render_html(_result(("b1", "b2")))
    assert "still said again" not in before and "not working" not in before
    assert "not said again in the 2 sessions that started since and loaded it" in before
    assert "in place since 2026-11-10" in before
    since = render_html(_result(("b1", "s1")))
    assert "said again in 1 of the 2 sessions since, so that rule is not working" in since
    applied = render_html(_result(("b1", "s1"), state="applied"))
    assert "Proposed rule" not in applied
    assert "applied to /p/CLAUDE.md on 2026-11-10" in applied


def test_the_report_card_of_a_memory_line_does_not_claim_it_was_said_since(
        home_and_shop: tuple[Path, Path]) -> None:
    memory = home_and_shop[0] / ".claude" / "projects" / "-p" / "memory" / "MEMORY.md"
    said = _result(("b1", "b2"), rule_file=str(memory), measured=False)
    html = render_html(said)
    assert "Promote from memory to CLAUDE.md" in html
    assert "you still had to say it" not in html
    md = render_digest_markdown(said)
    assert "promote from memory to CLAUDE.md" in md and "you still had to say it" not in md


@pytest.fixture
def home_and_shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home = tmp_path / "home"
    shop = home / "code" / "shop"
    (shop / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home, shop


def _every_project_run(home: Path, shop: Path) -> RunResult:
    """A run over every project: 4 sessions counted in shop, 1 started in the home folder;
    the point said in 2 of shop's."""
    quotes = (Quote("s2", "keep it under 90 columns please", STARTS["s2"], str(shop)),
              Quote("s1", "ninety columns, not a hundred and twenty", STARTS["s1"], str(shop)))
    p = Proposal("directive", "wrap-at-ninety", quotes[0].text, 2, 2, quotes[0].at, quotes,
                 verdict=Verdict(True, RULE, "style", "project", 0.9))
    return RunResult(proposals=(p,), funnel=Funnel(),
                     usage=RunUsage(sessions_seen=5, sessions_mined=5),
                     projects=(str(home), str(shop)),
                     extra={"counted_per_project": {str(shop): 4, str(home): 1}})


def test_a_project_digest_counts_out_of_the_projects_own_sessions(
        home_and_shop: tuple[Path, Path]) -> None:
    home, shop = home_and_shop
    run = _every_project_run(home, shop)
    # The run's own digest, over every project: every session counted.
    assert "said in 2 of your last 5 sessions" in render_digest_markdown(run)

    def loader(since: object, project: str | None, every_state: bool) -> RunResult:
        extra = {**run.extra, "view": "pending", "project": project, "pending": []}
        return dataclasses.replace(run, extra=extra)

    runs.set_proposal_loader(loader)
    try:
        shown = runs.load_proposals(None, str(shop))
        every = runs.load_proposals(None, None)
    finally:
        runs.set_proposal_loader(None)
    assert shown is not None and every is not None
    md = render_digest_markdown(shown)
    assert "said in 2 of your last 4 sessions" in md
    assert "2 of your last 4 sessions" in render_html(shown)
    assert "said in 2 of your last 5 sessions" in render_digest_markdown(every)


def test_a_run_stored_before_its_projects_counts_keeps_its_total(
        home_and_shop: tuple[Path, Path]) -> None:
    home, shop = home_and_shop
    run = _every_project_run(home, shop)
    old = dataclasses.replace(run, extra={"project": str(shop)})
    assert "said in 2 of your last 5 sessions" in render_digest_markdown(old)


def test_a_project_digest_header_says_how_many_of_the_runs_sessions_are_its_own(
        home_and_shop: tuple[Path, Path]) -> None:
    home, shop = home_and_shop
    run = _every_project_run(home, shop)
    # Over every project the header is the run's own: no project's share to name.
    assert "of them were" not in render_digest_markdown(run)
    shown = dataclasses.replace(run, extra={**run.extra, "project": str(shop)})
    header = render_digest_markdown(shown).splitlines()[0]
    # "Read 5 sessions" is the run's; the counts below are out of shop's 4, and it says so.
    assert "Read 5 sessions" in header
    assert f"4 of them were `{shop}`'s: the counts below are out of those." in header
    html = render_html(shown)
    assert "5 sessions read (5 counted)" in html
    assert escape(f"4 of them were {shop}'s: the counts below are out of those.") in html
    # Every session the project's: nothing to add.
    alone = dataclasses.replace(run, extra={"counted_per_project": {str(shop): 5},
                                            "project": str(shop)})
    assert "of them" not in render_digest_markdown(alone).splitlines()[0]
