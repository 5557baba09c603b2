"""The outcomes eval passes with the noisy model, and fails when a piece is taken out."""

from __future__ import annotations

import pytest

from evals.noisy import SCENARIO_FAULTS
from evals.outcomes import main, run_outcomes


@pytest.mark.parametrize("seed", [0, 1])
def test_every_verdict_holds_under_the_noisy_model(seed: int) -> None:
    report = run_outcomes(seed=seed, faults=SCENARIO_FAULTS)
    assert report.passed, {k: v for k, v in report.checks.items() if not v} | report.notes
    assert len(report.checks) == 14
    assert sum(report.injected.values()) > 0  # the faults did fire in the second run


def test_the_eval_fails_without_one_point_or_without_escalation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import learn.reduce.stage as stage
    import learn.report.escalation as escalation
    from learn.reduce.commands import CommandsResult

    monkeypatch.setattr(stage, "one_point", lambda occs, embedder: list(occs))
    monkeypatch.setattr(escalation, "escalate", lambda o, base=None, ran=(): None)
    # No command writer: the request's command has no body of its own.
    monkeypatch.setattr(stage, "write_commands",
                        lambda proposals, **kw: CommandsResult(tuple(proposals)))
    report = run_outcomes(seed=0, faults=SCENARIO_FAULTS)
    failed = {k for k, ok in report.checks.items() if not ok}
    assert failed == {"a directive and a request of one point are counted once",
                      "the ignored rule is escalated to Bash(git push:*)",
                      "the escalation is a valid settings.json diff",
                      "the command's body is an instruction written from all its asks"}


def test_the_command_line_says_pass_per_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("PASS  ") == 14 and "FAIL" not in out
