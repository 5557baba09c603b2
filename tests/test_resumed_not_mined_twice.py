"""A resumed session copies the earlier conversation into its own file. What it copied
was mined with the session it was typed in; sending it to the miner again paid for the
same turns twice. The copies are not sent again, what the resumed session says of its
own is, the counts are as before, and a warm run (and `learn plan`) finds nothing left
to mine. `learn signals` lists a copied signal once, and `learn show` marks a copied
turn as copied, naming the session it came from."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fakes.anthropic_server import FakeAnthropicServer, default_tool_input
from fakes.http_server import RecordedRequest

from evals.builder import ClaudeSession, session_id
from learn.commands.show import command as show
from learn.commands.signals import command as signals
from learn.config import load_config
from learn.mining.cache import MineCache
from learn.mining.plan import plan_mining
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy
from learn.pipeline import RunOptions, run_pipeline
from learn.records.proposal import RunResult

# Fixture words, written for this test.
FIRST = "keep the fixtures in tests/data, never inline them"
LATER = "name every branch after its ticket number"
AGAIN = "the changelog goes in docs/CHANGES.md"
REFUSED = "do not touch the vendored copy"
ORIGINAL = "1a000000-0000-4000-8000-000000000001"
RESUMED = "2b000000-0000-4000-8000-000000000002"


def _t(day: int, hour: int = 9) -> datetime:
    return datetime(2026, 11, day, hour, 0, tzinfo=UTC)


def _sessions(home: Path) -> tuple[Path, Path, Path]:
    claude = home / ".claude"
    project = home / "code" / "shelf"
    project.mkdir(parents=True)
    # A resume copies the entries with their times, so the two sessions start at the same
    # moment and the older is the one whose last activity is older
    # (learn.transcripts.view.resume.oldest_first; tests/test_resume_owner.py).
    a = ClaudeSession(ORIGINAL, str(project), _t(2))
    a.user(FIRST)
    a.tool("Bash", {"command": "make check"}, "3 checks failed: lint", is_error=True)
    a.denied_tool("Edit", {"file_path": f"{project}/vendor/lib.py"}, REFUSED)
    a.user(AGAIN)
    b = ClaudeSession(RESUMED, str(project), _t(2, 15))
    b.resume_from(a)  # the whole of a, copied under b's id
    b.user(LATER)
    c = ClaudeSession(session_id("shelf-other"), str(project), _t(4))
    c.user(LATER)
    c.user(AGAIN)
    return a.write(claude), b.write(claude), c.write(claude)


def _quoting(request: RecordedRequest) -> Mapping[str, Any]:
    """The miner's answer: every directive of the fixture found in the chunk."""
    if request.tool_name != "record_candidates":
        return default_tool_input(request.tool_name)
    said = [t for t in (FIRST, LATER, AGAIN) if t in request.user_text]
    return {"candidates": [{"kind": "directive", "text": t} for t in said]}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(responder=_quoting) as fake:
        for k, v in fake.env().items():
            monkeypatch.setenv(k, v)
        yield fake


def _run() -> RunResult:
    backend = AnthropicBackend(
        retry=RetryPolicy(max_attempts=1, initial_backoff=0, jitter=0, sleep=lambda s: None),
        limiter=RateLimiter(None, 4, sleep=lambda s: None),
    )
    result, _ = run_pipeline(RunOptions(all_projects=True, show_all=True), load_config(),
                             backend=backend)
    return result


def _mined(server: FakeAnthropicServer) -> list[str]:
    return [r.user_text for r in server.requests if r.tool_name == "record_candidates"]


def test_what_a_resume_copied_is_sent_to_the_miner_once(server: FakeAnthropicServer) -> None:
    _sessions(Path.home())
    result = _run()
    sent = _mined(server)
    # a's turns and its failing run went once, with a; b's own turn went, alone.
    assert sum(FIRST in text for text in sent) == 1
    assert sum(AGAIN in text for text in sent) == 2  # typed in a and in c
    assert sum("3 checks failed" in text for text in sent) == 1
    assert sum(LATER in text for text in sent) == 2  # typed in b and in c
    [resumed] = [text for text in sent if LATER in text and AGAIN not in text]
    assert FIRST not in resumed
    # The counts are what they were: each directive in the sessions that typed it.
    by_text = {p.text: p.sessions for p in result.proposals}
    assert by_text[LATER] == 2
    assert by_text[AGAIN] == 2
    assert FIRST not in by_text  # typed once, in a; b only copied it


def test_a_warm_run_and_the_plan_find_nothing_to_mine(server: FakeAnthropicServer) -> None:
    paths = _sessions(Path.home())
    _run()
    calls = len(_mined(server))
    assert calls == 3
    again = _run()
    assert len(_mined(server)) == calls  # every answer kept, the resumed one's too
    assert sum(FIRST in text for text in _mined(server)) == 1  # and kept of its own turns
    assert {p.text: p.sessions for p in again.proposals}[LATER] == 2
    plan = plan_mining(list(paths), MineCache(), load_config().models.mine)
    assert plan.to_mine == ()
    assert len(plan.cached) == 3


def test_signals_list_what_a_resume_copied_once() -> None:
    _sessions(Path.home())
    res = CliRunner().invoke(signals, ["--all-projects", "--since", "365d", "--json",
                                       "--min-confidence", "0"])
    assert res.exit_code == 0, res.output
    listed = [json.loads(line) for line in res.output.splitlines()]
    refused = [r for r in listed if r["text"] == REFUSED]
    assert [r["path"].rsplit("/", 1)[-1] for r in refused] == [f"{ORIGINAL}.jsonl"]
    # The resumed session's own words are listed, under it.
    assert {r["path"].rsplit("/", 1)[-1] for r in listed if r["text"] == LATER} == {
        f"{RESUMED}.jsonl", f"{session_id('shelf-other')}.jsonl"}


def test_show_marks_the_turns_a_resume_copied() -> None:
    _sessions(Path.home())
    res = CliRunner().invoke(show, [RESUMED])
    assert res.exit_code == 0, res.output
    shown = " ".join(res.output.split())  # as wrapped at any width
    mark = f"(copied from session {ORIGINAL[:8]})"
    for turn in (f"YOU: {FIRST} {mark}", f"YOU (denial): {REFUSED} {mark}",
                 f"YOU: {AGAIN} {mark}"):
        assert turn in shown
    assert f"YOU: {LATER}" in shown and f"{LATER} {mark}" not in shown
    assert '3 turns marked "copied" came from an earlier session' in shown
    # The session they were typed in shows them as its own.
    first = CliRunner().invoke(show, [ORIGINAL])
    assert first.exit_code == 0, first.output
    assert FIRST in first.output and "copied" not in first.output

