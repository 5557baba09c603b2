"""A failed run does not rewrite a rule's history: "Did the rules work?" keeps the last
complete run's measure, and says so (learn.reduce.outcomes_kept).

Measured before the fix on the demo corpus: `learn run --offline` said "before: said in
2 of 4 sessions" for real-database-in-tests; a `learn run --backend replay` with nothing
recorded (7 of 7 sessions failed) then said "0 of 4", and `learn outcomes` kept saying it.
"""

from __future__ import annotations

from pathlib import Path

from _demo_apply import applied_demo, demo_learn, inside_demo

from learn.reduce.outcomes_kept import kept_outcomes, unmeasured_why

RULE = "real-database-in-tests"


def _rule_lines(text: str) -> list[str]:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if f"**{RULE}**" in line)
    end = next((i for i in range(at + 1, len(lines)) if lines[i].startswith("- **")), len(lines))
    return lines[at:end]


def test_a_failed_run_keeps_the_last_complete_measure_of_an_applied_rule(tmp_path: Path) -> None:
    learn = demo_learn(tmp_path)
    demo = applied_demo(tmp_path, learn)
    # The demo's own home and store; a cache of its own, so the replay run's mining
    # finds nothing recorded and every call fails.
    inside = inside_demo(demo, tmp_path / "empty-cache")
    shop = demo / "home" / "code" / "shop-api"
    offline = learn("run", "--offline", "--all-projects", "--yes", cwd=shop, **inside)
    assert offline.returncode == 0, offline.stderr
    measured = [line for line in _rule_lines(offline.stdout) if "before: said in" in line]
    assert measured and "said in 2 of 4 sessions" in measured[0], offline.stdout

    failed = learn("run", "--backend", "replay", "--all-projects", "--yes", cwd=shop, **inside)
    assert failed.returncode == 1, failed.stderr
    assert "failed: 7" in failed.stdout
    for shown in (failed.stdout, learn("outcomes", cwd=shop, **inside).stdout):
        rule = "\n".join(_rule_lines(shown))
        assert "said in 2 of 4 sessions" in rule and "0 of 4" not in rule, shown
        assert "not measured again by the latest run (the mining calls failed for 7 sessions" in rule


def test_a_complete_run_records_its_own_measure() -> None:
    fresh = [{"key": "directive:a", "project": "/p", "said_before": 0}]
    earlier = [("2026-12-01T00:00:00Z", [{"key": "directive:a", "project": "/p",
                                          "said_before": 2}])]
    assert unmeasured_why(sessions_failed=0, sessions_incomplete=0) is None
    assert kept_outcomes(fresh, earlier, None) == fresh


def test_a_partial_run_keeps_the_newest_complete_measure_or_says_its_own_is_partial() -> None:
    why = unmeasured_why(sessions_failed=1, sessions_incomplete=1)
    assert why == "the mining calls failed for 1 session this run read"
    fresh = [{"key": "directive:a", "project": "/p", "said_before": 0},
             {"key": "directive:b", "project": "/p", "said_before": 0}]
    earlier = [
        # A partial measure of a (an earlier failed run, no complete one before it)...
        ("2026-12-03T00:00:00Z", [{"key": "directive:a", "project": "/p", "said_before": 1,
                                   "kept": {"at": None, "why": "x"}}]),
        # ...is passed over for the complete one before it.
        ("2026-12-02T00:00:00Z", [{"key": "directive:a", "project": "/p", "said_before": 2}]),
    ]
    a, b = kept_outcomes(fresh, earlier, why)
    assert a["said_before"] == 2 and a["kept"] == {"at": "2026-12-02T00:00:00Z", "why": why}
    assert b["said_before"] == 0 and b["kept"] == {"at": None, "why": why}
    # Carried again by the next failed run, it keeps the date it was measured.
    again = kept_outcomes(fresh[:1], [("2026-12-04T00:00:00Z", [a])], why)
    assert again[0]["kept"]["at"] == "2026-12-02T00:00:00Z"


def test_the_digest_and_the_report_say_a_measure_is_kept() -> None:
    from learn.records.proposal import Funnel, RunResult, RunUsage
    from learn.report.outcomes import outcome_lines
    from learn.report.outcomes_html import outcome_html

    kept = {"key": "directive:a", "rule": "Do a.", "file": "/p/CLAUDE.md",
            "applied_at": "2026-12-01T00:00:00Z", "sessions_before": 4, "said_before": 2,
            "verdict": "too-early",
            "kept": {"at": "2026-12-02T10:00:00Z", "why": "the mining calls failed for 7 "
                                                          "sessions this run read"}}
    partial = {**kept, "key": "directive:b", "kept": {"at": None, "why": "x"}}
    result = RunResult(proposals=(), funnel=Funnel(), usage=RunUsage(),
                       extra={"outcomes": [kept, partial]})
    text = "\n".join(outcome_lines(result))
    assert ("not measured again by the latest run (the mining calls failed for 7 sessions this "
            "run read): the figures below are the ones the run of 2026-12-02 measured") in text
    assert "measured by the latest run although x: a partial measure" in text
    page = outcome_html(result)
    assert "not measured again by the latest run" in page and "a partial measure" in page
