"""Did the rule work: outcomes per rule in place, the book's written rules, digest and report."""

from __future__ import annotations

import dataclasses
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage, Verdict
from learn.reduce.in_place import measure, record_written, rules_in_place
from learn.reduce.outcomes import (
    MIN_SESSIONS_SINCE,
    InPlace,
    Said,
    outcome_from_json,
    rule_outcomes,
    verdict_for,
)
from learn.report.digest import render_digest_markdown
from learn.report.html import render_html
from learn.store.feedback import FeedbackStore
from learn.store.proposals import ProposalBook

APPLIED = "2026-03-10T12:00:00+00:00"


def starts(before: int, since: int, prefix: str = "s") -> dict[str, str | None]:
    """`before` sessions in early March, `since` from mid March on, one a day."""
    out: dict[str, str | None] = {}
    for i in range(before):
        out[f"{prefix}b{i}"] = f"2026-03-0{1 + i % 9}T09:00:00+00:00"
    for i in range(since):
        out[f"{prefix}a{i}"] = f"2026-03-{11 + i:02d}T09:00:00+00:00"
    return out


def said(sid: str, at: str | None, label: str, text: str, kind: str = "directive") -> Said:
    return Said(sid, at, label, kind, text, "/p")


def test_verdicts_holding_ignored_too_early() -> None:
    s = starts(4, MIN_SESSIONS_SINCE) | starts(0, 2, prefix="t")
    rules = [InPlace("directive:no-push", "Never run git push.", "/p/CLAUDE.md", APPLIED),
             InPlace("directive:use-bun", "Use bun.", "/p/CLAUDE.md", APPLIED),
             InPlace("directive:uv-only", "Use uv.", "/p/CLAUDE.md", APPLIED)]
    occ = [said("sb0", s["sb0"], "no-push", "don't push"), said("sb1", s["sb1"], "no-push", "no push"),
           said("sa3", s["sa3"], "no-push", "I said do not push!"),
           said("sb2", s["sb2"], "use-bun", "use bun"), said("sb3", s["sb3"], "use-bun", "bun!")]
    by_key = {o.key: o for o in rule_outcomes(rules, occ, s)}
    push = by_key["directive:no-push"]
    assert push.verdict == "ignored"
    assert (push.said_before, push.said_since) == (2, 1)
    assert [q.text for q in push.quotes_since] == ["I said do not push!"]
    assert push.sessions_since == MIN_SESSIONS_SINCE + 2 and push.sessions_before == 4
    assert by_key["directive:use-bun"].verdict == "holding"
    assert by_key["directive:use-bun"].said_before == 2

    few = {k: v for k, v in s.items() if not k.startswith("sa")}
    assert rule_outcomes(rules[1:2], occ, few)[0].verdict == "too-early"
    assert verdict_for(MIN_SESSIONS_SINCE - 1, 0) == "too-early"
    assert verdict_for(MIN_SESSIONS_SINCE, 0) == "holding"
    assert verdict_for(1, 1) == "ignored"


def test_a_session_started_before_the_rule_is_before_even_if_it_ended_after() -> None:
    s = {"long": "2026-03-10T11:00:00+00:00", "new": "2026-03-10T12:30:00+00:00"}
    rule = InPlace("directive:x", "X.", "f", APPLIED)
    out = rule_outcomes([rule], [said("long", s["long"], "x", "x please")], s)[0]
    assert (out.said_before, out.said_since, out.sessions_since) == (1, 0, 1)


def test_the_same_correction_under_another_label_by_canonical_key_or_meaning() -> None:
    s = starts(1, 2)
    rule = InPlace("directive:no-push", "Never run git push.", "f", APPLIED,
                   canonical_key="vcs.no-push", evidence=("do not push to origin",))
    other = [said("sa0", s["sa0"], "stop-pushing", "stop pushing my branch")]
    judged = Proposal("directive", "stop-pushing", "stop pushing my branch", 1, 1, None, (),
                      verdict=Verdict(True, "Never push.", "vcs", "project", 0.9,
                                      canonical_key="vcs.no-push"))
    assert rule_outcomes([rule], other, s)[0].verdict == "too-early"  # not matched
    by_canon = rule_outcomes([rule], other, s, proposals=[judged])[0]
    assert by_canon.verdict == "ignored" and by_canon.matched_labels == ("stop-pushing",)

    def similar(anchor: Sequence[str], texts: Sequence[str]) -> float:
        return 0.9 if any("push" in t for t in texts) and any("push" in a for a in anchor) else 0.1

    unrelated = [said("sa1", s["sa1"], "tabs", "use tabs")]
    by_meaning = rule_outcomes([rule], other + unrelated, s, similar=similar, similarity=0.8)[0]
    assert by_meaning.matched_labels == ("stop-pushing",)
    assert by_meaning.said_since == 1
    # Another kind is never the same correction, however close the words.
    fix = [said("sa0", s["sa0"], "push-fix", "push failed", kind="fix")]
    assert rule_outcomes([rule], fix, s, similar=similar, similarity=0.5)[0].said_since == 0


def test_a_rule_of_one_project_counts_only_that_projects_sessions() -> None:
    s = starts(0, 6)
    projects = {sid: ("/p" if i < 2 else "/q") for i, sid in enumerate(s)}
    rule = InPlace("directive:x", "X.", "f", APPLIED, project="/p")
    out = rule_outcomes([rule], [said("sa3", s["sa3"], "x", "x!")], s,
                        session_projects=projects)[0]
    assert (out.sessions_since, out.said_since, out.verdict) == (2, 0, "too-early")


def test_the_newest_write_of_a_key_is_the_baseline_and_json_round_trips() -> None:
    s = starts(0, 3)
    old = InPlace("directive:x", "X.", "f", "2026-03-01T00:00:00+00:00")
    new = InPlace("directive:x", "X, really.", "f", "2026-03-12T00:00:00+00:00")
    out = rule_outcomes([new, old], [said("sa0", s["sa0"], "x", "x!")], s)
    assert len(out) == 1 and out[0].rule_text == "X, really."
    assert (out[0].said_before, out[0].said_since) == (1, 0)
    assert outcome_from_json(out[0].to_json()) == out[0]


def _proposal(label: str, *, status: str = "new", rule: str | None = None,
              project: str = "/p") -> Proposal:
    q = (Quote("s1", f"{label} please", "2026-03-01T00:00:00+00:00", project),
         Quote("s2", f"{label} again", "2026-03-02T00:00:00+00:00", project))
    return Proposal("directive", label, f"{label} please", 2, 2, q[1].at, q,
                    status=status, existing_rule=rule,  # type: ignore[arg-type]
                    existing_rule_file="/p/CLAUDE.md" if rule else None,
                    verdict=Verdict(True, f"Always {label}.", "style", "project", 0.9))


def test_a_rule_the_person_wrote_counts_from_first_sight_once(tmp_path: Path) -> None:
    with FeedbackStore.open(tmp_path / "learn.db") as store:
        book = ProposalBook(store)
        restated = _proposal("use-bun", status="restated", rule="Use bun, not npm.")
        assert record_written(book, [restated, _proposal("tabs")], "/p",
                              at="2026-03-10T00:00:00+00:00") == ["directive:use-bun"]
        assert record_written(book, [restated], "/p") == []  # first sight only
        [rule] = rules_in_place(book, "/p")
        assert (rule.origin, rule.rule_text, rule.applied_at) == (
            "written", "Use bun, not npm.", "2026-03-10T00:00:00+00:00")
        book.record_applied(project="/p", proposal=_proposal("tabs"), decision="accepted",
                            form="rule", rule_text="Always tabs.", target_file="/p/CLAUDE.md",
                            backup_file=None, at="2026-03-09T00:00:00+00:00")
        book.record_applied(project="/p", proposal=_proposal("cmd"), decision="accepted",
                            form="command", rule_text="cmd", target_file="/p/.claude/c.md",
                            backup_file=None)
        assert [r.key for r in rules_in_place(book, "/p")] == ["directive:tabs",
                                                               "directive:use-bun"]
        assert rules_in_place(book, "/q") == []
        s = starts(0, 2)
        out = measure(book, "/p", session_starts=s, proposals=[], embedder=None,
                      said=[said("sa0", s["sa0"], "tabs", "tabs!")])
        assert {o.key: o.verdict for o in out} == {"directive:tabs": "ignored",
                                                    "directive:use-bun": "too-early"}


def _result_with_outcomes() -> RunResult:
    s = starts(3, 6)
    rules = [InPlace("directive:no-push", "Never run git push.", "/p/CLAUDE.md", APPLIED),
             InPlace("directive:use-bun", "Use bun.", "/p/CLAUDE.md", APPLIED, origin="written")]
    occ = [said("sb0", s["sb0"], "no-push", "don't push"),
           said("sa2", s["sa2"], "no-push", "<script>I said do not push</script>")]
    outs = rule_outcomes(rules, occ, s)
    return RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(sessions_seen=9),
                     extra={"outcomes": [o.to_json() for o in outs]})


def test_digest_and_report_show_each_rule_with_sessions_quotes_and_verdict() -> None:
    result = _result_with_outcomes()
    md = render_digest_markdown(result)
    assert "## Did the rules work?" in md
    assert "**no-push** — ignored" in md and "**use-bun** — holding" in md
    assert ("before: said in 1 of 3 sessions (33%, 95% interval 6-79%); since: said in 1 of 6 "
            "sessions (17%, 95% interval 3-56%) — too few sessions to tell a change") in md
    # Escaped (learn.report.digest.inert): a Markdown viewer shows it as typed, runs nothing.
    assert 'said since: "\\<script>I said do not push\\</script>"' in md
    assert "you wrote it in `/p/CLAUDE.md`" in md
    # A stored run re-rendered: the outcomes survive to_json / from_json.
    again = RunResult.from_json(result.to_json())
    assert render_digest_markdown(again) == md
    page = render_html(result)
    assert page.count('class="outcome-chart"') == 2
    assert "<script>I said" not in page and "&lt;script&gt;I said" in page
    assert '"per_day"' in page


CHROMIUM = next((p for name in ("chromium", "chromium-browser", "google-chrome")
                 if (p := __import__("shutil").which(name))), None)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")
def test_outcome_charts_draw_in_headless_chromium(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_html(_result_with_outcomes()), encoding="utf-8")
    assert CHROMIUM is not None
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                          f"--user-data-dir={tmp_path / 'profile'}", "--no-first-run",
                          "--virtual-time-budget=3000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    boxes = re.findall(r'<div class="outcome-chart"[^>]*>', dom.stdout)
    assert len(boxes) == 2 and all('data-chart-ready="1"' in b for b in boxes), boxes
    assert 'data-points="2"' in boxes[0]  # a day before, a day since


def test_the_digest_says_what_became_of_each_escalation() -> None:
    from learn.report.outcomes import escalation_sentence

    base = {"key": "directive:no-push-enforced", "summary": "Enforce it: deny Bash(git push:*)"}
    assert escalation_sentence({**base, "state": "pending"}).startswith("escalation proposed")
    assert "`learn apply --only directive:no-push-enforced`" in escalation_sentence(
        {**base, "state": "pending"})
    assert "applied" in escalation_sentence({**base, "state": "applied"})
    assert "declined" in escalation_sentence({**base, "state": "declined"})


DOM_SHIM = r"""
const fs = require('fs');
const html = fs.readFileSync(process.argv[2], 'utf8');
const data = html.match(/<script type="application\/json" id="learn-data">([\s\S]*?)<\/script>/)[1];
const parts = html.split('<script>');  // the outcome charts' script is the last one
const script = parts[parts.length - 1].split('</script>')[0];
function mk(tag) { return {tag, attrs: {}, children: [], textContent: '', clientWidth: 800,
  setAttribute(k, v) { this.attrs[k] = String(v); },
  appendChild(c) { this.children.push(c); return c; }}; }
const boxes = {};
global.document = {
  getElementById(id) {
    if (id === 'learn-data') return {textContent: data};
    if (!boxes[id] && html.includes('id="' + id + '"')) boxes[id] = mk('div');
    return boxes[id] || null;
  },
  createElementNS(ns, t) { return mk(t); },
};
eval(script);
const out = {};
for (const [id, b] of Object.entries(boxes)) {
  const drawn = b.children.flatMap(s => s.children);
  const count = tag => drawn.filter(c => c.tag === tag).length;
  out[id] = id.startsWith('outcome-rates')
    ? [b.attrs['data-chart-ready'], b.attrs['data-bars'], count('rect')]
    : [b.attrs['data-chart-ready'], b.attrs['data-points'], count('circle')];
}
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(__import__("shutil").which("node") is None, reason="no node on PATH")
def test_outcome_charts_draw_in_node_with_a_minimal_dom(tmp_path: Path) -> None:
    """Where no Chromium is installed: the outcome script runs and draws one dot per day,
    and a bar (with its interval) for the rate before and the rate since."""
    import json

    page = tmp_path / "report.html"
    page.write_text(render_html(_result_with_outcomes()), encoding="utf-8")
    shim = tmp_path / "dom.js"
    shim.write_text(DOM_SHIM, encoding="utf-8")
    proc = subprocess.run(["node", str(shim), str(page)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    drawn = json.loads(proc.stdout)
    assert drawn == {"outcome-chart-0": ["1", "2", 2], "outcome-chart-1": ["1", "0", 0],
                     "outcome-rates-0": ["1", "2", 2], "outcome-rates-1": ["1", "2", 2]}


def test_a_rule_you_wrote_is_dated_by_the_commit_that_added_it(tmp_path: Path) -> None:
    import os
    import shutil

    if shutil.which("git") is None:
        pytest.skip("no git")
    repo = tmp_path / "p"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-01-15T10:00:00+00:00",
           "GIT_COMMITTER_DATE": "2026-01-15T10:00:00+00:00", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)

    git("init", "-q")
    (repo / "CLAUDE.md").write_text("# p\n")
    git("add", "CLAUDE.md")
    git("commit", "-qm", "start")
    (repo / "CLAUDE.md").write_text("# p\n- Use bun, not npm.\n")
    env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = "2026-02-20T09:30:00+00:00"
    git("commit", "-qam", "bun")
    p = _proposal("use-bun", status="restated", rule="Use bun, not npm.", project=str(repo))
    p = dataclasses.replace(p, existing_rule_file=str(repo / "CLAUDE.md"))
    with FeedbackStore.open(tmp_path / "learn.db") as store:
        book = ProposalBook(store)
        record_written(book, [p], str(repo))
        [rule] = rules_in_place(book, str(repo))
    assert rule.applied_at == "2026-02-20T09:30:00+00:00"
    from learn.reduce.in_place import written_at

    assert written_at(str(repo / "CLAUDE.md"), "not in the file") is None
    assert written_at(str(tmp_path / "missing.md"), "x") is None
