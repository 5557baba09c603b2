"""First-use audit (M3, M4, L2, L3, L5, L8): what a new user's first commands say must be
true, one line where learn stops, and the exit code learn's README gives (2 usage or
configuration, 3 the backend cannot be used now).

The CLI runs as a user runs it (`python -m learn`) with no key and no network: a closed
port on 127.0.0.1 stands for an openai server that is not there.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from learn.models.base import ModelError, ModelRequest, ModelResponse, ToolSpec
from learn.models.replay import RecordingBackend, write_answer

REPO = Path(__file__).resolve().parents[1]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def learn(tmp_path: Path, *args: str, **env_over: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "LEARN_", "OPENAI_"))}
    env.update(HOME=str(tmp_path / "home"), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONPATH=str(REPO))
    env.update(env_over)
    (tmp_path / "home").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


# -- M3: `learn eval --live` with no backend: one line, learn run's exit code ----------

def test_eval_live_without_a_key_is_one_line_exit_2(tmp_path: Path) -> None:
    done = learn(tmp_path, "eval", "--live", "demo")
    assert done.returncode == 2, done.stderr
    assert one_line(done).startswith("learn eval: anthropic: ANTHROPIC_API_KEY is not set; fix:")
    assert "verdict" not in done.stdout


def test_eval_live_openai_with_nothing_listening_names_learns_setting(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    done = learn(tmp_path, "eval", "--live", "--backend", "openai", "demo",
                 LEARN_OPENAI_BASE_URL=url)
    assert done.returncode == 3, done.stderr
    line = one_line(done)
    assert line.startswith(f"learn eval: openai: nothing answers at {url}")
    assert "LEARN_OPENAI_BASE_URL" in line and "--base-url" not in line


def test_openai_backend_without_a_server_names_what_learn_reads() -> None:
    from learn.models.openai_backend import OpenAIBackend

    with pytest.raises(ModelError) as caught:
        OpenAIBackend()
    said = str(caught.value)
    # No learn command has --base-url; learn's setting is [backend] openai_base_url.
    assert "--base-url" not in said
    assert "[backend] openai_base_url" in said and "LEARN_OPENAI_BASE_URL" in said


# -- M4: `--live` asks the backend, never the recordings, and checks it first ---------

def test_eval_live_claude_cli_without_claude_fails_before_any_corpus(tmp_path: Path) -> None:
    empty = tmp_path / "no-claude-here"
    empty.mkdir()
    done = learn(tmp_path, "eval", "--live", "--backend", "claude-cli", "demo", PATH=str(empty))
    assert done.returncode == 2, done.stdout + done.stderr
    assert one_line(done).startswith("learn eval: claude-cli: `claude` not found on PATH; fix:")
    assert "verdict" not in done.stdout and "PASS" not in done.stdout


# -- audit 58, finding 1: `--live` asks the person's backend in every corpus, not the pre-check only

def test_eval_live_asks_the_persons_openai_server_in_every_corpus(tmp_path: Path) -> None:
    """The person's `[backend] openai_base_url` (a server on a port not the default) and
    model: each corpus's calls go there. They went to the default :8080 (each corpus read
    its own empty config), and the run stopped with `learn run:` telling the person to
    set what they had set."""
    from fakes.openai_server import FakeOpenAIServer

    config = tmp_path / "config"
    config.mkdir()
    with FakeOpenAIServer() as fake:
        assert not fake.base_url.endswith(":8080")
        (config / "config.toml").write_text(
            f'[backend]\nopenai_base_url = "{fake.base_url}/v1"\n[models]\nmine = "their-model"\n')
        done = learn(tmp_path, "eval", "--live", "--backend", "openai", "--no-noisy",
                     "--cache-dir", str(tmp_path / "answers"), "--out", str(tmp_path / "out.json"),
                     "demo", "hard")
        asked = [r for r in fake.requests if r.path.endswith("/chat/completions")]
        checked = [r for r in fake.requests if r.method == "GET"]
    assert done.returncode == 0, done.stderr[-3000:]
    assert "learn run:" not in done.stderr and "verdict:" in done.stdout
    assert len(checked) == 1  # the backend is checked once, not once per corpus
    calls = {c: r["cost"]["model_calls"] for c, r in json.loads((tmp_path / "out.json").read_text()).items()
             if c in ("demo", "hard")}
    assert calls["demo"] > 0 and calls["hard"] > 0, calls
    assert len(asked) >= calls["demo"] + calls["hard"]
    assert {r.json.get("model") for r in asked} == {"their-model"}


def test_eval_live_claude_cli_runs_claude_with_the_persons_home_and_login(tmp_path: Path) -> None:
    """Each corpus runs in a home of its own (HOME, CLAUDE_CONFIG_DIR replaced); the
    `claude` it asks gets the person's, where their login is, as `learn run`'s does."""
    from fakes.claude_stub import print_result, write_claude_stub

    stub = write_claude_stub(tmp_path / "bin", stdout=print_result({"candidates": []}))
    theirs = tmp_path / "their-claude-config"
    done = learn(tmp_path, "eval", "--live", "--backend", "claude-cli", "--no-noisy",
                 "--cache-dir", str(tmp_path / "answers"), "demo",
                 PATH=f"{stub.path.parent}{os.pathsep}{os.environ['PATH']}",
                 CLAUDE_CONFIG_DIR=str(theirs))
    assert done.returncode == 0, done.stderr[-3000:]
    calls = stub.calls()
    assert calls, done.stdout[-2000:] + done.stderr[-2000:]
    assert {c["env"]["HOME"] for c in calls} == {str(tmp_path / "home")}
    assert {c["env"]["CLAUDE_CONFIG_DIR"] for c in calls} == {str(theirs)}


SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
TOOL = ToolSpec("count", "Count.", SCHEMA)


def _request() -> ModelRequest:
    return ModelRequest("mine", "claude-haiku-4-5", "You count.", TOOL, "USER: count to one")


class Asked:
    name = "asked"

    def __init__(self) -> None:
        self.calls = 0

    def call(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        return ModelResponse(tool_input={"n": 2}, model=request.model)


def _recorded(cache: Path) -> None:
    write_answer(cache, _request(), ModelResponse(tool_input={"n": 1}, model="recorded"))


def test_recording_backend_still_fills_only_misses_outside_live(tmp_path: Path) -> None:
    _recorded(tmp_path)
    inner = Asked()
    assert RecordingBackend(inner, tmp_path).call(_request()).tool_input == {"n": 1}
    assert inner.calls == 0


def test_eval_live_asks_the_backend_learn_run_builds_on_every_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--live` means a real model: the harness's live backend is the one `learn run`
    builds from learn's config, and a recording already on disk does not answer for it
    (it used to, and the eval said PASS with no model at all)."""
    import evals.corpus as corpus
    import learn.commands.run as run

    _recorded(tmp_path)
    inner = Asked()
    built: dict[str, Any] = {}

    def build(name: str, **kw: Any) -> Asked:
        built["name"] = name
        return inner

    monkeypatch.setattr(run, "build_backend", build)
    live = corpus.build_live_backend("openai")
    assert built["name"] == "openai"
    backend = corpus.make_backend("live", None, live=live, cache_dir=tmp_path)  # type: ignore[arg-type]
    assert backend.call(_request()).tool_input == {"n": 2} and inner.calls == 1


# -- L2: the demo's apply says how its writes are really put back ----------------------

def test_demo_apply_says_how_the_demo_is_put_back(tmp_path: Path) -> None:
    assert learn(tmp_path, "demo").returncode == 0
    applied = learn(tmp_path, "demo", "--apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    said = applied.stdout + applied.stderr
    # `learn apply --undo` finds nothing: the demo applied with its own store.
    assert "`learn apply --undo` puts it back" not in said
    assert "wrote " in applied.stdout and "`learn demo` puts it back" in applied.stdout
    assert "`learn demo` puts them back" in applied.stderr
    # ...and it does: the next `learn demo` rebuilds the demo's projects.
    claude_md = tmp_path / "data" / "demo" / "home" / "code" / "shop-api" / "CLAUDE.md"
    assert "<!-- learn:begin -->" in claude_md.read_text()
    assert learn(tmp_path, "demo").returncode == 0
    assert "<!-- learn:begin -->" not in claude_md.read_text()


# -- L3: a configuration error exits 2 from report as from run -------------------------

def test_report_team_without_a_team_database_exits_2_as_run_does(tmp_path: Path) -> None:
    report = learn(tmp_path, "report", "--team")
    run = learn(tmp_path, "run", "--team", "--offline")
    assert "--team needs [team] database_url" in report.stderr
    assert "--team needs [team] database_url" in run.stderr
    assert report.returncode == run.returncode == 2


# -- L5: the `claude` binary's messages name what exists -------------------------------

def _claude_error(binary: str) -> str:
    from learn.models.claude_cli import ClaudeCliBackend

    with pytest.raises(ModelError) as caught:
        ClaudeCliBackend(binary=binary).call(_request())
    return str(caught.value)


def test_missing_claude_on_path_names_the_claude_binary_setting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    said = _claude_error("claude")
    assert "`claude` not found on PATH" in said
    assert "[backend] claude_binary" in said and "pass its path" not in said


def test_missing_claude_at_a_configured_path_is_not_said_to_be_on_path(tmp_path: Path) -> None:
    nope = str(tmp_path / "nope" / "claude")
    said = _claude_error(nope)
    assert "on PATH" not in said.split(";")[0]
    assert f"`{nope}` ([backend] claude_binary) does not exist" in said
    assert "pass its path" not in said


# -- L8: two flags that contradict each other are a usage error ------------------------

@pytest.mark.parametrize(("args", "flags"), [
    (("schedule", "--weekly", "--daily"), ("--weekly", "--daily")),
    (("digest", "--json", "--format", "md"), ("--json", "--format")),
    (("install-claude-command", "--user", "--project"), ("--user", "--project")),
])
def test_conflicting_flags_are_a_usage_error(tmp_path: Path, args: tuple[str, ...],
                                             flags: tuple[str, str]) -> None:
    done = learn(tmp_path, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    error = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert error and all(flag in error[0] for flag in flags), done.stderr
    # Refused before anything was installed.
    assert not (tmp_path / "home" / ".claude").exists()


def test_agreeing_flags_still_work(tmp_path: Path) -> None:
    assert learn(tmp_path, "schedule", "--daily").returncode == 0
    assert learn(tmp_path, "install-claude-command", "--print", "--user").returncode == 0


def test_learn_runs_check_names_a_configured_claude_path_as_a_path(tmp_path: Path) -> None:
    """learn run and learn doctor check the backend first (learn.models.preflight): a
    `[backend] claude_binary` path that is not there is said as that, not "on PATH"."""
    from types import SimpleNamespace

    from learn.models.preflight import check_backend_ready

    nope = str(tmp_path / "nope" / "claude")
    config = SimpleNamespace(backend=SimpleNamespace(claude_binary=nope))
    ready = check_backend_ready("claude-cli", config, env={}, which=lambda _: None)
    assert not ready.ok and "on PATH" not in ready.line().split(";")[0]
    assert "([backend] claude_binary) does not exist" in ready.line()
