"""Acceptance (issue 11): a real model's ordinary failures do not change what a run
proposes, and a stage that really fails makes the run exit 1 and say which.

`learn run` as a user runs it, the real anthropic SDK against the fake Messages
server on 127.0.0.1 answering from the demo corpus's gold (the oracle), with
faults scripted in front of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import RecordedRequest, Reply
from test_e2e_run import _env, _learn

from evals.corpora import demo
from evals.gold import Gold
from evals.oracle import GoldOracle

ARGS = ["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes", "--quiet"]


def _summary(result: dict[str, Any]) -> list[tuple[str, str, int, list[str]]]:
    return sorted(
        (p["kind"], p["label"], p["sessions"], sorted(q["text"] for q in p["quotes"]))
        for p in result["proposals"]
    )


class FaultyServer(FakeAnthropicServer):
    """The oracle behind a list of faults: `faults[tool]` answers that tool's first calls."""

    def __init__(self, gold: Gold, faults: Mapping[str, list[Mapping[str, Any]]] | None = None,
                 fail_when: Callable[[RecordedRequest], bool] | None = None) -> None:
        oracle = GoldOracle(gold)
        self.faults = {tool: list(answers) for tool, answers in (faults or {}).items()}
        self.fail_when = fail_when
        super().__init__(responder=lambda r: oracle.answer(r.tool_name or "", r.user_text))

    def default_reply(self, request: RecordedRequest) -> Reply:
        if self.fail_when is not None and self.fail_when(request):
            return self.error_reply(529, headers={"retry-after": "0"})
        pending = self.faults.get(request.tool_name or "")
        if pending:
            return self.tool_reply(pending.pop(0))
        return super().default_reply(request)


def _run(root: Path, fake: FakeAnthropicServer, *extra: str) -> tuple[int, dict[str, Any], str]:
    done = _learn([*ARGS, *extra], _env(root, fake))
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def test_one_malformed_and_one_truncated_answer_give_the_clean_runs_proposals_and_exit_0(
    tmp_path: Path,
) -> None:
    gold = demo.build(tmp_path / "clean")
    with FaultyServer(gold) as fake:
        code, clean, err = _run(tmp_path / "clean", fake)
    assert code == 0, err
    assert clean["proposals"]

    demo.build(tmp_path / "faulty")
    faults = {
        # A naming, a coverage and a judging answer of the wrong shape, once each.
        "assign_labels": [{"labels": [{"id": "first", "label": 7}]}],
        "check_coverage": [{"verdicts": "all new"}],
        "record_verdicts": [{"verdicts": [{"id": 0}]}],
    }
    with FaultyServer(gold, faults) as fake:
        # The first two mining answers: one cut at max_tokens, one malformed.
        fake.enqueue_truncated({"candidates": [{"kind": "directive", "text": "we're on"}]})
        fake.enqueue_answer({"candidates": "see above"})
        code, faulty, err = _run(tmp_path / "faulty", fake)
        requests = len(fake.requests)
        repairs = sum(1 for r in fake.requests if r.tool_results)
    assert code == 0, err
    assert _summary(faulty) == _summary(clean)
    assert faulty["failed_stages"] == [] and faulty["usage"]["sessions_failed"] == 0
    # Verification's tally by reason, in --json; the gold's planted paraphrase among the drops.
    assert faulty["verification"] == clean["verification"]
    assert faulty["verification"]["paraphrase"] >= 1 and faulty["verification"]["kept"] > 0
    assert repairs == 4  # the malformed mining answer and the three reduce answers
    # Every call was paid for, the unusable answers included.
    assert faulty["usage"]["model_calls"] == requests
    assert faulty["usage"]["model_calls"] == clean["usage"]["model_calls"] + 5


def test_a_judge_that_keeps_failing_exits_1_names_the_stage_and_shows_the_items_again(
    tmp_path: Path,
) -> None:
    root = tmp_path / "corpus"
    gold = demo.build(root)
    with FaultyServer(gold, {"record_verdicts": [{"verdicts": "later"}] * 50}) as fake:
        code, broken, err = _run(root, fake)
        judge_calls = sum(1 for r in fake.requests if r.tool_name == "record_verdicts")
        assert broken["usage"]["model_calls"] == len(fake.requests)
    assert code == 1
    assert "failed after retries: judge" in err
    assert broken["failed_stages"] == ["judge"]
    assert judge_calls % 3 == 0 and judge_calls >= 3  # each batch: the answer and two repairs
    assert broken["proposals"] and all(p["verdict"] is None for p in broken["proposals"])

    # The digest says it too.
    with FaultyServer(gold, {"record_verdicts": [{"verdicts": "later"}] * 50}) as fake:
        done = _learn([a for a in ARGS if a != "--json"] + ["--all"], _env(root, fake))
    assert done.returncode == 1
    assert "Failed after retries: stage judge" in done.stdout and "## What failed" in done.stdout

    # Never judged means never shown: a healthy run judges and shows them, not holds them back.
    with FaultyServer(gold) as fake:
        code, healthy, err = _run(root, fake)
    assert code == 0, err
    assert {p["label"] for p in healthy["proposals"]} == {p["label"] for p in broken["proposals"]}
    assert all(p["verdict"] is not None for p in healthy["proposals"])


def _typed_after(path: Path, text: str) -> str:
    """A line more of the session: `text` typed after its last line (what a live session
    adds). A blank line added changes the file, not what the miner is sent, and such a
    session is no longer asked again (learn.mining.cache.rendered_key)."""
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    last = lines[-1]
    typed = {**next(x for x in reversed(lines) if x.get("type") == "user"),
             "uuid": "0f0f0f0f-0000-4000-8000-000000000001", "parentUuid": last.get("uuid"),
             "timestamp": last.get("timestamp"), "message": {"role": "user", "content": text}}
    return json.dumps(typed) + "\n"


def test_a_transient_mining_failure_keeps_what_the_session_had_stored(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    gold = demo.build(root)
    with FaultyServer(gold) as fake:
        code, first, err = _run(root, fake)
    assert code == 0, err
    # A session behind a proposal grows (a live session): its hash changes and it is mined again.
    texts = [q.text for q in gold.quotes if q.kind != "fix"]
    quote = next(q for q in gold.quotes
                 if q.kind != "fix" and texts.count(q.text) == 1 and gold.groups[q.group].proposed)
    [path] = [p for p in (root / "home").rglob("*.jsonl") if quote.session in p.name]
    path.write_text(path.read_text() + _typed_after(path, "and keep the lockfile committed"))

    def its_chunk(request: RecordedRequest) -> bool:
        return request.tool_name == "record_candidates" and quote.text in request.user_text

    # Retries last a time budget (issue 21): a short one, so the failure is final in seconds.
    (root / "config").mkdir(parents=True, exist_ok=True)
    (root / "config" / "config.toml").write_text("[backend]\nretry_seconds = 2\n")
    with FaultyServer(gold, fail_when=its_chunk) as fake:
        code, second, err = _run(root, fake, "--all")
    assert code == 1
    assert "failed after retries: mine" in err and quote.session in err
    assert second["usage"]["sessions_failed"] == 1
    # What the earlier run verified in that session still counts.
    assert _summary(second) == _summary(first)
    assert any(q["session_id"] == quote.session for p in second["proposals"] for q in p["quotes"])
