"""The rules-that-work scenario: a simulated agent that follows or ignores each rule at a
known rate, a path rule that is never loaded, and Codex sessions beside Claude Code's.

Written for this purpose (no one's real transcripts), generated from a seed so the
truth is known exactly: which sessions loaded each rule, in which of them the agent
broke it, and so the person said it again. Two phases, one run after each
(evals/rules_work.py drives them and scores learn against `Truth`):

Phase 1, 2026-04-01..09, before any rule: Claude Code sessions (and two Codex
sessions) in which the person corrects the agent; run 1 proposes the four rules.
They are applied on 2026-04-10 with `learn apply`'s own planning:
- push  "never run git push"    CLAUDE.md; the agent breaks it in P_SINCE["push"] of
                                the Claude sessions since -> ignored, rate ~ 0.5;
- bun   "use bun, not npm"      CLAUDE.md; followed every time        -> holding;
- tests "run pytest -q first"   CLAUDE.md; broken in P_SINCE["tests"] -> ignored, ~ 0.25;
- sql   "no raw SQL"            said only while the agent worked under src/db/, so a
                                `.claude/rules` file with `paths: src/db/**`; in phase 2
                                the code lives in src/store/ and no file under src/db/
                                is read: never loaded, and said again where it was not
                                (the fix must name src/store/).
Phase 2, 2026-04-11..: Claude Code sessions, some with learn's plugin records of
what loaded, some whose transcript carries Claude Code's own `instructions`
attachment, the rest inferred; and Codex sessions, which read AGENTS.md, not
CLAUDE.md: a correction said there is said where the rule was not loaded.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from evals.builder import ClaudeSession, fresh_root, session_id
from evals.builder.codex import CodexSession
from evals.gold import Gold

APPLIED_AT = "2026-04-10T12:00:00+00:00"
RULES = ("push", "bun", "tests", "sql")
P_BEFORE = {"push": 0.6, "bun": 0.5, "tests": 0.5, "sql": 0.8}
P_SINCE = {"push": 0.5, "bun": 0.0, "tests": 0.25, "sql": 0.6}
PHASE1_CLAUDE, PHASE1_CODEX = 10, 2
PHASE2_CLAUDE, PHASE2_CODEX = 24, 6
EXPECTED = {"push": "ignored", "bun": "holding", "tests": "ignored", "sql": "never-loaded"}

# Several wordings per correction: a person does not repeat a sentence verbatim, and
# a sentence repeated across sessions is what learn sets aside as a program's.
WORDS = {
    "push": ["never run git push, I push myself", "don't run git push, pushing is my job",
             "stop running git push yourself", "no git push from you, I do the pushing",
             "I told you, never run git push", "leave git push to me, don't run it"],
    "bun": ["use bun, not npm, in this repo", "we use bun here, not npm",
            "bun please, never npm", "this project is on bun, not npm"],
    "tests": ["run pytest -q before you tell me it's done", "run the tests with pytest -q first",
              "pytest -q before you say it works", "you didn't run pytest -q, run it first"],
    "sql": ["never write raw SQL, use the query builder", "no raw SQL strings, go through the "
            "query builder", "don't hand-write SQL here, use the query builder",
            "raw SQL again? use the query builder"],
}
TASKS = ["add a coupon field to checkout", "split the orders module", "fix the refund rounding",
         "rename the invoice totals", "add paging to the search endpoint",
         "clean up the config loader", "tidy the reporting module", "add retries to the mailer",
         "speed up the cart page", "fix the flaky login test", "add a CSV export",
         "handle an empty basket", "move the price rules into one place",
         "log slow queries", "add a health check", "fix the timezone bug in reports",
         "add a dark mode flag", "bump the shipping rates", "cache the product list",
         "add an audit trail to refunds", "split the user model", "fix the broken avatar upload",
         "add rate limiting to the api", "rework the search ranking", "drop the legacy coupons",
         "add a webhook for orders", "fix the double charge bug", "trim the order emails",
         "add a sitemap", "fix the stock counter", "add a changelog page",
         "clean up the admin views", "add pagination to orders", "fix the tax display"]


@dataclass
class Truth:
    """What happened, by construction."""

    before_loaded: dict[str, list[str]] = field(default_factory=dict)  # rule -> sessions
    before_said: dict[str, list[str]] = field(default_factory=dict)
    since_loaded: dict[str, list[str]] = field(default_factory=dict)
    since_said: dict[str, list[str]] = field(default_factory=dict)  # broken where loaded
    since_unloaded: dict[str, list[str]] = field(default_factory=dict)
    said_unloaded: dict[str, list[str]] = field(default_factory=dict)
    recorded: list[str] = field(default_factory=list)  # sessions with a record of loads

    def to_json(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items()}


def project_dir(root: Path) -> Path:
    return root / "home" / "code" / "shop"


def groups(gold: Gold) -> dict[str, str]:
    return {
        "push": gold.group("never-run-git-push", "directive", "Never run git push; the user pushes."),
        "bun": gold.group("use-bun-not-npm", "directive", "Use bun, not npm."),
        "tests": gold.group("run-pytest-first", "directive",
                            "Run pytest -q before saying the work is done."),
        "sql": gold.group("no-raw-sql", "directive", "Never write raw SQL; use the query builder."),
    }


def _t(day: int, hour: int) -> datetime:
    return datetime(2026, 4, day, hour, 0, 0, tzinfo=UTC)


def _files(s: ClaudeSession, shop: Path, folder: str, rng: random.Random) -> None:
    name = rng.choice(["orders.py", "queries.py", "models.py", "repo.py"])
    s.tool("Read", {"file_path": f"{shop}/{folder}/{name}"}, "def f(): ...")
    s.tool("Edit", {"file_path": f"{shop}/{folder}/{name}", "old_string": "a",
                    "new_string": "b"}, "ok")


def _add(truth: dict[str, list[str]], rule: str, sid: str) -> None:
    truth.setdefault(rule, []).append(sid)


def build_before(root: Path, seed: int = 0) -> tuple[Gold, Truth]:
    """Phase 1 under `root` (HOME is root/home): the project and the sessions before."""
    fresh_root(root)
    rng = random.Random(f"rules-work-before-{seed}")
    shop = project_dir(root)
    (shop / ".git").mkdir(parents=True)
    for folder in ("src/db", "src/store", "src/api"):
        (shop / folder).mkdir(parents=True)
    (shop / "CLAUDE.md").write_text("# shop\n\n- Keep functions short.\n", encoding="utf-8")
    claude, codex = root / "home" / ".claude", root / "home" / ".codex"
    gold = Gold(corpus="rules-work")
    g = groups(gold)
    truth = Truth()
    tasks = iter(TASKS)
    for i in range(PHASE1_CLAUDE):
        sid = session_id(f"rw-b{i}")
        s = ClaudeSession(sid, str(shop), _t(1 + i * 8 // PHASE1_CLAUDE, 9 + i % 5))
        s.user(next(tasks))
        db = i % 2 == 0  # half the sessions work in the database layer
        if db:
            _files(s, shop, "src/db", rng)
        elif i != 1:  # one session reads no file: the rules said there hold everywhere
            _files(s, shop, "src/api", rng)
        for rule in ("push", "bun", "tests"):
            _add(truth.before_loaded, rule, sid)
            # The first two sessions say each correction, so run 1 proposes all four.
            if i < 2 or rng.random() < P_BEFORE[rule]:
                s.user(gold.said(sid, rng.choice(WORDS[rule]), g[rule]))
                _add(truth.before_said, rule, sid)
        if db:
            _add(truth.before_loaded, "sql", sid)
            if i < 4 or rng.random() < P_BEFORE["sql"]:
                s.user(gold.said(sid, rng.choice(WORDS["sql"]), g["sql"]))
                _add(truth.before_said, "sql", sid)
        s.assistant("Done.")
        s.write(claude)
    for i in range(PHASE1_CODEX):
        sid = session_id(f"rw-bx{i}")
        c = CodexSession(sid, str(shop), _t(2 + 3 * i, 15))
        c.user(next(tasks))
        c.shell("npm install", "added 3 packages")
        c.assistant("Done.")
        c.write(codex)
    gold.finish()
    return gold, truth


def _plugin_records(data: Path, sid: str, files: list[Path], cwd: Path) -> None:
    """What learn's plugin writes for a session (learn.transcripts.instructions)."""
    folder = data / "instructions"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"file": str(f), "reason": "session_start", "memory_type": "Project",
                         "cwd": str(cwd), "at": APPLIED_AT}) for f in files]
    (folder / f"{sid}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def build_after(root: Path, gold: Gold, truth: Truth, seed: int = 0) -> tuple[Gold, Truth]:
    """Phase 2: Claude Code and Codex sessions after the rules were applied."""
    rng = random.Random(f"rules-work-after-{seed}")
    shop = project_dir(root)
    claude, codex = root / "home" / ".claude", root / "home" / ".codex"
    g = dict(zip(RULES, ("never-run-git-push", "use-bun-not-npm", "run-pytest-first",
                         "no-raw-sql"), strict=True))
    tasks = iter(TASKS[PHASE1_CLAUDE + PHASE1_CODEX:])
    order = ["claude"] * PHASE2_CLAUDE + ["codex"] * PHASE2_CODEX
    rng.shuffle(order)
    start = datetime(2026, 4, 11, 9, tzinfo=UTC)
    n_claude = 0
    for i, agent in enumerate(order):
        at = start + timedelta(hours=7 * i)
        task = next(tasks, f"small change number {i}")
        if agent == "codex":
            sid = session_id(f"rw-ax{i}")
            c = CodexSession(sid, str(shop), at)
            c.user(task)
            c.shell("ls src/store", "orders.py")
            for rule in ("push", "bun", "tests"):
                _add(truth.since_unloaded, rule, sid)
                if rng.random() < max(P_SINCE[rule], 0.3):
                    c.user(gold.said(sid, rng.choice(WORDS[rule]), g[rule]))
                    _add(truth.said_unloaded, rule, sid)
            _add(truth.since_unloaded, "sql", sid)
            c.assistant("Done.")
            c.write(codex)
            continue
        sid = session_id(f"rw-a{i}")
        s = ClaudeSession(sid, str(shop), at, version="2.1.332")
        n_claude += 1
        loaded = [shop / "CLAUDE.md"]
        if n_claude % 3 == 0:
            _plugin_records(root / "data", sid, loaded, shop)
            truth.recorded.append(sid)
        elif n_claude % 3 == 1:
            # Claude Code's own record of what it loaded at start.
            s._envelope("attachment", 1, attachment={"type": "instructions", "files": [
                {"path": str(f), "type": "Project", "content": f.read_text(encoding="utf-8")}
                for f in loaded]})
            truth.recorded.append(sid)
        s.user(task)
        _files(s, shop, "src/store", rng)  # the database code moved: nothing under src/db
        for rule in ("push", "bun", "tests"):
            _add(truth.since_loaded, rule, sid)
            if rng.random() < P_SINCE[rule]:
                s.user(gold.said(sid, rng.choice(WORDS[rule]), g[rule]))
                _add(truth.since_said, rule, sid)
        _add(truth.since_unloaded, "sql", sid)
        if rng.random() < P_SINCE["sql"]:
            s.user(gold.said(sid, rng.choice(WORDS["sql"]), g["sql"]))
            _add(truth.said_unloaded, "sql", sid)
        s.assistant("Done.")
        s.write(claude)
    gold.finish()
    return gold, truth
