"""What the backend check makes of a base URL it cannot split and of an API key that
cannot go into an HTTP header, and where a failure's text is written.

From an audit: `ANTHROPIC_BASE_URL='http://[::1:8080'` was a ValueError traceback in
`learn run` and `learn doctor`; a key ending in "\\r" (exported from a file with Windows
line endings) failed the request, and the HTTP client's error, which quotes the header,
put the whole key on the terminal and in the hook's log.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropicServer

from learn.commands.run import BackendUnavailable
from learn.config import Config, checked
from learn.doctor_backend import check_backend
from learn.hook.event import parse_event
from learn.hook.queue import Job, SessionQueue
from learn.hook.worker import Log, drain
from learn.models import preflight
from learn.models.preflight import check_backend_ready, key_problem

REPO = Path(__file__).resolve().parents[1]
# The shape of a real key (not one): what the redaction recognises as an anthropic key.
KEY = "sk-ant-api03-Qw3rTy7Ui9Op1As2Df4Gh6Jk8Lz0Xc5Vb7Nm9Qa2Ws4Ed6Rf8Tg0Yh2Uj4Ik6Ol8-bcdEFgAA"
SECRET_PART = "Qw3rTy7Ui9Op1As2"
EVENT = {"session_id": "5f1c2d3e-aaaa-bbbb-cccc-000000000001", "transcript_path": "/t/s.jsonl",
         "cwd": "/work/p", "hook_event_name": "SessionEnd", "reason": "exit"}


def never_called(url: str, headers: Mapping[str, str], timeout: float) -> int:
    raise AssertionError(f"no request should be made, and one was: {url}")


def learn(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """`python -m learn` as a user runs it, in the test's temporary HOME."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_", "OPENAI_"))}
    env.update(PYTHONPATH=str(REPO), **extra)
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=120, cwd=env["HOME"])


RUN = ("run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet", "--backend", "anthropic")


# -- a base URL urlsplit cannot split ------------------------------------------------

@pytest.mark.parametrize("url", ["http://[::1:8080", "http://[::1", "http://127.0.0.1:99999",
                                 "http://127.0.0.1:abc"])
def test_a_base_url_that_cannot_be_split_is_a_url_to_fix(url: str) -> None:
    ready = check_backend_ready("anthropic", Config(), env={"ANTHROPIC_API_KEY": "k",
                                                          "ANTHROPIC_BASE_URL": url},
                                get=never_called)
    assert not ready.ok and ready.problem == "setup"
    assert ready.detail == f"anthropic: {url!r} is not an http(s) URL"
    assert "ANTHROPIC_BASE_URL" in ready.hint


def test_an_openai_url_that_cannot_be_split_is_a_url_to_fix() -> None:
    config = checked(Config, {"backend": {"name": "openai", "openai_base_url": "http://[::1:8080/v1"}})
    ready = check_backend_ready("openai", config, env={}, get=never_called)
    assert not ready.ok and ready.problem == "setup" and "is not an http(s) URL" in ready.detail


def test_run_and_doctor_say_the_base_url_is_wrong_in_one_line() -> None:
    url = "http://[::1:8080"
    done = learn(*RUN, ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=url)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"learn run: anthropic: {url!r} is not an http(s) URL; fix: check ANTHROPIC_BASE_URL / "
        "[backend] base_url, or unset it for api.anthropic.com"]
    doctor = learn("doctor", ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=url)
    assert "Traceback" not in doctor.stderr, doctor.stderr
    assert f"anthropic: {url!r} is not an http(s) URL" in doctor.stdout


# -- a key that cannot go into a header -----------------------------------------------

@pytest.mark.parametrize(("key", "said"), [
    (KEY + "\r", "contains a carriage return (\\r, a Windows line ending) at its end"),
    (KEY + "\n", "contains a line break (\\n) at its end"),
    (" " + KEY, "contains a space or a tab at its start"),
    (KEY[:10] + "\t" + KEY[10:], f"contains a space or a tab at character 11 of {len(KEY) + 1}"),
    (KEY + "\x7f", "contains a control character (U+007F) at its end"),
    (KEY + "\x00", "contains a control character (U+0000) at its end"),
    (KEY + "\u00a0", "contains a non-ASCII space (U+00A0) at its end"),
    ("\u201c" + KEY + "\u201d", "contains a non-ASCII character (U+201C"),
])
def test_a_key_that_cannot_go_into_a_header_is_refused_without_a_request(key: str, said: str) -> None:
    ready = check_backend_ready("anthropic", Config(), env={"ANTHROPIC_API_KEY": key},
                                get=never_called)
    assert not ready.ok and ready.problem == "setup"
    assert ready.detail.startswith(f"anthropic: ANTHROPIC_API_KEY {said}")
    assert "check how it was exported" in ready.hint
    assert SECRET_PART not in ready.line()


def test_a_key_of_printable_ascii_goes_to_the_endpoint_as_it_is() -> None:
    sent: list[str] = []

    def get(url: str, headers: Mapping[str, str], timeout: float) -> int:
        sent.append(headers["x-api-key"])
        return 200

    assert key_problem(KEY) == "" and key_problem("!~") == ""
    ready = check_backend_ready("anthropic", Config(), env={"ANTHROPIC_API_KEY": KEY}, get=get)
    assert ready.ok and sent == [KEY]


def test_an_openai_key_that_cannot_go_into_a_header_is_refused_too() -> None:
    config = checked(Config, {"backend": {"name": "openai", "openai_base_url": "http://127.0.0.1:1/v1"}})
    ready = check_backend_ready("openai", config, env={"OPENAI_API_KEY": "sk-local\r"},
                                get=never_called)
    assert not ready.ok and ready.problem == "setup"
    assert ready.detail.startswith("openai: OPENAI_API_KEY contains a carriage return")
    assert "sk-local" not in ready.line()


def test_run_refuses_the_key_in_one_line_that_does_not_quote_it() -> None:
    with FakeAnthropicServer() as fake:
        done = learn(*RUN, ANTHROPIC_API_KEY=KEY + "\r", ANTHROPIC_BASE_URL=fake.base_url)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("learn run: anthropic: ANTHROPIC_API_KEY contains a carriage return")
    assert "check how it was exported" in line
    assert SECRET_PART not in done.stderr + done.stdout
    assert fake.probes == [] and fake.requests == []


def test_the_background_worker_logs_the_refusal_without_the_key(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeAnthropicServer() as fake:
        done = learn("hook", "drain", "--backend", "anthropic", LEARN_DATA_DIR=str(data),
                     ANTHROPIC_API_KEY=KEY + "\r", ANTHROPIC_BASE_URL=fake.base_url)
    assert done.returncode == 0, done.stderr
    log = (data / "hook" / "hook.log").read_text(encoding="utf-8")
    assert "worker: UsageProblem: anthropic: ANTHROPIC_API_KEY contains a carriage return" in log
    assert SECRET_PART not in log


# -- failure text that quotes a key, wherever it is shown or written ----------------------

def quoting_the_key(url: str, headers: Mapping[str, str], timeout: float) -> int:
    """A transport error that quotes the header, as h11's "Illegal header value" does."""
    raise OSError(f"Illegal header value b'{headers['x-api-key']}'")


def test_doctor_shows_a_failure_quoting_the_key_redacted() -> None:
    check = check_backend(Config(), env={"ANTHROPIC_API_KEY": KEY}, which=lambda _: None,
                          get=quoting_the_key)
    assert check.status == "warn" and "Illegal header value" in check.detail
    assert SECRET_PART not in check.detail + check.hint
    assert "[REDACTED:anthropic-key]" in check.detail


def test_run_stops_with_a_failure_quoting_the_key_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.commands.run import build_backend

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setattr(preflight, "http_get", quoting_the_key)
    with pytest.raises(BackendUnavailable) as raised:
        build_backend("anthropic", record=False, cache_dir=None, config=Config())
    assert "Illegal header value" in str(raised.value)
    assert SECRET_PART not in str(raised.value)


def test_the_hook_log_never_holds_a_key(tmp_path: Path) -> None:
    log = Log(tmp_path / "hook")
    log.write(f"worker: BackendUnavailable: anthropic: nothing answers (b'{KEY}\\r')")
    text = log.path.read_text(encoding="utf-8")
    assert SECRET_PART not in text and "[REDACTED:anthropic-key]" in text


def test_a_session_failing_with_the_key_in_its_error_is_logged_and_requeued_redacted(
        tmp_path: Path) -> None:
    queue = SessionQueue(tmp_path)
    queue.put(parse_event(json.dumps(EVENT).encode()))

    def mine(job: Job) -> str:
        # Past the 500 characters a job keeps of its error: a cut key is no longer one.
        raise RuntimeError("x" * 420 + f" Illegal header value b'{KEY}'")

    stats = drain(queue, mine, Log(queue.root), lock_dir=tmp_path, interval=0)
    assert stats.failed == 1
    log = (queue.root / "hook.log").read_text(encoding="utf-8")
    job = (queue.queued / f"{EVENT['session_id']}.json").read_text(encoding="utf-8")
    for written in (log, job):
        assert "Illegal header value" in written and "[REDACTED:anthropic-key]" in written
        assert "Qw3rT" not in written
