"""JSON nested past the decoders' recursion limit is a bad record, never a traceback.

Both json and msgspec raise RecursionError, not their decode error, on a value nested
about 1,000 levels deep (msgspec has no depth limit of its own: its limit is the
stack's). An audit found one such line (`[[[[...` 3,000 deep) in a transcript, an
agent's store, a model's answer or a file learn reads made `learn run` and `learn
sessions` exit with a traceback, every time. Each reader skips it as it skips a line
that is not JSON, and counts it ("too_deep") where it counts skipped lines.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import pytest
from click.testing import CliRunner
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import Reply
from fakes.openai_server import FakeOpenAIServer
from fixtures.fidelity.agent_writers import (
    CopilotEvents,
    GeminiChat,
    OpenCodeSession,
    database_sql,
)

from learn.models.base import MalformedAnswer, ModelError, ModelRequest, ToolSpec
from learn.models.json_text import extract_json_object
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy

DEPTH = 5000
DEEP = "[" * DEPTH + "]" * DEPTH  # json and msgspec both give up at ~1,000 levels
DEEP_OBJECT = '{"a":' * DEPTH + "1" + "}" * DEPTH


def test_the_decoders_raise_recursion_error_not_their_decode_error() -> None:
    """Why every guard below names RecursionError: neither decoder has a depth limit
    that raises its own error (measured with msgspec 0.19-0.23, CPython 3.11-3.13)."""
    import msgspec

    with pytest.raises(RecursionError):
        json.loads(DEEP)
    with pytest.raises(RecursionError):
        msgspec.json.decode(DEEP)
    with pytest.raises(RecursionError):
        msgspec.json.Decoder().decode(DEEP.encode())


# ---------------------------------------------------------------- instruction records


def _instructions(path: str) -> dict[str, Any]:
    return {"type": "attachment", "attachment": {"type": "instructions", "files": [
        {"path": path, "type": "Project", "content": "- Use bun."}]}}


def test_a_transcript_line_nested_too_deep_is_skipped_and_the_loads_around_it_kept(
        tmp_path: Path) -> None:
    from learn.transcripts.instructions import transcript_records

    deep = ('{"type":"attachment","attachment":{"type":"instructions","files":'
            + DEEP + "}}")
    f = tmp_path / "s.jsonl"
    f.write_text(json.dumps(_instructions("/w/shop/CLAUDE.md")) + "\n" + deep + "\n"
                 + json.dumps(_instructions("/w/shop/AGENTS.md")) + "\n")
    loads = transcript_records(f, "claude")
    assert [x.file for x in loads or ()] == ["/w/shop/CLAUDE.md", "/w/shop/AGENTS.md"]


def test_a_hook_record_nested_too_deep_is_skipped_like_a_torn_one(tmp_path: Path) -> None:
    from learn.transcripts.instructions import hook_records

    records = tmp_path / "instructions"
    records.mkdir()
    (records / "s-1.jsonl").write_text(
        json.dumps({"file": "/w/shop/CLAUDE.md", "reason": "session_start"}) + "\n"
        + '{"file": "/w/shop/x.md", "globs": ' + DEEP + "}\n")
    got = hook_records(["s-1"], tmp_path)
    assert [x.file for x in got["s-1"]] == ["/w/shop/CLAUDE.md"]


def test_a_hook_input_nested_too_deep_is_refused_as_not_json(tmp_path: Path) -> None:
    from learn.hook.event import BadHookInput, parse_event
    from learn.hook_input import hook_object, read_stdin
    from learn.transcripts.instructions import BadLoadRecord, append_hook_record

    raw = ('{"session_id": "s-1", "x": ' + DEEP + "}").encode()
    with pytest.raises(ValueError, match="nested too deep"):
        hook_object(raw)
    with pytest.raises(BadHookInput):
        parse_event(raw)
    with pytest.raises(BadLoadRecord):
        append_hook_record(raw, tmp_path)
    read, write = os.pipe()
    with os.fdopen(write, "wb") as w:
        w.write(raw)
    with os.fdopen(read, "rb") as r:
        assert read_stdin(r, timeout=5) == raw  # read whole; hook_object then refuses it


def test_a_claude_line_with_a_bad_byte_before_its_deep_part_decodes_to_nothing() -> None:
    """The retry with the bad byte replaced is the decode that meets the depth."""
    from learn.transcripts.parser import decode_untyped

    assert decode_untyped(b'{"a": "\xff", "b": ' + DEEP.encode() + b"}") is None


# ---------------------------------------------------------------- other agents' readers


def _typed(path: Path) -> list[str]:
    from learn.transcripts.parser import parse
    from learn.transcripts.view.session import build_session

    return [t.text for t in build_session(parse(path)).human_turns]


def _skipped(path: Path) -> dict[str, int]:
    from learn.transcripts.parser import parse

    return dict(parse(path).skipped)


def test_a_gemini_line_nested_too_deep_is_skipped_and_counted(tmp_path: Path) -> None:
    chat = GeminiChat("ab12cd34-0000-4000-8000-000000000011")
    chat.user("the good turn")
    path = chat.write_jsonl(tmp_path / "chats" / "session-2026-11-20T09-00-ab12cd34.jsonl")
    with path.open("a") as fh:
        fh.write(DEEP + "\n")
    chat.user("the turn after it")
    assert _skipped(path) == {"too_deep": 1}
    assert _typed(path) == ["the good turn"]


def test_a_gemini_file_whose_first_line_is_too_deep_keeps_its_other_lines(tmp_path: Path) -> None:
    """The whole-file (JSON era) decode meets the deep line first: the file is still
    read line by line, as a JSONL file."""
    chat = GeminiChat("ab12cd34-0000-4000-8000-000000000012")
    chat.user("still read")
    path = chat.write_jsonl(tmp_path / "chats" / "session-2026-11-20T09-00-ab12cd34.jsonl")
    path.write_bytes(b'{"sessionId": "x", "projectHash": "y", "z": ' + DEEP.encode() + b"}\n"
                     + path.read_bytes())
    assert _skipped(path) == {"too_deep": 1}
    assert _typed(path) == ["still read"]


def test_a_gemini_json_era_file_nested_too_deep_is_one_record_skipped(tmp_path: Path) -> None:
    from learn.transcripts.gemini.places import head_of

    chat = GeminiChat("ab12cd34-0000-4000-8000-000000000013")
    chat.user("lost with the rest of the file")
    path = chat.write_json(tmp_path / "chats" / "session-2026-11-20T09-00-ab12cd34.json")
    text = path.read_text()
    end = text.rfind("}")
    path.write_text(text[:end] + ', "extra": ' + DEEP + "}")
    assert _skipped(path) == {"too_deep": 1}
    assert head_of(path).session_id == "ab12cd34-0000-4000-8000-000000000013"


def test_a_gemini_registry_nested_too_deep_is_read_as_no_registry(tmp_path: Path) -> None:
    import hashlib

    from learn.transcripts.files.discover import scan
    from learn.transcripts.gemini.places import project_roots

    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    base = Path.home() / ".gemini"
    base.mkdir()
    (base / "projects.json").write_text('{"projects": ' + DEEP + "}")
    assert project_roots(base) == {}
    folder = hashlib.sha256(str(project).encode()).hexdigest()
    chat = GeminiChat(f"{folder[:8]}-0000-4000-8000-000000000014")
    chat.user("placed by its folder's hash")
    chat.write_jsonl(base / "tmp" / folder / "chats" / f"session-2026-11-20T09-00-{folder[:8]}.jsonl")
    [found] = scan(project=project).files
    assert found.project == str(project)


def test_a_copilot_stream_with_a_line_too_deep_first_is_still_placed(tmp_path: Path) -> None:
    from learn.transcripts.copilot.places import head_of
    from learn.transcripts.files.discover import scan

    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    sid = "ee55ff66-0000-4000-8000-000000000015"
    events = CopilotEvents(sid, cwd=str(project))
    events.user("add a changelog entry for every fix")
    path = events.write(Path.home() / ".copilot" / "session-state" / sid / "events.jsonl")
    path.write_bytes(DEEP.encode() + b"\n" + path.read_bytes())
    assert (head_of(path).session_id, head_of(path).cwd) == (sid, str(project))
    [found] = scan(project=project).files
    assert found.path == path


def test_a_copilot_line_nested_too_deep_is_skipped_and_counted(tmp_path: Path) -> None:
    events = CopilotEvents("ee55ff66-0000-4000-8000-000000000017")
    events.user("add a changelog entry for every fix")
    path = events.write(tmp_path / "events.jsonl")
    with path.open("a") as fh:
        fh.write('{"type": "user.message", "data": ' + DEEP + "}\n")
    assert _skipped(path) == {"too_deep": 1}
    assert _typed(path) == ["add a changelog entry for every fix"]


def test_copilot_tool_arguments_nested_too_deep_are_kept_as_text(tmp_path: Path) -> None:
    from learn.transcripts.blocks import ToolUseBlock
    from learn.transcripts.models import AssistantEvent
    from learn.transcripts.parser import parse

    events = CopilotEvents("cd34ef56-0000-4000-8000-000000000016")
    events.user("run it")
    events.reply("running", calls=[("call-1", "bash", DEEP)])  # type: ignore[list-item]
    path = events.write(tmp_path / "events.jsonl")
    [use] = [b for e in parse(path).events if isinstance(e, AssistantEvent)
             for b in e.blocks if isinstance(b, ToolUseBlock)]
    assert use.input == {"input": DEEP}


def _opencode_db(home: Path, session: OpenCodeSession) -> Path:
    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True, exist_ok=True)
    db = data / "opencode.db"
    conn = apsw.Connection(str(db))
    with conn:
        for _ in conn.execute(database_sql() + session.sql()):
            pass
    return db


def test_opencode_store_rows_nested_too_deep_are_skipped_and_the_session_read(
        tmp_path: Path) -> None:
    from learn.transcripts.files.discover import scan

    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    s = OpenCodeSession("ses_deep0001", directory=str(project))
    s.user("keep the old import path working")
    s.reply(s.text("ok"))
    db = _opencode_db(Path.home(), s)
    conn = apsw.Connection(str(db))
    with conn:
        mid = s.messages[0][0]["id"]
        conn.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, "
                     "data) VALUES ('prt_deep', ?, ?, 1, 1, ?)",
                     (mid, s.id, '{"type": "text", "text": ' + DEEP + "}"))
        conn.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) "
                     "VALUES ('msg_deep', ?, 2, 2, ?)", (s.id, DEEP))
    [found] = scan(project=project).files
    assert _typed(found.path) == ["keep the old import path working"]
    assert _skipped(found.path) == {"undecodable": 2}  # the part and the message, counted


def test_opencode_json_store_files_nested_too_deep_are_skipped_and_the_session_read(
        tmp_path: Path) -> None:
    from learn.transcripts.files.discover import scan

    project = tmp_path / "work" / "shop"
    project.mkdir(parents=True)
    s = OpenCodeSession("ses_deep0002", directory=str(project))
    s.user("pin the node version")
    s.reply(s.text("ok"))
    storage = Path.home() / ".local" / "share" / "opencode"
    session_file = s.write_storage(storage)
    reply_id, parts = s.messages[1]
    (storage / "storage" / "part" / reply_id["id"] / f"{parts[0]['id']}.json").write_text(DEEP)
    (storage / "storage" / "message" / s.id / "msg_zzzz.json").write_text(DEEP)
    [found] = scan(project=project).files
    assert found.path == session_file
    assert _typed(found.path) == ["pin the node version"]
    assert _skipped(found.path) == {"undecodable": 2}  # the part and the message, counted


def test_an_opencode_session_file_nested_too_deep_is_read_as_empty(tmp_path: Path) -> None:
    from learn.transcripts.opencode.storage import session_of

    s = OpenCodeSession("ses_deep0003", directory="/w/shop")
    session_file = s.write_storage(tmp_path)
    session_file.write_text(DEEP)
    facts = session_of(session_file)
    # No directory of its own: the project's worktree, as for any unreadable session file.
    assert (facts.id, facts.directory) == ("ses_deep0003", "/w/shop")


def test_an_opencode_record_nested_too_deep_is_counted_when_lowered() -> None:
    from learn.transcripts.opencode.lower import lower

    head = b'{"opencode":"session","id":"ses_x","directory":"/w","time":{"created":1}}'
    _, skipped = lower(head + b"\n" + DEEP.encode() + b"\n")
    assert skipped == {"too_deep": 1}


# ---------------------------------------------------------------- models' answers


ROWS_TOOL = ToolSpec("record_verdicts", "Judge.", {
    "type": "object", "required": ["verdicts"],
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}}},
})


def test_an_array_sent_as_a_string_nested_too_deep_is_left_for_the_schema_check() -> None:
    from learn.models.tool_schema import schema_problems, unstringify

    answer = {"verdicts": DEEP}
    assert unstringify(answer, ROWS_TOOL.input_schema) == answer
    assert schema_problems(answer, ROWS_TOOL.input_schema) == [
        "verdicts: expected array, got str"]


def test_the_tolerant_readers_find_no_rows_in_a_string_nested_too_deep() -> None:
    from learn.reduce.answers import LabelsAnswer, recover_rows, rows_of

    assert rows_of(DEEP) == [] and recover_rows(DEEP) == []
    assert recover_rows('[{"id": 0}, ' + DEEP[1:]) == [{"id": 0}]  # the rows before it stand
    assert LabelsAnswer.model_validate({"labels": DEEP}).labels == []


@pytest.fixture
def anthropic() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(responder=lambda r: {"verdicts": [{"id": 0}]}) as server:
        yield server


def _anthropic(server: FakeAnthropicServer, attempts: int) -> Any:
    from learn.models.anthropic_backend import AnthropicBackend

    return AnthropicBackend(
        api_key="k", base_url=server.base_url,
        retry=RetryPolicy(max_attempts=attempts, initial_backoff=0, jitter=0, sleep=lambda s: None),
        limiter=RateLimiter(None, 4, sleep=lambda s: None))


def _judge_request() -> ModelRequest:
    return ModelRequest("judge", "claude-haiku-4-5", "Judge.", ROWS_TOOL, "ITEMS:\n0. x")


def test_a_model_answer_nested_too_deep_is_sent_back_for_repair(
        anthropic: FakeAnthropicServer) -> None:
    from pydantic import BaseModel

    from learn.models.call import call_tool

    class Verdicts(BaseModel):
        verdicts: list[dict[str, object]]

    anthropic.enqueue_answer({"verdicts": DEEP})
    parsed, response = call_tool(_anthropic(anthropic, attempts=2), _judge_request(), Verdicts)
    assert parsed.verdicts == [{"id": 0}] and response.usage.calls == 2
    assert "verdicts: expected array, got str" in anthropic.requests[1].tool_results[0]["content"]


def test_an_anthropic_reply_nested_too_deep_is_a_model_error(
        anthropic: FakeAnthropicServer) -> None:
    anthropic.enqueue(Reply(200, DEEP.encode(), {"content-type": "application/json"}))
    with pytest.raises(ModelError, match="nested too deep to read"):
        _anthropic(anthropic, attempts=1).call(_judge_request())


def test_text_nested_too_deep_holds_no_json_object() -> None:
    assert extract_json_object(DEEP_OBJECT) is None
    assert extract_json_object("Here it is:\n```json\n" + DEEP_OBJECT + "\n```") is None


def test_a_miner_answer_nested_too_deep_yields_no_candidates() -> None:
    from learn.mining.parse import parse_answer

    assert parse_answer(DEEP_OBJECT) is None  # malformed: the miner counts and skips it
    assert parse_answer(DEEP) is None
    # The list named, none of its rows whole: what a cut answer's salvage gives.
    assert parse_answer({"candidates": DEEP}) == []


@pytest.fixture
def openai() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def _openai(server: FakeOpenAIServer) -> Any:
    from learn.models.openai_backend import OpenAIBackend

    backend = OpenAIBackend(server.base_url + "/v1", "qwen3-coder",
                            limiter=RateLimiter(None, None),
                            retry=RetryPolicy(max_attempts=1, sleep=lambda s: None))
    backend.memo.set(backend.url, "qwen3-coder", "tools")
    return backend


def _request() -> ModelRequest:
    return ModelRequest("judge", "qwen3-coder", "Judge.", ROWS_TOOL, "ITEMS:\n0. x", 512)


def test_an_openai_reply_nested_too_deep_is_not_json(openai: FakeOpenAIServer) -> None:
    openai.enqueue(Reply(200, DEEP.encode(), {"content-type": "application/json"}))
    with pytest.raises(ModelError, match="the reply is not JSON"):
        _openai(openai).call(_request())


def test_an_openai_error_reply_nested_too_deep_is_still_reported(openai: FakeOpenAIServer) -> None:
    openai.enqueue(Reply(401, DEEP.encode(), {"content-type": "application/json"}))
    with pytest.raises(ModelError, match="HTTP 401"):
        _openai(openai).call(_request())


def test_openai_arguments_nested_too_deep_are_a_malformed_answer(openai: FakeOpenAIServer) -> None:
    openai.enqueue_answer(DEEP_OBJECT)
    with pytest.raises(MalformedAnswer, match="not valid JSON"):
        _openai(openai).call(_request())


# ---------------------------------------------------------------- files a person keeps


def test_a_settings_file_nested_too_deep_is_refused_not_rewritten(tmp_path: Path) -> None:
    from learn.report.json_settings import SettingsError, parse_settings

    path = tmp_path / "settings.json"
    with pytest.raises(SettingsError, match="nested too deep"):
        parse_settings('{"permissions": ' + DEEP + "}", path)


def test_a_checked_in_settings_file_nested_too_deep_does_not_stop_an_install(
        tmp_path: Path) -> None:
    from learn.commands.install_claude_command import command as install

    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"hooks": ' + DEEP + "}")
    result = CliRunner().invoke(install, ["--project", "--project-dir", str(project), "--hooks", "--yes"])
    assert result.exit_code == 0, result.output
    assert (project / ".claude" / "commands" / "learn.md").exists()


def test_a_check_file_nested_too_deep_is_bad_rules_and_a_deep_hit_is_skipped(
        tmp_path: Path) -> None:
    from learn.guard.rules import BadRules, hits_path, parse_rules, read_hits

    with pytest.raises(BadRules, match="nested too deep"):
        parse_rules('{"format": 1, "rules": ' + DEEP + "}")
    rules = tmp_path / "checks.json"
    Path(hits_path(rules)).write_text('{"rule": "a"}\n' + DEEP + "\n" + '{"rule": "b"}\n')
    assert [h["rule"] for h in read_hits(rules)] == ["a", "b"]




def test_claude_auth_status_nested_too_deep_is_an_unknown_login() -> None:
    from learn.models.preflight import parse_login

    assert parse_login(b"[" * 5000).logged_in is None


def test_a_codex_config_nested_too_deep_leaves_the_defaults(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.reduce.rule_target import CODEX_DOC_MAX_BYTES, codex_doc_limit

    monkeypatch.delenv("CODEX_HOME", raising=False)
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert codex_doc_limit(tmp_path) == CODEX_DOC_MAX_BYTES


@pytest.mark.parametrize("first", [DEEP, DEEP_OBJECT, '{"type": "session.start", "data": {"sessi'])
def test_a_copilot_stream_whose_first_line_does_not_decode_is_still_copilot(
        tmp_path: Path, first: str) -> None:
    from learn.transcripts.parser import parse

    events = CopilotEvents("ee55ff66-0000-4000-8000-000000000019")
    events.user("add a changelog entry for every fix")
    path = events.write(tmp_path / "events.jsonl")
    path.write_bytes(first.encode() + b"\n" + path.read_bytes())
    assert parse(path).provider == "copilot"
    assert _typed(path) == ["add a changelog entry for every fix"]
