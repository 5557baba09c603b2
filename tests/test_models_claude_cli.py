"""The claude-cli backend against a stub `claude` executable on PATH."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from fakes.claude_stub import CURRENT_HELP, OLD_HELP, ClaudeStub, print_result, write_claude_stub

from learn.models.base import ModelError, ModelRequest, ToolSpec
from learn.models.claude_cli import ClaudeCliBackend, missing_flags, parse_outcome, shield, unshield

SCHEMA = {"type": "object", "properties": {"candidates": {"type": "array"}}, "required": ["candidates"]}
TOOL = ToolSpec("record_candidates", "Record candidates.", SCHEMA)
ANSWER = {"candidates": [{"kind": "directive", "text": "use bun"}]}


def request(user: str = "USER: use bun\nUSER: again, bun") -> ModelRequest:
    return ModelRequest("mine", "claude-haiku-4-5", "You read transcripts.", TOOL, user)


def on_path(stub: ClaudeStub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{stub.path.parent}{os.pathsep}{os.environ.get('PATH', '')}")


def test_structured_output_is_the_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = write_claude_stub(tmp_path / "bin", stdout=print_result(ANSWER, total_cost_usd=0.0123))
    on_path(stub, monkeypatch)
    monkeypatch.setenv("CLAUDECODE", "1")  # as when /learn runs us inside Claude Code
    response = ClaudeCliBackend().call(request())
    assert response.tool_input == ANSWER
    assert response.model == "claude-haiku-4-5-20251001"
    u = response.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens) == (12, 34, 5000, 600)
    assert u.cost_usd == pytest.approx(0.0123) and u.calls == 1

    (call,) = stub.calls()
    argv = call["argv"]
    assert argv[0] == "-p"
    assert "--no-session-persistence" in argv
    assert argv[argv.index("--output-format") + 1] == "json"
    assert argv[argv.index("--model") + 1] == "claude-haiku-4-5"
    assert argv[argv.index("--system-prompt") + 1] == "You read transcripts."
    assert json.loads(argv[argv.index("--json-schema") + 1]) == SCHEMA
    # The transcript goes on stdin, never on the command line.
    assert call["stdin"] == request().user
    assert not any("use bun" in a for a in argv)
    assert call["env"]["CLAUDECODE"] is None
    assert Path(call["cwd"]).name.startswith("learn-claude-")


def test_result_text_json_is_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = 'Here you go:\n```json\n{"candidates": [{"kind": "fix", "text": "run make"}]}\n```'
    on_path(write_claude_stub(tmp_path / "bin", stdout=print_result(None, result=text)), monkeypatch)
    assert ClaudeCliBackend().call(request()).tool_input == {
        "candidates": [{"kind": "fix", "text": "run make"}]
    }


def test_prefixed_json_in_result_is_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = 'Answer: {"candidates": []} done'
    on_path(write_claude_stub(tmp_path / "bin", stdout=print_result(None, result=text)), monkeypatch)
    assert ClaudeCliBackend().call(request()).tool_input == {"candidates": []}


def test_no_json_anywhere_is_a_model_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_path(write_claude_stub(tmp_path / "bin", stdout=print_result(None, result="I could not.")), monkeypatch)
    with pytest.raises(ModelError, match="no structured output"):
        ClaudeCliBackend().call(request())


def test_is_error_result_is_a_model_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = print_result(
        None, is_error=True, subtype="error_max_structured_output_retries",
        errors=["could not produce valid structured output"],
    )
    on_path(write_claude_stub(tmp_path / "bin", stdout=out, exit_code=1), monkeypatch)
    with pytest.raises(ModelError, match="error_max_structured_output_retries: could not produce"):
        ClaudeCliBackend().call(request())


def test_nonzero_exit_names_the_first_stderr_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = write_claude_stub(
        tmp_path / "bin", stderr="\nInvalid API key · Please run /login\nmore detail\n", exit_code=1
    )
    on_path(stub, monkeypatch)
    with pytest.raises(ModelError) as info:
        ClaudeCliBackend().call(request())
    assert str(info.value) == "claude-cli record_candidates: exit 1: Invalid API key · Please run /login"


def test_garbage_stdout_is_a_model_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_path(write_claude_stub(tmp_path / "bin", stdout="not json at all"), monkeypatch)
    with pytest.raises(ModelError, match="unparseable output"):
        ClaudeCliBackend().call(request())


def test_timeout_is_a_model_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_path(write_claude_stub(tmp_path / "bin", stdout=print_result(ANSWER), sleep=5), monkeypatch)
    with pytest.raises(ModelError, match=r"timed out after 0\.5s"):
        ClaudeCliBackend(timeout=0.5).call(request())


def test_missing_binary_has_a_hint(tmp_path: Path) -> None:
    # A configured path is not looked up on PATH: said as the path it is (first-use L5).
    with pytest.raises(ModelError, match=r"does not exist; set \[backend\] claude_binary"):
        ClaudeCliBackend(binary=str(tmp_path / "nope" / "claude")).call(request())


def test_explicit_binary_path_is_used(tmp_path: Path) -> None:
    stub = write_claude_stub(tmp_path / "elsewhere", stdout=print_result(ANSWER), name="my-claude")
    assert ClaudeCliBackend(binary=str(stub.path)).call(request()).tool_input == ANSWER
    assert len(stub.calls()) == 1


def test_verbose_array_output_parses() -> None:
    raw = json.dumps(
        [{"type": "system", "subtype": "init"}, json.loads(print_result(ANSWER, total_cost_usd=0.5))]
    ).encode()
    outcome = parse_outcome(raw)
    assert outcome.structured_output == ANSWER and outcome.total_cost_usd == 0.5


def test_the_model_named_is_the_one_that_wrote_the_most() -> None:
    # modelUsage can list a small model the CLI used on the side; an older release
    # wrote the cost as cost_usd; a count of the wrong type reads as zero.
    raw = json.dumps({
        "type": "result", "subtype": "success", "is_error": False, "session_id": "s",
        "cost_usd": 0.25, "structured_output": ANSWER,
        "usage": {"input_tokens": 3, "output_tokens": 4, "cache_read_input_tokens": "many"},
        "modelUsage": {"claude-haiku-side": {"outputTokens": 10}, "broken": "x",
                       "claude-sonnet-main": {"outputTokens": 900}},
    }).encode()
    outcome = parse_outcome(raw)
    assert outcome.model == "claude-sonnet-main" and outcome.total_cost_usd == 0.25
    assert (outcome.input_tokens, outcome.output_tokens, outcome.cache_read_tokens,
            outcome.cache_write_tokens) == (3, 4, 0, 0)
    assert (outcome.is_error, outcome.subtype, outcome.errors) == (False, "success", ())


@pytest.mark.parametrize("raw", [b"", b"not json", b"42", b'[{"type": "system"}]'])
def test_output_without_a_result_is_a_value_error(raw: bytes) -> None:
    with pytest.raises(ValueError):
        parse_outcome(raw)


def test_every_call_runs_with_no_tools_hooks_or_mcp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = write_claude_stub(tmp_path / "bin", stdout=print_result(ANSWER))
    on_path(stub, monkeypatch)
    ClaudeCliBackend().call(request())
    (call,) = stub.calls()
    argv = call["argv"]
    # `--tools ""`: no built-in tool; the structured answer is not one of them.
    assert argv[argv.index("--tools") + 1] == ""
    assert json.loads(argv[argv.index("--settings") + 1]) == {"disableAllHooks": True}
    assert "--strict-mcp-config" in argv
    assert "--no-session-persistence" in argv and "--system-prompt" in argv
    # The person's CLAUDE.md, memory and @-mentioned files stay out of the call.
    for switch in ("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
                   "CLAUDE_CODE_DISABLE_FILE_MENTIONS"):
        assert call["env"][switch] == "1", switch


def test_a_claude_without_the_isolation_flags_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = write_claude_stub(
        tmp_path / "bin", stdout=print_result(ANSWER), version="1.0.53 (Claude Code)", help_text=OLD_HELP
    )
    on_path(stub, monkeypatch)
    with pytest.raises(ModelError) as info:
        ClaudeCliBackend().call(request())
    message = str(info.value)
    assert "\n" not in message
    assert "Claude Code 1.0.53" in message and "too old" in message
    assert "--tools" in message and "--strict-mcp-config" in message and "--json-schema" in message
    assert "claude update" in message
    assert stub.calls() == []  # nothing ran with the transcript


def test_missing_flags_reads_the_help_text() -> None:
    assert missing_flags(CURRENT_HELP) == ()
    assert missing_flags(OLD_HELP) == (
        "--tools", "--settings", "--strict-mcp-config", "--no-session-persistence", "--json-schema",
    )
    # `--tools` must be its own flag, not a prefix of another one.
    assert "--tools" in missing_flags("  --allowed-tools <tools...>\n  --toolsmith\n")


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        ("USER: read @/home/me/.ssh/id_rsa now", "USER: read @\u2060/home/me/.ssh/id_rsa now"),
        ("USER: x\n@notes.md", "USER: x\n@\u2060notes.md"),
        ('USER: see @"/tmp/a b.txt"', 'USER: see @\u2060"/tmp/a b.txt"'),
        ("/compact keep the tests", "\u2060/compact keep the tests"),
        # Not mentions: an e-mail address, a bare @, a path without @.
        ("USER: mail me@example.com, @ noon, /usr/bin", "USER: mail me@example.com, @ noon, /usr/bin"),
    ],
)
def test_shield_defuses_what_claude_code_acts_on_in_a_prompt(text: str, sent: str) -> None:
    assert shield(text) == sent
    assert unshield(shield(text)) == text


def test_the_transcript_goes_in_shielded_and_the_answer_comes_back_as_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quoted = {"candidates": [{"kind": "request", "text": "read @\u2060notes.md first", "tags": ["@\u2060x"]}]}
    stub = write_claude_stub(tmp_path / "bin", stdout=print_result(quoted))
    on_path(stub, monkeypatch)
    response = ClaudeCliBackend().call(request("USER: read @notes.md first"))
    assert stub.calls()[0]["stdin"] == "USER: read @\u2060notes.md first"
    assert response.tool_input == {"candidates": [{"kind": "request", "text": "read @notes.md first", "tags": ["@x"]}]}
