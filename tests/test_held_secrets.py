"""The credentials learn holds are redacted by their value, whatever their shape.

A proxy's key (`proxy-7f3a9c2e1b`) or a short token matches none of the shape rules,
so an endpoint that quoted it back in an error put it on the terminal, in hook.log,
in the queue and in the run's record; a session that ran `env` sent it to the model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import RecordedRequest, Reply
from test_e2e_robust import FaultyServer
from test_e2e_run import _env, _learn

from evals.corpora import demo
from learn.held_secrets import MIN_HELD_CHARS, HeldSecret, held_secrets, redact_held
from learn.redaction.redact import redact, redact_message

# Of no vendor's shape: the shape rules leave both alone (asserted below).
HELD_KEY = "proxy-7f3a9c2e1b"
HELD_TOKEN = "tk9Qa7Zr1x"  # 10 characters
DB_PASSWORD = "Tr0ub4dor&3"  # written %26 in the URL
DB_URL = "postgresql://learn:Tr0ub4dor%263@db.internal:5432/learn"


def _hold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", HELD_KEY)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", HELD_TOKEN)
    monkeypatch.setenv("LEARN_DATABASE_URL", DB_URL)


def test_the_shape_rules_alone_let_these_values_through() -> None:
    text = f"401: invalid x-api-key {HELD_KEY}, token {HELD_TOKEN}, pw {DB_PASSWORD}"
    assert redact(text) == text


def test_the_held_secrets_are_the_endpoint_credentials_and_the_url_passwords(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[team]\ndatabase_url = "postgresql://me:team-pass-77@team.example/learn"\n'
                      '[backend]\nbase_url = "https://gw:gateway-pw-1@gw.example"\n',
                      encoding="utf-8")
    env = {"ANTHROPIC_API_KEY": HELD_KEY + "\r", "ANTHROPIC_AUTH_TOKEN": HELD_TOKEN,
           "OPENAI_API_KEY": "sk-local-123456", "LEARN_DATABASE_URL": DB_URL}
    held = {(s.value, s.kind, s.endpoint) for s in held_secrets(env, config)}
    assert held == {
        (HELD_KEY, "api-key", True),  # as the header sends it, without the "\r"
        (HELD_TOKEN, "auth-token", True),
        ("sk-local-123456", "api-key", True),
        ("Tr0ub4dor%263", "password", False), (DB_PASSWORD, "password", False),
        ("team-pass-77", "password", False),
        ("gateway-pw-1", "password", True),
    }


def test_a_value_too_short_to_be_told_from_a_word_is_not_held() -> None:
    short = "k" * (MIN_HELD_CHARS - 1)
    env = {"ANTHROPIC_API_KEY": short, "LEARN_DATABASE_URL": "postgresql://u:pw1@h/d"}
    assert held_secrets(env, Path("/nonexistent/config.toml")) == ()
    assert redact_held(f"{short}: pw1 kept", ()) == f"{short}: pw1 kept"


def test_a_held_value_is_replaced_wherever_it_appears(monkeypatch: pytest.MonkeyPatch) -> None:
    _hold(monkeypatch)
    said = redact_message(f"HTTP 401: invalid x-api-key header: {HELD_KEY}\nBearer{HELD_TOKEN}!"
                          f" (password {DB_PASSWORD!r} for learn@db) key={HELD_KEY}x")
    for secret in (HELD_KEY, HELD_TOKEN, DB_PASSWORD):
        assert secret not in said
    assert said.count("[REDACTED:api-key]") == 2 and "[REDACTED:auth-token]" in said
    assert "[REDACTED:password]" in said
    # The longer value goes whole when it holds a shorter one.
    both = (HeldSecret("abcdef123456", "api-key", True), HeldSecret("abcdef", "password", False))
    assert redact_held("abcdef123456 and abcdef", both) == "[REDACTED:api-key] and [REDACTED:password]"


def test_no_request_body_carries_the_endpoints_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.models.anthropic_backend import AnthropicBackend
    from learn.models.base import Correction, ModelRequest, ToolSpec
    from learn.models.claude_cli import build_command
    from learn.models.openai_backend import build_payload

    _hold(monkeypatch)
    tool = ToolSpec("record_candidates", "record", {"type": "object", "properties": {}})
    # A session that ran `env`: the transcript chunk quotes the key.
    request = ModelRequest(
        step="mine", model="claude-haiku-4-5", system=f"system {HELD_KEY}", tool=tool,
        user=f"$ env\nANTHROPIC_API_KEY={HELD_KEY}\nANTHROPIC_AUTH_TOKEN={HELD_TOKEN}\n",
        corrections=(Correction({"candidates": []}, f"bad answer near {HELD_KEY}"),))
    assert HELD_KEY not in request.user + request.system + request.corrections[0].error
    assert HELD_TOKEN not in request.user
    assert "[REDACTED:api-key]" in request.user
    for body in (json.dumps(build_payload(request, "local")),
                 json.dumps(build_command("claude", request))):
        assert HELD_KEY not in body and HELD_TOKEN not in body
    with FakeAnthropicServer() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        AnthropicBackend().call(request)
        [sent] = fake.requests
    # The credential goes where it belongs, in a header.
    assert any(HELD_KEY in v or HELD_TOKEN in v for v in sent.headers.values())
    assert HELD_KEY.encode() not in sent.raw and HELD_TOKEN.encode() not in sent.raw
    # A store password is not an endpoint's credential: transcripts keep the word.
    kept = ModelRequest(step="mine", model="m", system="s", tool=tool, user=f"pw {DB_PASSWORD}")
    assert kept.user == f"pw {DB_PASSWORD}"


class EchoingProxy(FaultyServer):
    """A proxy that fails every mining call with a 400 quoting the key it was sent."""

    def default_reply(self, request: RecordedRequest) -> Reply:
        if request.tool_name == "record_candidates":
            # The SDK sends a key of no `sk-ant-` shape as a bearer token.
            key = (request.headers.get("x-api-key")
                   or request.headers.get("authorization", "").removeprefix("Bearer "))
            return self.error_reply(400, message=f"invalid x-api-key header: {key}")
        return super().default_reply(request)


def test_a_failure_quoting_a_proxy_key_is_printed_and_stored_redacted(tmp_path: Path) -> None:
    root = tmp_path / "home"
    gold = demo.build(root)
    with EchoingProxy(gold) as fake:
        env = {**_env(root, fake), "ANTHROPIC_API_KEY": HELD_KEY}
        done = _learn(["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes"], env)
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert any("invalid x-api-key header: [REDACTED:api-key]" in f for f in result["failures"])
    assert HELD_KEY not in done.stdout and HELD_KEY not in done.stderr
    for stored in [*(root / "data").rglob("*"), *(root / "cache").rglob("*")]:
        if stored.is_file():
            assert HELD_KEY.encode() not in stored.read_bytes(), stored


def _quoting_get(url: str, headers: object, timeout: float) -> int:
    # What http.client says of a header value it refuses: the value, whole.
    raise ValueError(f"Invalid header value b'{HELD_KEY}' for x-api-key")


def test_doctor_and_the_run_preflight_never_quote_the_held_key(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.commands.run import UsageProblem, build_backend
    from learn.config import load_config
    from learn.doctor_backend import check_backend

    _hold(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    check = check_backend(None, env={"ANTHROPIC_API_KEY": HELD_KEY,
                                     "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
                          which=lambda name: None, get=_quoting_get)
    assert check.status == "warn" and "Invalid header value" in check.detail
    assert HELD_KEY not in check.detail + check.hint
    monkeypatch.setattr("learn.models.preflight.http_get", _quoting_get)
    with pytest.raises(UsageProblem) as stopped:
        build_backend("anthropic", record=False, cache_dir=None, config=load_config())
    assert "Invalid header value" in str(stopped.value)
    assert HELD_KEY not in str(stopped.value)


def test_doctor_takes_held_values_out_of_every_line(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.doctor import run_checks

    # A data directory whose path holds the token: contrived, but any line may quote one.
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", HELD_TOKEN)
    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / f"data-{HELD_TOKEN}"))
    checks = run_checks()
    data = next(c for c in checks if c.name == "data dir")
    assert "data-[REDACTED:auth-token]" in data.detail
    assert not any(HELD_TOKEN in c.detail + c.hint for c in checks)


def test_the_hook_log_and_the_queue_never_hold_the_held_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.hook.event import parse_event
    from learn.hook.queue import SessionQueue
    from learn.hook.worker import Log

    _hold(monkeypatch)
    q = SessionQueue(tmp_path)
    q.put(parse_event(json.dumps({"session_id": "s1", "transcript_path": "/t/s1.jsonl",
                                  "cwd": "/w", "hook_event_name": "SessionEnd"}).encode()))
    job = next(q.jobs())
    error = f"ModelError: HTTP 401 invalid key {HELD_KEY} (db {DB_PASSWORD})"
    assert q.retry(job, error)
    Log(q.root).write(f"session s1: {error} (will retry)")
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert b"invalid key [REDACTED:api-key]" in written
    assert HELD_KEY.encode() not in written and DB_PASSWORD.encode() not in written

