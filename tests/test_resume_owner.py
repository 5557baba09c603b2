"""A resumed session starts at the same moment as the one it resumed (the copied entries
keep their times). Which of the two keeps the turns typed before the resume was left to
the order of their ids, so for about half of all id pairs the resumed one kept them: the
original's own turns were marked "copied" by `learn show` and mined under the resumed
session. The session that went on later is the resumed one, whatever the ids say.

And every path to the model leaves the copies out: `learn run --batch` (Message Batches)
and the end-of-session hook's worker, which mines the resumed session alone, as well as
the direct miner."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fakes.anthropic_batches import FakeBatchServer
from fakes.anthropic_server import FakeAnthropicServer, default_tool_input
from fakes.http_server import RecordedRequest

from evals.builder import ClaudeSession
from learn.commands.show import command as show
from learn.config import load_config
from learn.hook.event import SessionEnded
from learn.hook.worker import mine_ended_session
from learn.mining.batch import backfill
from learn.mining.cache import MineCache
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy
from learn.transcripts import parse
from learn.transcripts.view.model import Session
from learn.transcripts.view.resume import own_turns
from learn.transcripts.view.session import build_session

# Fixture words, written for this test.
BEFORE = "store the thumbnails next to the originals"
ALSO_BEFORE = "resize them to at most 400 pixels wide"
AFTER = "and strip the camera metadata while you are at it"
# Ids chosen so the resumed session sorts first by id: the tie the fix must not leave
# to the ids.
ORIGINAL = "f7000000-0000-4000-8000-000000000007"
RESUMED = "07000000-0000-4000-8000-000000000070"
START = datetime(2026, 11, 9, 8, 30, tzinfo=UTC)


def _write(home: Path, *, original: bool = True) -> tuple[Path, Path]:
    """The original session and its resume, as Claude Code writes them: the resumed
    file opens with the earlier lines, their times and their session's id kept."""
    claude = home / ".claude"
    project = home / "code" / "gallery"
    project.mkdir(parents=True, exist_ok=True)
    a = ClaudeSession(ORIGINAL, str(project), START)
    a.user(BEFORE)
    a.tool("Bash", {"command": "make thumbs"}, "thumbs: 12 written")
    a.user(ALSO_BEFORE)
    b = ClaudeSession(RESUMED, str(project), START)
    b.resume_from(a)
    for line in b.lines[: len(a.lines)]:
        if "sessionId" in line:
            line["sessionId"] = ORIGINAL  # the copies name the session they came from
    b.user(AFTER)
    pb = b.write(claude)
    pa = a.write(claude)
    if not original:
        pa.unlink()
    return pa, pb


def _views(pa: Path, pb: Path) -> tuple[Session, Session]:
    return build_session(parse(pa)), build_session(parse(pb))


def _texts(session: Session) -> list[str]:
    return [t.text for t in session.human_turns]


def test_the_session_typed_in_keeps_its_turns_when_both_start_together() -> None:
    sa, sb = _views(*_write(Path.home()))
    assert sa.started_at == sb.started_at  # the tie
    assert RESUMED < ORIGINAL  # which the ids broke the wrong way
    for given in ([sa, sb], [sb, sa]):
        own = own_turns(given)
        assert own[sa.id] is sa
        assert _texts(own[sb.id]) == [AFTER]


def test_show_marks_the_copies_in_the_resumed_session_not_the_original() -> None:
    _write(Path.home())
    first = CliRunner().invoke(show, [ORIGINAL])
    assert first.exit_code == 0, first.output
    assert BEFORE in first.output and "copied" not in first.output
    resumed = CliRunner().invoke(show, [RESUMED])
    assert resumed.exit_code == 0, resumed.output
    shown = " ".join(resumed.output.split())
    mark = f"(copied from session {ORIGINAL[:8]})"
    assert f"YOU: {BEFORE} {mark}" in shown and f"YOU: {ALSO_BEFORE} {mark}" in shown
    assert f"YOU: {AFTER}" in shown and f"{AFTER} {mark}" not in shown


def _quoting(request: RecordedRequest) -> Mapping[str, Any]:
    if request.tool_name != "record_candidates":
        return default_tool_input(request.tool_name)
    said = [t for t in (BEFORE, ALSO_BEFORE, AFTER) if t in request.user_text]
    return {"candidates": [{"kind": "directive", "text": t} for t in said]}


def _backend() -> AnthropicBackend:
    return AnthropicBackend(
        retry=RetryPolicy(max_attempts=1, initial_backoff=0, jitter=0, sleep=lambda s: None),
        limiter=RateLimiter(None, 4, sleep=lambda s: None),
    )


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeBatchServer]:
    with FakeBatchServer(responder=_quoting) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        yield fake


def test_a_batch_sends_the_copied_turns_once_with_the_session_they_were_typed_in(
        batches: FakeBatchServer) -> None:
    sa, sb = _views(*_write(Path.home()))
    cache = MineCache()
    report = backfill([sb, sa], _backend(), model=load_config().models.mine, cache=cache,
                      sleep=lambda s: None)
    assert report.failure is None and report.cached_sessions == 2
    sent = list(batches.answered)
    assert sum(BEFORE in text for text in sent) == 1
    [resumed] = [text for text in sent if AFTER in text]
    assert BEFORE not in resumed and ALSO_BEFORE not in resumed
    # What was collected for the resumed session holds its own words only.
    assert sb.path is not None
    entry = cache.get(cache.key_for_file(sb.path))
    assert entry is not None
    assert [c.text for c in entry.candidates.candidates] == [AFTER]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(responder=_quoting) as fake:
        for k, v in fake.env().items():
            monkeypatch.setenv(k, v)
        yield fake


def _mined(server: FakeAnthropicServer) -> list[str]:
    return [r.user_text for r in server.requests if r.tool_name == "record_candidates"]


def test_the_hook_worker_mines_a_resumed_session_without_its_copies(
        server: FakeAnthropicServer) -> None:
    _, pb = _write(Path.home())
    result = mine_ended_session(SessionEnded(RESUMED, str(pb)), backend=_backend(),
                                config=load_config(), cache=MineCache())
    assert result.error is None
    [sent] = _mined(server)
    assert AFTER in sent and BEFORE not in sent and ALSO_BEFORE not in sent
    assert [c.text for c in result.candidates] == [AFTER]


def test_the_hook_worker_sends_the_copies_when_the_original_is_gone(
        server: FakeAnthropicServer) -> None:
    # Pruned by the client: the copies are the only record of those words left.
    _, pb = _write(Path.home(), original=False)
    mine_ended_session(SessionEnded(RESUMED, str(pb)), backend=_backend(),
                       config=load_config(), cache=MineCache())
    [sent] = _mined(server)
    assert BEFORE in sent and AFTER in sent


def test_the_hook_worker_sends_the_copies_when_the_original_cannot_be_read(
        server: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # A run leaves a file its reader fails on out (an "unreadable" skip), so its
    # copies are sent; the worker mines the resumed session the same way rather than
    # failing it, three times, over the other file.
    import learn.transcripts.parser as parser

    pa, pb = _write(Path.home())
    real = parser.parse_buffer

    def parse_buffer(buf: bytes, **kw: Any) -> Any:
        if kw.get("path") == pa:
            raise KeyError("a record's text")
        return real(buf, **kw)

    monkeypatch.setattr(parser, "parse_buffer", parse_buffer)
    result = mine_ended_session(SessionEnded(RESUMED, str(pb)), backend=_backend(),
                                config=load_config(), cache=MineCache())
    assert result.error is None
    [sent] = _mined(server)
    assert BEFORE in sent and AFTER in sent
