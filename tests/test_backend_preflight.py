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
from pathlib import Path

import pytest
from fakes.claude_stub import OLD_HELP, write_claude_stub
from fakes.openai_server import FakeOpenAIServer

from evals.corpora import demo
from learn.config import Config
from learn.doctor_backend import check_backend
from learn.models.preflight import check_backend_ready

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
    assert done.returncode == 2
    line = only_line(done)
    assert line.startswith(f"learn run: openai: nothing answers at {url} (")
    assert "LEARN_OPENAI_BASE_URL" in line
    assert took < 15  # was 54-92 s behind a progress bar


def test_anthropic_with_an_endpoint_that_is_not_there_stops(corpus: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    done, _ = learn(corpus, *RUN, "--backend", "anthropic", ANTHROPIC_API_KEY="k",
                    ANTHROPIC_BASE_URL=url)
    assert done.returncode == 2
    assert only_line(done).startswith(f"learn run: anthropic: nothing answers at {url} (")


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
    return Config.model_validate({"backend": {"name": "openai", "openai_base_url": url}})


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
    assert check_backend_ready("anthropic", config, env={"ANTHROPIC_API_KEY": "k"}).ok

    def refuse(host: str, port: int, timeout: float) -> None:
        raise ConnectionRefusedError("refused")

    r = check_backend_ready("anthropic", config, env={"ANTHROPIC_API_KEY": "k",
                                                      "ANTHROPIC_BASE_URL": "http://h:1"},
                            connect=refuse)
    assert not r.ok and "nothing answers at http://h:1 (refused)" in r.detail
    r = check_backend_ready("anthropic", config, env={"ANTHROPIC_API_KEY": "k",
                                                      "ANTHROPIC_BASE_URL": "not a url"})
    assert not r.ok and "is not an http(s) URL" in r.detail
    assert not check_backend_ready("claude-cli", config, which=lambda _: None).ok
    assert check_backend_ready("replay", config).ok
