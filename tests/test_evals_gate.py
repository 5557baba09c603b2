"""The eval gate catches a broken stage.

An earlier harness measured only clustering and passed for months while
production naming merged nothing. Here each test breaks one stage on purpose
and checks that the offline eval, compared with the committed baseline, fails
the gate; the unbroken pipeline passes it. A `--live` run against a fake
server records answers that a later offline run replays exactly.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer

from evals import metrics
from evals.corpora import CORPORA
from evals.oracle import GoldOracle
from evals.run import BASELINE, CorpusReport, main, run_corpus

BASE = json.loads(BASELINE.read_text())


def _regressions(report: CorpusReport) -> list[str]:
    rows = metrics.compare(report.metrics, BASE[report.corpus]["metrics"])
    return [name for name, _b, _c, _d, bad in rows if bad]


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_unbroken_pipeline_passes_the_gate(corpus: str) -> None:
    report = run_corpus(corpus)
    assert _regressions(report) == []
    assert report.metrics == BASE[corpus]["metrics"]


def test_gate_command_exits_zero_on_the_baseline(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--gate"]) == 0
    out = capsys.readouterr().out
    assert "| mining.recall |" in out and "| cost.model_calls |" in out


def test_skipping_verification_fails_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    import learn.mining.miner as miner
    from learn.mining.verify import VerifyResult

    real = miner.verify_candidates

    def keep_everything(cands: Sequence[Any], spoken: str, **kw: Any) -> VerifyResult:
        result = real(cands, spoken, **kw)
        return dataclasses.replace(result, kept=tuple(cands), dropped_unquoted=0,
                                   dropped_fix_command=0, rejected=())

    monkeypatch.setattr(miner, "verify_candidates", keep_everything)
    bad = _regressions(run_corpus("demo")) + _regressions(run_corpus("hard"))
    assert "mining.precision" in bad


def test_naming_every_item_separately_fails_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    import learn.reduce.stage as stage
    from learn.reduce.naming import NamingResult, NamingStats

    def one_label_each(candidates: Sequence[Any], **kw: Any) -> NamingResult:
        labels = tuple(f"item-{i}" for i in range(len(candidates)))
        return NamingResult(labels, NamingStats(candidates=len(candidates), labels=len(labels)))

    monkeypatch.setattr(stage, "name_candidates", one_label_each)
    bad = _regressions(run_corpus("demo"))
    assert {"naming.clusters_per_candidate", "naming.groups_merged", "proposals.recall"} <= set(bad)


def test_counting_occurrences_instead_of_sessions_fails_the_gate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import learn.reduce.counting as counting

    real = counting.build_proposal

    def by_occurrence(kind: str, label: str, occs: Sequence[Any]) -> Any:
        p = real(kind, label, occs)
        return dataclasses.replace(p, sessions=p.count)

    monkeypatch.setattr(counting, "build_proposal", by_occurrence)
    bad = _regressions(run_corpus("hard"))
    assert "proposals.precision" in bad or "proposals.count_errors" in bad


def test_live_run_records_answers_that_replay_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--live` against a fake Messages server (the real SDK) writes its answers into
    a cache dir; an offline run from that dir reproduces the same result."""
    gold = CORPORA["demo"](tmp_path / "gold-only")
    oracle = GoldOracle(gold)
    cache = tmp_path / "recorded"
    with FakeAnthropicServer(responder=lambda r: oracle.answer(r.tool_name, r.user_text)) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        live = run_corpus("demo", mode="live", live_backend="anthropic", cache_dir=cache)
        calls = len(fake.requests)
    assert calls > 0
    assert live.cost["model_calls"] == calls
    recorded = list(cache.rglob("*.json"))
    assert len(recorded) == calls
    replayed = run_corpus("demo", mode="replay", cache_dir=cache)
    assert replayed.metrics == live.metrics
    assert [(p["label"], p["sessions"]) for p in replayed.proposals] == [
        (p["label"], p["sessions"]) for p in live.proposals
    ]


def test_the_verdict_comes_first(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["demo", "--no-noisy", "--gate"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "verdict: PASS, no metric below the baseline on 1 corpora"

    raised = json.loads(BASELINE.read_text())
    raised["demo"]["metrics"]["mining.recall"] = 2.0  # a bar no run can reach
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(raised))
    assert main(["demo", "--no-noisy", "--gate", "--baseline", str(baseline)]) == 1
    captured = capsys.readouterr()
    first = captured.out.splitlines()[0]
    assert first.startswith("verdict: FAIL, 1 problem(s): demo mining.recall regressed: 2 -> ")
    assert "gate: demo mining.recall regressed" in captured.err
