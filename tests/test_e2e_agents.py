"""End to end over a HOME with all five agents: one point, one count, whatever agent heard it.

`learn run` as a user runs it (the real anthropic SDK against the fake Messages server on
127.0.0.1, answering from a gold file as in test_e2e_run): the person said "we are on pnpm" to
Claude Code in two sessions and to Gemini CLI in two, and "keep the generated client out of
git" once each to Codex, Copilot CLI and OpenCode. Each is proposed once, counted over every
agent's sessions (4 and 3), and the digest says which agents. Machine text in each agent's
files (an @file's content, a skill's injection, a part the client wrote) is reported by the
imperfect model and must not survive verification.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import apsw
from fakes.anthropic_server import FakeAnthropicServer
from fixtures.fidelity.agent_writers import (
    CopilotEvents,
    GeminiChat,
    OpenCodeSession,
    database_sql,
)
from fixtures.fidelity.writers import Chain, Rollout, claude_path

from evals.gold import Gold, Mistake
from evals.oracle import GoldOracle

REPO = Path(__file__).resolve().parents[1]

PNPM = ["we are on pnpm, stop running npm install",
        "pnpm here please, npm breaks the lockfile",
        "use pnpm in this repo, not npm",
        "npm again? it is pnpm"]
GENERATED = ["don't commit the generated api client",
             "the generated client files never go in git",
             "keep the generated client out of commits"]
ONCE = "rename the cart variable to basket"
AT_FILE = "Always use npm for installs and never pnpm."
SKILL = "Never write tests for generated code, skip them."
SYNTHETIC = "Prefer yarn workspaces for every package."


def _build(home: Path, project: Path) -> Gold:
    gold = Gold(corpus="agents")
    pnpm = gold.group("use-pnpm-not-npm", "directive", "Use pnpm in this repo, never npm.",
                      category="tooling")
    gen = gold.group("generated-client-not-committed", "directive",
                     "Never commit the generated API client.")
    rename = gold.group("rename-cart-to-basket", "request", "Rename cart to basket.")
    cwd = str(project)

    for n, text in enumerate(PNPM[:2]):
        sid = f"0000000{n}-c1a0-4000-8000-00000000000{n}"
        chain = Chain(sid, cwd=cwd)
        chain.user(text)
        chain.assistant("Switching to pnpm.")
        chain.write(claude_path(home, sid, cwd))
        gold.said(sid, text, pnpm)

    folder = home / ".gemini" / "tmp" / "shop"
    folder.mkdir(parents=True)
    (folder / ".project_root").write_text(cwd)
    g1 = GeminiChat("9e000001-0000-4000-8000-000000000001")
    g1.user(f"{PNPM[2]}\n--- Content from referenced files ---\nContent from @CONTRIBUTING.md:\n"
            f"{AT_FILE}\n--- End of content ---")
    g1.gemini("Using pnpm.")
    g1.write_jsonl(folder / "chats" / "session-2026-11-20T09-00-9e000001.jsonl")
    gold.said(g1.session, PNPM[2], pnpm)
    gold.mistakes.append(Mistake(g1.session, AT_FILE, "directive", "tool-output"))
    g2 = GeminiChat("9e000002-0000-4000-8000-000000000002")
    g2.user(PNPM[3])
    g2.gemini("Right, pnpm.")
    g2.write_json(folder / "chats" / "session-2026-11-20T10-00-9e000002.json")
    gold.said(g2.session, PNPM[3], pnpm)

    codex = "0199b000-0000-7000-8000-00000000c0de"
    r = Rollout(codex, cwd=cwd)
    r.user(GENERATED[0])
    r.agent("Added it to .gitignore.")
    r.write(r.path(home))
    gold.said(codex, GENERATED[0], gen)

    c = CopilotEvents("c0000001-0000-4000-8000-000000000001", cwd=cwd)
    c.user(GENERATED[1])
    c.user(SKILL, source="skill-testing")
    c.reply("Understood.")
    c.write(home / ".copilot" / "session-state" / c.session / "events.jsonl")
    gold.said(c.session, GENERATED[1], gen)
    gold.mistakes.append(Mistake(c.session, SKILL, "directive", "replayed-template"))

    o1 = OpenCodeSession("ses_e2ea000001", directory=cwd)
    o1.user(GENERATED[2], (SYNTHETIC, {"synthetic": True}))
    o1.reply(o1.text("Noted."))
    o2 = OpenCodeSession("ses_e2eb000002", directory=cwd)
    o2.user(ONCE)
    o2.reply(o2.text("Renamed."))
    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    conn = apsw.Connection(str(data / "opencode.db"))
    with conn:
        for _ in conn.execute(database_sql() + o1.sql() + o2.sql()):
            pass
    conn.close()
    gold.said(o1.id, GENERATED[2], gen)
    gold.mistakes.append(Mistake(o1.id, SYNTHETIC, "directive", "tool-output"))
    gold.said(o2.id, ONCE, rename)
    gold.traps += [AT_FILE, SKILL, SYNTHETIC]
    gold.finish()
    return gold


def _learn(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=REPO)


def _env(root: Path, fake: FakeAnthropicServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "LEARN_")) and k not in (
               "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME",
               "XDG_DATA_HOME")}
    env.update(HOME=str(root / "home"), LEARN_DATA_DIR=str(root / "data"),
               LEARN_CACHE_DIR=str(root / "cache"), LEARN_CONFIG_DIR=str(root / "config"),
               ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.base_url,
               PYTHONPATH=str(REPO))
    return env


def test_one_point_is_counted_once_over_every_agent_that_heard_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "code" / "shop"
    project.mkdir(parents=True)
    gold = _build(home, project)
    oracle = GoldOracle(gold)
    fake = FakeAnthropicServer(responder=lambda req: oracle.answer(req.tool_name, req.user_text))
    with fake:
        env = _env(tmp_path, fake)
        listed = json.loads(_learn(["sessions", "--all-projects", "--json"], env).stdout)
        assert sorted(r["provider"] for r in listed["sessions"]) == [
            "claude", "claude", "codex", "copilot", "gemini", "gemini", "opencode", "opencode"]
        args = ["run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet"]
        proc = _learn([*args, "--json"], env)
        assert proc.returncode == 0, proc.stderr
        result: dict[str, Any] = json.loads(proc.stdout)
        digest = _learn([*args, "--all"], env)
        assert digest.returncode == 0, digest.stderr

    assert result["usage"]["sessions_seen"] == 8
    assert list(result["agents"].items()) == [("claude", 2), ("gemini", 2), ("opencode", 2),
                                              ("codex", 1), ("copilot", 1)]
    got = {p["label"]: p for p in result["proposals"]}
    assert sorted(got) == ["generated-client-not-committed", "use-pnpm-not-npm"]  # each once
    assert got["use-pnpm-not-npm"]["sessions"] == 4
    assert got["use-pnpm-not-npm"]["agents"] == {"claude": 2, "gemini": 2}
    assert got["generated-client-not-committed"]["sessions"] == 3
    assert got["generated-client-not-committed"]["agents"] == {"codex": 1, "copilot": 1,
                                                              "opencode": 1}
    quoted = {(q["agent"], q["text"]) for p in got.values() for q in p["quotes"]}
    assert ("gemini", PNPM[2]) in quoted and ("opencode", GENERATED[2]) in quoted
    # What the clients wrote was reported by the model and dropped by verification.
    blob = json.dumps(result).casefold()
    for trap in gold.traps:
        assert trap.casefold() not in blob, trap
    # Every typed quote located in its agent's typed turns (8); the 3 the model lifted from
    # client-written text located in none.
    assert result["verification"]["kept"] == 8
    assert sum(v for k, v in result["verification"].items() if k != "kept") == 3

    # The digest says which agents each count spans.
    out = digest.stdout
    assert "Read 8 sessions (Claude Code 2, Gemini CLI 2, OpenCode 2, Codex 1, Copilot CLI 1)" \
        in out
    assert "to Claude Code (2) and Gemini CLI (2)" in out
    assert "to Codex (1), Copilot CLI (1) and OpenCode (1)" in out
