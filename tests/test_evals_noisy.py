"""The noisy model makes the eval able to fail.

The oracle reads the gold the metrics score against; the noisy model answers
from the same gold with a real model's ordinary faults. These tests pin that
each fault fires, that the pipeline meets the bar under all of them on both
corpora, that removing one of the repairs makes the bar fail, that the answers
survive the real SDK against the fake Messages server, and that the report and
baseline are honest (stale prompts named, no silent lowering).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import RecordedRequest, Reply

from evals import faults
from evals.corpora import CORPORA
from evals.noisy import ALL_RUN, FAULTS, NoisyModel, drift, elide, restyle, reword
from evals.run import CACHE, main, run_corpus
from learn.models.base import ModelRequest, ToolSpec


def _rows(corpus: str, *names: str) -> list[faults.FaultRow]:
    out = []
    for name in names:
        on = ALL_RUN if name == "all" else (() if name == "none" else (name,))
        r = run_corpus(corpus, mode="noisy", faults=on)
        out.append(faults.FaultRow(corpus, name, r.metrics, r.injected))
    return out


def test_restyled_quotes_keep_every_word_and_rewordings_change_one() -> None:
    import random

    text = "don't edit the generated files - regenerate them"
    styled = restyle(text, random.Random(1))
    assert styled != text
    assert [w.strip("“”.").lower() for w in styled.replace("’", "'").replace("—", "-").split()] == text.split()
    assert elide("one two three four five six seven eight nine") == "one two three … seven eight nine"
    assert elide("too short to cut") is None
    changed = reword("never force push to main")
    assert changed is not None and changed != "never force push to main"
    assert drift("use-bun-not-npm", 1) != "use-bun-not-npm"


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_every_mining_and_answer_fault_fires(corpus: str) -> None:
    report = run_corpus(corpus, mode="noisy", faults=FAULTS)
    fired = {f for f, n in report.injected.items() if n}
    # A command is written only for an accepted request: a corpus without one asks
    # no command of the model, so that fault has nothing to fire on.
    with_commands = report.metrics["commands.written"] > 0 and any(
        p["kind"] == "request" and p.get("command_body") for p in report.proposals)
    # `missed` needs a point repeated within one chunk, which its seeded draw may
    # spare; the run it fires in is measured by the gate, not required here.
    assert set(FAULTS) - {"missed"} - ({"command_quote"} if not with_commands else set()) <= fired


def _label_request(items: list[str], known: list[str]) -> ModelRequest:
    lines = []
    if known:
        lines += ["KNOWN LABELS:"] + [f"{i}. {k}" for i, k in enumerate(known)] + [""]
    lines += ["ITEMS:"] + [f"{i}. [directive] {t}" for i, t in enumerate(items)]
    tool = ToolSpec("assign_labels", "", {})
    return ModelRequest(step="name", model="m", system="", tool=tool, user="\n".join(lines))


def test_label_drift_between_calls(tmp_path: Path) -> None:
    gold = CORPORA["demo"](tmp_path / "corpus")
    omitted = set(gold.naming_omit)  # the oracle leaves these out of its answer
    bun = [q.text for q in gold.quotes if q.group == "use-bun-not-npm" and q.text not in omitted]
    model = NoisyModel(gold, ("label_drift",))
    first = model.call(_label_request(bun[:1], []))
    assert first.tool_input["labels"][0]["label"] == "use-bun-not-npm"
    not_offered = model.call(_label_request(bun[1:2], []))
    drifted = not_offered.tool_input["labels"][0]["label"]
    assert drifted != "use-bun-not-npm" and model.injected["label_drift"] == 1
    offered = model.call(_label_request(bun[:2], ["use-bun-not-npm"]))
    assert {row["label"] for row in offered.tool_input["labels"]} == {"use-bun-not-npm"}


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_the_noisy_model_meets_the_bar(corpus: str) -> None:
    rows = _rows(corpus, "none", "all")
    assert faults.acceptance(rows) == []
    assert rows[1].metrics["proposals.recall"] >= 0.95 * rows[0].metrics["proposals.recall"]


def test_the_noisy_eval_fails_when_a_repair_is_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    import learn.reduce.counting as counting

    # Without folding a label named under both kinds, the directive reported as
    # a request splits its group below the threshold.
    monkeypatch.setattr(counting, "_reconcile_kinds", lambda groups: groups)
    problems = faults.acceptance(_rows("hard", "none", "all"))
    assert any("recall" in p or "count error" in p for p in problems)


def test_the_noisy_eval_fails_without_merging_drifted_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    import learn.reduce.naming as naming

    monkeypatch.setattr(naming, "merge_drifted_labels", lambda *a, **k: 0)
    problems = faults.acceptance(_rows("hard", "none", "all"))
    assert problems


def test_a_command_body_copied_from_one_quote_is_refused_and_written_again() -> None:
    rows = _rows("demo", "none", "command_quote")
    assert rows[1].injected.get("command_quote") == 1
    assert rows[1].metrics["commands.written"] == rows[0].metrics["commands.written"] == 1.0
    assert rows[1].metrics["commands.quote_copies"] == 0.0
    assert faults.acceptance([rows[0], faults.FaultRow("demo", "all", rows[1].metrics)]) == []


def test_the_noisy_eval_fails_when_a_copied_command_body_is_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import learn.reduce.commands as commands

    monkeypatch.setattr(commands, "copies_a_quote", lambda body, quotes: False)
    rows = _rows("demo", "none", "command_quote")
    assert rows[1].metrics["commands.quote_copies"] == 1.0
    assert rows[1].metrics["commands.written"] == 0.0
    problems = faults.acceptance([rows[0], faults.FaultRow("demo", "all", rows[1].metrics)])
    assert any("copy one quote" in p for p in problems)


def test_the_fault_table_shows_each_faults_cost() -> None:
    rows = _rows("demo", "none", "wrong_kind", "all")
    text = faults.fault_table(rows)
    assert "| demo | wrong_kind |" in text and "| demo | all |" in text
    # wrong_kind costs mining precision: the cell carries the change.
    line = next(x for x in text.splitlines() if "| demo | wrong_kind |" in x)
    assert "(-" in line
    assert "acceptance" in text and "holds" in text


class _NoisyServer(FakeAnthropicServer):
    """The fake Messages server answering with the noisy model, stop_reason included."""

    def __init__(self, model: NoisyModel) -> None:
        super().__init__()
        self.model = model

    def default_reply(self, request: RecordedRequest) -> Reply:
        body = request.json
        first = body["messages"][0]["content"]
        user = first if isinstance(first, str) else "".join(
            b.get("text", "") for b in first if isinstance(b, dict))
        tool = ToolSpec(request.tool_name or "", "", {})
        answer = self.model.call(ModelRequest(step="mine", model=str(body.get("model")), system="",
                                              tool=tool, user=user,
                                              max_tokens=int(body.get("max_tokens", 4096))))
        return self.tool_reply(dict(answer.tool_input), stop_reason=answer.stop_reason or "tool_use")


def test_noisy_answers_through_the_real_sdk_meet_the_bar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut and malformed answers arrive over HTTP as a real model's would; the
    pipeline retries, repairs and re-anchors them and still meets the bar."""
    gold = CORPORA["hard"](tmp_path / "gold-only")
    model = NoisyModel(gold, ALL_RUN)
    with _NoisyServer(model) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        live = run_corpus("hard", mode="live", live_backend="anthropic", cache_dir=tmp_path / "rec",
                          name_batch=4)
        stops = [r for r in fake.requests if r.tool_name == "record_candidates"]
    assert model.injected["truncated"] == 1 and model.injected["malformed"] == 1
    assert len(stops) > len({json.dumps(r.json["messages"][0]) for r in stops})  # retried
    ideal = run_corpus("hard", mode="noisy", faults=())
    rows = [faults.FaultRow("hard", "none", ideal.metrics), faults.FaultRow("hard", "all", live.metrics)]
    assert faults.acceptance(rows) == []


def _baseline(tmp_path: Path, **override: float) -> Path:
    base = json.loads((Path(__file__).resolve().parents[1] / "evals" / "baseline.json").read_text())
    base["demo"]["metrics"].update(override)
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(base))
    return path


def test_write_baseline_refuses_to_lower_a_metric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _baseline(tmp_path, **{"mining.dropped_share": 0.0})  # unreachably good
    before = path.read_text()
    assert main(["demo", "--no-noisy", "--baseline", str(path), "--write-baseline"]) == 1
    assert path.read_text() == before
    assert "mining.dropped_share" in capsys.readouterr().err
    assert main(["demo", "--no-noisy", "--baseline", str(path), "--write-baseline", "--accept-regression"]) == 0
    assert json.loads(path.read_text())["demo"]["metrics"]["mining.dropped_share"] > 0.0


def test_the_report_says_when_recordings_were_made_with_other_prompts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fresh = run_corpus("demo")
    assert fresh.stale_prompts == {}
    cache = tmp_path / "cache"
    shutil.copytree(CACHE, cache)
    for path in (cache / "record_candidates").rglob("*.json"):
        record: dict[str, Any] = json.loads(path.read_text())
        record["prompt"] = "mine.v1"
        path.write_text(json.dumps(record))
    old = run_corpus("demo", cache_dir=cache)
    assert "mine.v1" in old.stale_prompts["record_candidates"]
    assert old.metrics == fresh.metrics  # replay keys ignore the prompt: same answers
    assert main(["demo", "--no-noisy", "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "current prompts are not the ones" in out and "mine.v1" in out


def test_the_noisy_judge_can_miss_what_the_whole_turn_limits() -> None:
    # A quote cut from a turn that limits it ("use bun ... only for this one
    # script") is rejected by the gold, as a careful judge reading the turn
    # rejects it; the noisy judge misses the limit at a seeded rate, so a judge
    # that reads the fragment alone can fail the eval.
    from evals.gold import Gold
    from evals.noisy import limited

    gold = Gold(corpus="limits")
    group = gold.group("bun-for-one-script", "directive", "Use bun.", accepted=False)
    gold.said("s1", "use bun", group)
    items = [f'bun-for-one-script: "use bun"; said 2 times in 2 sessions; context: said in full: '
             f'"use bun, but only for script{i} today"; agent before: [Bash npm run s{i}]'
             for i in range(40)]
    assert all(limited(t) for t in items)
    assert not limited('bun-for-one-script: "use bun"; said 2 times in 2 sessions; context: said in '
                       'full: "we moved to bun, so use bun"; agent before: [Bash npm i]')
    assert not limited('x: "use bun only"; said once in 1 session; context: agent before: only')
    user = "ITEMS:\n" + "\n".join(f"{i}. [directive] {t}" for i, t in enumerate(items))
    tool = ToolSpec("record_verdicts", "", {})

    def accepted(faults: tuple[str, ...]) -> int:
        model = NoisyModel(gold, faults)
        answer = model.call(ModelRequest(step="judge", model="m", system="", tool=tool, user=user))
        return sum(bool(v["accepted"]) for v in answer.tool_input["verdicts"])

    assert accepted(()) == 0
    assert 10 <= accepted(("judge_flip",)) <= 30


def test_the_adversarial_corpus_shows_the_judge_a_limiting_message_in_full(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # evals/corpora/adversarial.py: "use the staging database" is quoted, in three
    # sessions, out of messages that limit it ("..., but only for this one"); the
    # control, "keep money in integer cents", out of messages that only explain
    # it. Both judge lines carry the message in full; only the first is limited.
    import learn.reduce.windows as windows
    from evals.noisy import limited

    lines: list[str] = []
    call = NoisyModel.call

    def spy(self: NoisyModel, request: ModelRequest) -> Any:
        if request.tool.name == "record_verdicts":
            lines.extend(text for _, _, text in self.oracle._items(request.user))
        return call(self, request)

    monkeypatch.setattr(NoisyModel, "call", spy)
    report = run_corpus("adversarial", mode="noisy")
    staging = next(t for t in lines if t.startswith("use-staging-database:"))
    cents = next(t for t in lines if t.startswith("money-in-integer-cents:"))
    assert 'said in full: "run the migration against the staging database, but only for this one' in staging
    assert "said in full: " in cents
    assert limited(staging) and not limited(cents)
    assert report.metrics["judge.limited_accepted"] == 0.0
    assert report.metrics["judge.agreement"] == 1.0
    # The noisy judge that reads the message in full still misses its limit at
    # LIMIT_MISS_RATE: at the gated seed it does, and the eval reports it.
    flipped = run_corpus("adversarial", mode="noisy", faults=("judge_flip",))
    assert flipped.metrics["judge.limited_accepted"] == 1.0
    # The judge shown the fragment alone accepts it: the eval counts the wiring.
    monkeypatch.setattr(windows, "is_whole_turn", lambda turn, quote: True)
    broken = run_corpus("adversarial", mode="noisy")
    assert broken.metrics["judge.limited_accepted"] == 1.0
    assert broken.metrics["judge.agreement"] < 1.0
