"""benchmarks/speed.py's verdict: a target is met only when a figure measured it."""

from __future__ import annotations

from benchmarks.speed import TARGETS, verdict


def test_a_target_no_figure_measured_is_not_called_met() -> None:
    ok, lines = verdict({"warm": [True], "run": [True], "show": [True, True]})
    assert ok
    by_target = dict(line.strip().rsplit(": ", 1) for line in lines)
    assert by_target[TARGETS["first"]] == "not measured"
    assert by_target[TARGETS["doubling"]] == "not measured"
    assert by_target[TARGETS["warm"]] == "met"


def test_a_missed_figure_fails_the_run_and_is_counted() -> None:
    ok, lines = verdict({"first": [True, False, False], "warm": [True]})
    assert not ok
    assert f"  {TARGETS['first']}: NOT met (1 of 3 figures within it)" in lines
    assert f"  {TARGETS['warm']}: met" in lines


def test_every_target_has_a_line() -> None:
    _, lines = verdict({})
    assert len(lines) == len(TARGETS)
    assert all(line.endswith("not measured") for line in lines)
