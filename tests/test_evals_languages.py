"""The multilingual eval: a table per language, a bar per language, and it can fail."""

from __future__ import annotations

import re

import pytest

from evals import metrics
from evals.run import main, run_corpus


def test_every_language_meets_the_bar_on_the_replayed_answers() -> None:
    report = run_corpus("multilingual")
    assert sorted(report.languages) == ["de", "es", "ja", "ko", "pt", "ru", "zh", "zh-en"]
    assert metrics.language_problems("multilingual", "replay", report.languages) == []
    for per in report.languages.values():
        assert per["proposals.recall"] == 1.0 and per["mining.recall"] == 1.0


def test_width_drift_is_forgiven() -> None:
    ideal = run_corpus("multilingual", mode="noisy", faults=())
    drifted = run_corpus("multilingual", mode="noisy", faults=("width",))
    assert drifted.injected["width"] >= 5
    assert drifted.metrics["mining.recall"] == ideal.metrics["mining.recall"] == 1.0


def test_counting_unspaced_text_as_one_word_fails_the_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    import learn.mining.verify as verify

    # What verification did before issue 19: `\w+` runs, Latin word boundaries.
    monkeypatch.setattr(verify, "_words", lambda text: len(re.findall(r"\w+", text)))
    monkeypatch.setattr(verify, "_joined", lambda a, b: a.isalnum() and b.isalnum())
    report = run_corpus("multilingual")
    problems = metrics.language_problems("multilingual", "replay", report.languages)
    assert any("[zh]" in p for p in problems) and any("[ja]" in p for p in problems)
    assert report.languages["zh"]["mining.recall"] < 1.0
    assert report.languages["ja"]["mining.recall"] < 1.0


def test_the_eval_prints_a_table_per_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["multilingual", "--no-noisy", "--gate"]) == 0
    out = capsys.readouterr().out
    for language in ("zh", "ja", "ko", "de", "es", "ru", "pt", "zh-en"):
        assert f"### multilingual [{language}]" in out
    assert "per-language bar" in out and "holds" in out
