"""The rules-that-work eval passes with the noisy model, and fails when learn stops telling
loaded from not loaded, or drops the uncertainty of its rates."""

from __future__ import annotations

import pytest

from evals.noisy import SCENARIO_FAULTS
from evals.rules_work import main, run_rules_work
from learn.reduce.loaded import LoadCall


@pytest.mark.parametrize("seed", [0, 1])
def test_verdicts_counts_and_rates_match_the_truth_under_the_noisy_model(seed: int) -> None:
    report = run_rules_work(seed=seed, faults=SCENARIO_FAULTS)
    assert report.passed, {k: v for k, v in report.checks.items() if not v} | report.measured
    assert len(report.checks) == 30


def test_the_eval_fails_when_every_session_counts_as_loaded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import learn.reduce.outcomes as outcomes

    monkeypatch.setattr(outcomes, "load_call", lambda *a, **k: LoadCall(True, "assumed"))
    report = run_rules_work(seed=0, faults=SCENARIO_FAULTS)
    failed = {k for k, ok in report.checks.items() if not ok}
    assert "sql: verdict never-loaded" in failed
    assert any(k.startswith("push: loaded in the 24 sessions") for k in failed)
    assert any(k.startswith("sql: never loaded because") for k in failed)
    assert "records of loads are used where they exist (plugin and transcript)" in failed


def test_the_eval_fails_when_rates_lose_their_intervals(monkeypatch: pytest.MonkeyPatch) -> None:
    import learn.reduce.rates as rates

    monkeypatch.setattr(rates, "wilson", lambda k, n, z=0.0: (k / n, k / n) if n else (0.0, 1.0))
    report = run_rules_work(seed=0, faults=SCENARIO_FAULTS)
    failed = {k for k, ok in report.checks.items() if not ok}
    assert any(k.startswith("tests: rate since holds 0.25") for k in failed), failed
    assert any(k.startswith("push: rate before holds") for k in failed), failed


def test_the_command_line_says_pass_per_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("PASS  ") == 30 and "FAIL" not in out


def test_learn_eval_gate_fails_on_a_failed_rules_work_check(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import evals.faults
    import evals.outcomes
    import evals.rules_work
    from evals.outcomes import OutcomesReport
    from evals.rules_work import RulesWorkReport
    from evals.run import main as eval_main

    monkeypatch.setattr(evals.faults, "fault_runs", lambda corpus, seed=0: [])
    monkeypatch.setattr(evals.outcomes, "run_outcomes",
                        lambda seed=0: OutcomesReport(checks={"fine": True}))
    broken = RulesWorkReport(checks={"sql: verdict never-loaded": False, "other": True})
    monkeypatch.setattr(evals.rules_work, "run_rules_work", lambda seed=0: broken)
    assert eval_main(["demo", "--gate"]) == 1
    out = capsys.readouterr()
    assert "Rules-work scenario (noisy model): 1/2 checks pass" in out.out
    assert "rules-work scenario: sql: verdict never-loaded" in out.err
