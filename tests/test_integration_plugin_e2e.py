"""The /learn command end to end: the `!` line of the shipped command file, expanded like
Claude Code expands it and run by /bin/sh, with the real `learn` on PATH, over the demo
corpus, the real anthropic SDK talking to a fake Messages server on 127.0.0.1.

tests/test_integration_plugin.py checks the line's flags against a fake `learn`; this
checks that what the line prints is the digest the prompt below it expects."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from fakes.anthropic_server import FakeAnthropicServer

from evals.corpora import demo
from evals.oracle import GoldOracle
from learn.commands.install_claude_command import command as install

REPO = Path(__file__).resolve().parents[1]
COMMAND = REPO / "integrations" / "claude-code" / "commands" / "learn.md"
ARGUMENTS = "--all-projects --since 2026-01-01"


def frontmatter(text: str) -> tuple[dict[str, str], str]:
    m = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S)
    assert m, "no frontmatter"
    fields: dict[str, str] = {}
    for line in m.group(1).splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields, m.group(2)


def shell_line(text: str) -> str:
    _, body = frontmatter(text)
    lines: list[str] = re.findall(r"!`([^`]+)`", body)
    assert len(lines) == 1, lines
    return lines[0]


def learn_on_path(bindir: Path) -> Path:
    """A `learn` that is this checkout's learn, run by the interpreter running the tests."""
    bindir.mkdir(parents=True)
    script = bindir / "learn"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m learn "$@"\n')
    script.chmod(0o755)
    return script


def covers(allowed_tools: str, line: str) -> bool:
    """Does some `Bash(prefix:*)` (or `Bash(line)`, that line alone) in allowed-tools
    permit running `line`?"""
    for tool in (t.strip() for t in allowed_tools.split(",")):
        m = re.fullmatch(r"Bash\((.+):\*\)", tool)
        if m and (line == m.group(1) or line.startswith(m.group(1) + " ")):
            return True
        if tool == f"Bash({line})":
            return True
    return False


def test_the_command_line_prints_the_digest_for_the_demo_corpus(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    gold = demo.build(root)
    text = COMMAND.read_text(encoding="utf-8")
    fields, _ = frontmatter(text)
    line = shell_line(text)
    assert covers(fields["allowed-tools"], line), (fields["allowed-tools"], line)
    # The words after /learn go to the prompt, not this line; --all-projects is how
    # Claude re-runs it when asked (not pre-approved: Claude Code asks first).
    assert "$" not in line
    # The options go where Claude puts them when asked (step 1): after the job's flags;
    # the line asks learn about --exit-zero first, then runs it.
    expanded = line.replace("--exit-zero;", f"--exit-zero {ARGUMENTS};", 1)
    assert expanded != line
    assert not covers(fields["allowed-tools"], expanded)

    bindir = tmp_path / "bin"
    learn_on_path(bindir)
    oracle = GoldOracle(gold)
    fake = FakeAnthropicServer(responder=lambda req: oracle.answer(req.tool_name or "", req.user_text))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(
        HOME=str(root / "home"),
        LEARN_DATA_DIR=str(tmp_path / "data"),
        LEARN_CACHE_DIR=str(tmp_path / "cache"),
        LEARN_CONFIG_DIR=str(tmp_path / "config"),
        PYTHONPATH=str(REPO),
        PATH=f"{bindir}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
    )
    # Claude Code runs the line in the project the user is in; --all-projects reads all.
    cwd = root / "home" / "code" / "shop-api"
    with fake:
        env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.base_url)
        proc = subprocess.run(["/bin/sh", "-c", expanded], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)
        requests = list(fake.requests)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("[learn-digest]"), proc.stdout[:200]
    # --backend auto chose the API (the key is set): the model was asked.
    assert any(r.tool_name == "record_candidates" for r in requests)
    assert all(r.path.startswith("/v1/messages") for r in requests)
    # --quiet: no progress bars or chatter mixed into what the prompt reads.
    assert "\x1b[" not in proc.stdout

    expected = sorted(name for name, g in gold.groups.items() if g.proposed)
    assert expected, "the demo gold proposes nothing?"
    for label in expected:
        assert f"`{label}`" in proc.stdout, label
    unproposed = [name for name, g in gold.groups.items() if not g.proposed]
    for label in unproposed:
        assert f"`{label}`" not in proc.stdout, label
    # The header line carries the marker; a pasted digest (one of the traps) must not
    # come back as a proposal, so the marker appears exactly once.
    assert proc.stdout.count("[learn-digest]") == 1
    body = proc.stdout.split("\n", 1)[1].casefold()
    for trap in gold.traps:
        assert trap.casefold() not in body, trap
    for secret in gold.secrets:
        assert secret not in proc.stdout

    # The same HOME, now with a store: stats counts what the run showed and spent.
    stats = subprocess.run(["/bin/sh", "-c", "learn stats --json"], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=120)
    assert stats.returncode == 0, stats.stderr
    data = json.loads(stats.stdout)
    assert data["runs"] == 1 and data["finished_runs"] == 1
    assert data["model_calls"] == len(requests)
    assert data["input_tokens"] > 0
    kinds: dict[str, int] = {}
    for name in expected:
        kinds[gold.groups[name].kind] = kinds.get(gold.groups[name].kind, 0) + 1
    assert data["proposals_by_kind"] == kinds
    # The project's CLAUDE.md (it holds the ruff rule) is measured.
    assert any(Path(f["path"]) == cwd / "CLAUDE.md" for f in data["rule_files"])

    doctor = subprocess.run(["/bin/sh", "-c", "learn doctor --json"], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=120)
    assert doctor.returncode == 0, doctor.stdout
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["store"]["status"] == "ok" and "(1 run)" in checks["store"]["detail"]
    assert checks["data dir"]["status"] == "ok"
    sessions = len({q.session for q in gold.quotes})
    claude, codex = (int(n) for n in re.findall(r"(\d+) \w+", checks["transcripts"]["detail"])[:2])
    assert claude + codex >= sessions and codex >= 1


def test_the_installed_command_makes_the_same_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(install, [])
    assert result.exit_code == 0, result.output
    installed = Path.home() / ".claude" / "commands" / "learn.md"
    text = installed.read_text(encoding="utf-8")
    shipped = COMMAND.read_text(encoding="utf-8")
    assert shell_line(text) == shell_line(shipped)
    fields, _ = frontmatter(text)
    assert fields["allowed-tools"] == frontmatter(shipped)[0]["allowed-tools"]
    assert covers(fields["allowed-tools"], shell_line(text).replace("$ARGUMENTS", ARGUMENTS))
    # The project-scoped install writes the same command.
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    result = CliRunner().invoke(install, ["--project", "--project-dir", str(project)])
    assert result.exit_code == 0, result.output
    local = project / ".claude" / "commands" / "learn.md"
    assert shell_line(local.read_text(encoding="utf-8")) == shell_line(shipped)
    umask = os.umask(0o022)  # made as any new file is: 0666 less the umask
    os.umask(umask)
    assert local.stat().st_mode & 0o777 == 0o666 & ~umask


def test_covers_is_a_prefix_match_on_words() -> None:
    assert covers("Bash(learn run:*)", "learn run --yes")
    assert covers("Read, Bash(learn run:*)", "learn run")
    assert not covers("Bash(learn run:*)", "learn runaway")
    assert not covers("Bash(learn apply:*)", "learn run --yes")
    assert not covers("Read", "learn run")
