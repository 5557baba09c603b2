"""Issue 18 item 5: the chosen backend is checked once, before the pipeline, and a
backend that cannot work stops the run with one line; doctor checks the configured one.

The CLI runs as a user runs it (`python -m learn`), over the demo corpus, with a
stand-in `claude`, a fake OpenAI server and a port with nothing behind it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from fakes.claude_stub import OLD_HELP, write_claude_stub
from fakes.openai_server import FakeOpenAIServer

from evals.corpora import demo
from learn.config import Config, checked
from learn.doctor_backend import check_backend
from learn.models.preflight import LoginState, check_backend_ready, parse_login

REPO = Path(__file__).resolve().parents[1]
RUN = ["run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet"]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    demo.build(tmp_path / "corpus")
    return tmp_path / "corpus" / "home"


def learn(home: Path, *args: str, path: str = "", **extra: str) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_", "OPENAI_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), PATH=path or os.path.dirname(sys.executable),
               **extra)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=120, cwd=home)
    return done, time.monotonic() - start


def only_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_claude_cli_without_claude_stops_before_reading_a_session(corpus: Path) -> None:
    done, _ = learn(corpus, *RUN, "--backend", "claude-cli")
    assert done.returncode == 2 and done.stdout == ""
    line = only_line(done)
    assert line.startswith("learn run: claude-cli: `claude` not found on PATH; fix: install")
    assert "failed after retries" not in done.stderr
    # Nothing was mined or stored: the run never started.
    assert not (corpus / ".local" / "share" / "learn" / "learn.db").exists()


def test_a_claude_too_old_for_the_isolation_flags_stops_the_run(corpus: Path, tmp_path: Path) -> None:
    stub = write_claude_stub(tmp_path / "bin", version="1.0.53 (Claude Code)", help_text=OLD_HELP)
    done, _ = learn(corpus, *RUN, "--backend", "claude-cli",
                    path=f"{stub.path.parent}{os.pathsep}{os.path.dirname(sys.executable)}")
    assert done.returncode == 2
    assert "Claude Code 1.0.53" in only_line(done) and "too old" in done.stderr
    assert stub.calls() == []  # no model call was made


def test_openai_with_nothing_listening_stops_in_seconds(corpus: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    done, took = learn(corpus, *RUN, "--backend", "openai", LEARN_OPENAI_BASE_URL=url)
    assert done.returncode == 3  # EXIT_UNAVAILABLE
    line = only_line(done)
    assert line.startswith(f"learn run: openai: nothing answers at {url} (")
    assert "LEARN_OPENAI_BASE_URL" in line
    assert took < 15  # was 54-92 s behind a progress bar


def test_anthropic_with_an_endpoint_that_is_not_there_stops(corpus: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    done, took = learn(corpus, *RUN, "--backend", "anthropic", ANTHROPIC_API_KEY="k",
                       ANTHROPIC_BASE_URL=url)
    assert done.returncode == 3
    assert only_line(done) == (f"learn run: anthropic: nothing answers at {url} (connection "
                               "refused); fix: check ANTHROPIC_BASE_URL / [backend] base_url, or "
                               "unset it for api.anthropic.com, or run without a model: "
                               "learn run --offline")
    assert took < 10
    assert not (corpus / ".local" / "share" / "learn" / "learn.db").exists()


def _no_network(argv: list[str]) -> list[str] | None:
    """argv run with no network at all (its own empty network namespace), or None."""
    for wrap in (["unshare", "--net"], ["unshare", "--net", "--map-root-user"]):
        try:
            ok = subprocess.run([*wrap, "true"], capture_output=True, timeout=10).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if ok:
            return [*wrap, *argv]
    return None


def test_the_default_api_unresolvable_is_one_line_at_once(corpus: Path) -> None:
    """api.anthropic.com with no DNS: said before anything is read, not 10 minutes of silence
    and 30 of retries. Run in an empty network namespace, so nothing leaves the machine."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(corpus), PYTHONPATH=str(REPO), ANTHROPIC_API_KEY="sk-ant-test")
    argv = _no_network([sys.executable, "-m", "learn", *RUN, "--backend", "anthropic"])
    if argv is None:
        pytest.skip("needs `unshare --net` (a network namespace) to take DNS away")
    start = time.monotonic()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, cwd=corpus)
    took = time.monotonic() - start
    assert done.returncode == 3, done.stderr
    line = only_line(done)
    assert line.startswith("learn run: anthropic: cannot resolve api.anthropic.com (no DNS answer")
    assert "fix: check the network" in line and "--offline" in line
    assert took < 10
    assert not (corpus / ".local" / "share" / "learn" / "learn.db").exists()


def test_a_refused_key_is_one_line_and_no_model_call(corpus: Path) -> None:
    with FakeAnthropicServer(accept_key="sk-ant-right") as fake:
        done, took = learn(corpus, *RUN, "--backend", "anthropic", ANTHROPIC_API_KEY="sk-ant-wrong",
                           ANTHROPIC_BASE_URL=fake.base_url)
    assert done.returncode == 3
    line = only_line(done)
    assert line.startswith("learn run: anthropic: 127.0.0.1 refused the API key (HTTP 401); fix: "
                           "check ANTHROPIC_API_KEY")
    assert "sk-ant-wrong" not in done.stderr
    assert fake.requests == [] and len(fake.probes) == 1  # one GET /v1/models, no Messages call
    assert took < 10


def test_tls_that_fails_is_named(corpus: Path) -> None:
    with FakeAnthropicServer() as fake:  # plain HTTP where the client expects TLS
        url = f"https://127.0.0.1:{fake.port}"
        done, took = learn(corpus, *RUN, "--backend", "anthropic", ANTHROPIC_API_KEY="k",
                           ANTHROPIC_BASE_URL=url)
    assert done.returncode == 3
    assert only_line(done).startswith("learn run: anthropic: TLS with 127.0.0.1 failed (")
    assert took < 10


def test_a_working_endpoint_passes_with_one_probe(corpus: Path) -> None:
    with FakeAnthropicServer() as fake:
        done, _ = learn(corpus, *RUN, "--backend", "anthropic", "--json",
                        ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=fake.base_url)
    assert done.returncode in (0, 1), done.stderr  # the fake's empty answers propose nothing
    assert [p.path.split("?")[0] for p in fake.probes] == ["/v1/models"]
    assert fake.probes[0].headers["x-api-key"] == "k"
    assert fake.requests  # the run went on to call the model


def test_claude_not_logged_in_stops_before_reading_a_session(corpus: Path, tmp_path: Path) -> None:
    stub = write_claude_stub(tmp_path / "bin", logged_in=False)
    for backend in ("claude-cli", "auto"):
        done, took = learn(corpus, *RUN, "--backend", backend,
                           path=f"{stub.path.parent}{os.pathsep}{os.path.dirname(sys.executable)}")
        assert done.returncode == 3, done.stderr
        line = only_line(done)
        assert "Claude Code 2.1.332" in line and "is not logged in; fix: run `claude` and type /login" in line
        assert took < 10
    assert stub.calls() == []  # no model call
    assert not (corpus / ".local" / "share" / "learn" / "learn.db").exists()


REAL_CLAUDE = Path(os.environ.get("LEARN_CLAUDE_CODE_BIN")
                   or REPO / "build" / "claude-code" / "node_modules" / ".bin" / "claude")


def test_the_real_claude_code_logged_out_is_one_line(corpus: Path, tmp_path: Path) -> None:
    """Claude Code 2.1.332 from npm, right after installing it: no login in its HOME."""
    if not REAL_CLAUDE.exists():
        if os.environ.get("LEARN_REQUIRE_CLAUDE_CODE"):
            pytest.fail(f"LEARN_REQUIRE_CLAUDE_CODE is set but {REAL_CLAUDE} is missing")
        pytest.skip("the real Claude Code is not installed (.ci/install-claude-code)")
    bin_dir = tmp_path / "realbin"
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(REAL_CLAUDE)
    path = os.pathsep.join([str(bin_dir), os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    done, took = learn(corpus, *RUN, "--backend", "auto", path=path,
                       CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
    assert done.returncode == 3, done.stderr
    line = only_line(done)
    assert line.startswith("learn run: claude-cli: Claude Code 2.1.332 at ")
    assert "is not logged in; fix: run `claude` and type /login" in line
    assert took < 10


def test_anthropic_without_a_key_is_one_line(corpus: Path) -> None:
    done, _ = learn(corpus, *RUN, "--backend", "anthropic")
    assert done.returncode == 2
    assert only_line(done).startswith("learn run: anthropic: ANTHROPIC_API_KEY is not set; fix: ")


def test_a_persistent_backend_failure_is_said_once_not_per_session(corpus: Path, tmp_path: Path) -> None:
    stub = write_claude_stub(tmp_path / "bin", stdout="", stderr="login expired\n", exit_code=1)
    done, _ = learn(corpus, *RUN, "--backend", "claude-cli",
                    path=f"{stub.path.parent}{os.pathsep}{os.path.dirname(sys.executable)}")
    assert done.returncode == 1
    mine = [x for x in done.stderr.splitlines() if x.startswith("learn: mine: ")]
    assert len(mine) == 1, done.stderr
    assert "sessions (first " in mine[0] and "login expired" in mine[0]
    # Not one call answered: stats says so, and counts the failures apart.
    stats, _ = learn(corpus, "stats", "--json")
    data = json.loads(stats.stdout)
    assert data["model_calls"] == 0 and data["failed_calls"] == len(stub.calls()) > 0
    text, _ = learn(corpus, "stats")
    assert f"model calls: 0 (and {len(stub.calls())} that failed)" in text.stdout


def _openai_config(url: str) -> Config:
    return checked(Config, {"backend": {"name": "openai", "openai_base_url": url}})


def test_doctor_checks_the_configured_openai_endpoint() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    c = check_backend(_openai_config(url), env={})
    assert c.status == "warn" and f"nothing answers at {url}" in c.detail
    assert "openai_base_url" in c.hint and "--offline" in c.hint
    with FakeOpenAIServer() as fake:
        c = check_backend(_openai_config(fake.base_url + "/v1"), env={})
    assert c.status == "ok" and "answers (HTTP" in c.detail and "configured backend: openai" in c.detail


def test_doctor_command_names_the_openai_endpoint(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text(f'[backend]\nname = "openai"\nopenai_base_url = "{url}"\n')
    done, _ = learn(tmp_path / "home", "doctor", LEARN_CONFIG_DIR=str(config))
    line = next(x for x in done.stdout.splitlines() if x.startswith("! backend"))
    assert f"nothing answers at {url}" in line


def test_readiness_of_each_backend() -> None:
    config = Config()
    assert not check_backend_ready("anthropic", config, env={}).ok
    asked: list[str] = []

    def answer(status: int) -> Callable[[str, Mapping[str, str], float], int]:
        def get(url: str, headers: Mapping[str, str], timeout: float) -> int:
            asked.append(url)
            return status
        return get

    r = check_backend_ready("anthropic", config, env={"ANTHROPIC_API_KEY": "k"}, get=answer(200))
    assert r.ok and asked == ["https://api.anthropic.com/v1/models?limit=1"]
    r = check_backend_ready("anthropic", config, env={"ANTHROPIC_API_KEY": "k"}, get=answer(403))
    assert not r.ok and r.problem == "unavailable" and "forbids this API key (HTTP 403)" in r.detail
    # A proxy without /v1/models still took the connection and the key.
    assert check_backend_ready("anthropic", config, env={"ANTHROPIC_API_KEY": "k"},
                               get=answer(404)).ok

    def refuse(url: str, headers: Mapping[str, str], timeout: float) -> int:
        raise ConnectionRefusedError("[Errno 111] Connection refused")

    r = check_backend_ready("anthropic", config, env={"ANTHROPIC_API_KEY": "k",
                                                      "ANTHROPIC_BASE_URL": "http://h:1"},
                            get=refuse)
    assert not r.ok and "nothing answers at http://h:1 (connection refused)" in r.detail

    def hang(url: str, headers: Mapping[str, str], timeout: float) -> int:
        time.sleep(30)
        return 200

    start = time.monotonic()
    r = check_backend_ready("anthropic", config, env={"ANTHROPIC_API_KEY": "k"}, get=hang)
    assert not r.ok and "no answer from api.anthropic.com within 5 s" in r.detail
    assert time.monotonic() - start < 8
    r = check_backend_ready("anthropic", config, env={"ANTHROPIC_API_KEY": "k",
                                                      "ANTHROPIC_BASE_URL": "not a url"})
    assert not r.ok and "is not an http(s) URL" in r.detail
    assert not check_backend_ready("claude-cli", config, which=lambda _: None).ok
    assert parse_login(b'{"loggedIn": false, "authMethod": "none"}') == LoginState(False, "none")
    assert parse_login(b"error: unknown command 'auth'") == LoginState(None)
    assert check_backend_ready("replay", config).ok
