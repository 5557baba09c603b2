"""The outcomes scenario: dated sessions before and after rules are applied, in one project.

Written for this purpose (no one's real transcripts). Two phases, one run after each
(evals/outcomes.py drives them and checks every verdict):

Phase 1, 2026-03-01..08 (4 sessions) -> run 1 proposes:
- "never run git push"          (directive, 2 sessions)  -> applied 03-10;
- "use bun, not npm"            (directive, 2)           -> applied 03-10;
- "keep PRs small"              (directive, 2)           -> applied 03-19;
- "indent with tabs"            (directive, 2)           -> declined.
Phase 2, 2026-03-11..20 (6 sessions) -> run 2 must say:
- git push said again in 2 sessions since         -> ignored, escalated to
  `Bash(git push:*)` in permissions.deny (a valid settings.json diff);
- bun never said again, 6 sessions since           -> holding;
- small PRs: 1 session since 03-19                 -> too early to tell;
- "return errors as values in the api handlers", said only while the agent
  read and edited files under src/api/             -> a path-scoped rule (src/api/**);
- "log with structlog", already in Claude Code's auto-memory -> promote from memory;
- "numpy-style docstrings, not google", against CLAUDE.md's Google-style rule
                                                   -> an edit of that rule;
- tabs said once more (3 sessions, declined at 2)  -> not shown again (needs 4);
- "walk me through the approach before you change code" as a directive (2
  sessions) and "help me think it through before you change code" as a
  request (2 sessions)                             -> one point, 4 sessions;
- "explain why this commit broke the tests" asked in 4 sessions, work asked for
  by name (the judge accepts it as a command, not a rule) -> a command, its body
  written from all four asks.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from evals.builder import ClaudeSession, fresh_root, session_id
from evals.gold import Gold

APPLIED = {"push": "2026-03-10T12:00:00+00:00", "bun": "2026-03-10T12:00:00+00:00",
           "prs": "2026-03-19T12:00:00+00:00"}
MEMORY_LINE = "Log with structlog, never with print statements."
GOOGLE_RULE = "Write docstrings in Google style."


def _t(month_day: int, hour: int = 10) -> datetime:
    return datetime(2026, 3, month_day, hour, 0, 0, tzinfo=UTC)


def project_dir(root: Path) -> Path:
    return root / "home" / "code" / "shop"


def groups(gold: Gold) -> dict[str, str]:
    return {
        "push": gold.group("never-run-git-push", "directive",
                           "Never run git push; the user pushes."),
        "bun": gold.group("use-bun-not-npm", "directive", "Use bun, not npm."),
        "prs": gold.group("keep-prs-small", "directive", "Keep PRs small: one change per PR."),
        "tabs": gold.group("indent-with-tabs", "directive", "Indent with tabs."),
        "api": gold.group("api-errors-as-values", "directive",
                          "In API handlers, return errors as values instead of raising."),
        "log": gold.group("log-with-structlog", "directive", "Log with structlog, not print.",
                          coverage="restated"),
        "doc": gold.group("numpy-docstrings", "directive",
                          "Write docstrings in numpy style, not Google style.",
                          coverage="contradicts"),
        "plan": gold.group("walk-through-approach-first", "directive",
                           "Walk through the approach before changing code."),
        "think": gold.group("think-it-through-first", "request",
                            "Help think it through before changing code."),
        "explain": gold.group("explain-broken-commit", "request",
                              "Explain why a commit broke the tests."),
    }


def build_before(root: Path) -> Gold:
    """Phase 1 under `root` (HOME is root/home): the project, its rules, four sessions."""
    fresh_root(root)
    shop = project_dir(root)
    (shop / ".git").mkdir(parents=True)
    (shop / "src" / "api").mkdir(parents=True)
    (shop / "CLAUDE.md").write_text(f"# shop\n\n- {GOOGLE_RULE}\n", encoding="utf-8")
    claude = root / "home" / ".claude"
    gold = Gold(corpus="outcomes")
    g = groups(gold)
    S = str(shop)  # noqa: N806

    p1 = ClaudeSession(session_id("out-p1"), S, _t(1))
    p1.user("add a coupon field to checkout")
    p1.tool("Bash", {"command": "npm install"}, "added 10 packages")
    p1.user(gold.said(p1.session_id, "use bun, not npm, in this repo", g["bun"]))
    p1.tool("Bash", {"command": "git push origin main"}, "pushed")
    p1.user(gold.said(p1.session_id, "never run git push, I push myself", g["push"]))
    p1.assistant("Done.")
    p1.write(claude)

    p2 = ClaudeSession(session_id("out-p2"), S, _t(3))
    p2.user("split the orders module")
    p2.user(gold.said(p2.session_id, "keep PRs small, one change per PR", g["prs"]))
    p2.tool("Bash", {"command": "git push"}, "pushed")
    p2.user(gold.said(p2.session_id, "don't run git push, the pushing is my job", g["push"]))
    p2.assistant("Understood.")
    p2.write(claude)

    p3 = ClaudeSession(session_id("out-p3"), S, _t(5))
    p3.user("reformat the config loader")
    p3.user(gold.said(p3.session_id, "we use bun here, not npm", g["bun"]))
    p3.user(gold.said(p3.session_id, "indent with tabs please", g["tabs"]))
    p3.assistant("Reformatted.")
    p3.write(claude)

    p4 = ClaudeSession(session_id("out-p4"), S, _t(8))
    p4.user("clean up the invoice code")
    p4.user(gold.said(p4.session_id, "smaller PRs please, one change each", g["prs"]))
    p4.user(gold.said(p4.session_id, "tabs, not spaces, for indentation", g["tabs"]))
    p4.assistant("Cleaned up.")
    p4.write(claude)
    gold.finish()
    return gold


def build_after(root: Path, gold: Gold) -> Gold:
    """Phase 2: Claude Code's auto-memory for the project, and six later sessions."""
    from learn.reduce.surfaces import encoded_project

    shop = project_dir(root)
    S = str(shop)  # noqa: N806
    claude = root / "home" / ".claude"
    memory = claude / "projects" / encoded_project(shop) / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "MEMORY.md").write_text(f"# Memory\n\n- {MEMORY_LINE}\n", encoding="utf-8")
    g = {k: v for k, v in zip(("push", "bun", "prs", "tabs", "api", "log", "doc", "plan",
                                "think", "explain"), gold.groups, strict=True)}

    def api_files(s: ClaudeSession) -> None:
        s.tool("Read", {"file_path": f"{S}/src/api/orders.py"}, "def create(): ...")
        s.tool("Edit", {"file_path": f"{S}/src/api/orders.py", "old_string": "raise",
                        "new_string": "return Err"}, "ok")

    a1 = ClaudeSession(session_id("out-a1"), S, _t(11))
    a1.user("the orders endpoint crashes on a bad id")
    api_files(a1)
    a1.user(gold.said(a1.session_id, "in the api handlers return errors as values instead of raising",
                      g["api"]))
    a1.user(gold.said(a1.session_id, "explain why this commit broke the tests", g["explain"]))
    a1.assistant("Fixed.")
    a1.write(claude)

    a2 = ClaudeSession(session_id("out-a2"), S, _t(12))
    a2.user("add logging to the payment retry")
    a2.tool("Bash", {"command": "git push origin main"}, "pushed")
    a2.user(gold.said(a2.session_id, "I told you: never run git push yourself", g["push"]))
    a2.user(gold.said(a2.session_id, "log with structlog, never print", g["log"]))
    a2.user(gold.said(a2.session_id, "help me think it through before you change code",
                      g["think"]))
    a2.assistant("Added.")
    a2.write(claude)

    a3 = ClaudeSession(session_id("out-a3"), S, _t(14))
    a3.user("the refunds handler swallows errors")
    api_files(a3)
    a3.user(gold.said(a3.session_id, "api handlers should return errors as values, not raise them",
                      g["api"]))
    a3.user(gold.said(a3.session_id, "use numpy-style docstrings from now on, not google style",
                      g["doc"]))
    a3.user(gold.said(a3.session_id, "explain why this commit broke the tests", g["explain"]))
    a3.assistant("Fixed.")
    a3.write(claude)

    a4 = ClaudeSession(session_id("out-a4"), S, _t(15))
    a4.user("tidy the reporting module")
    a4.user(gold.said(a4.session_id, "use structlog for logging, not print statements", g["log"]))
    a4.user(gold.said(a4.session_id, "tabs for indentation please", g["tabs"]))
    a4.user(gold.said(a4.session_id, "before you change code, walk me through the approach",
                      g["plan"]))
    a4.user(gold.said(a4.session_id, "explain why this commit broke the tests", g["explain"]))
    a4.assistant("Tidied.")
    a4.write(claude)

    a5 = ClaudeSession(session_id("out-a5"), S, _t(16))
    a5.user("ship the export feature")
    a5.tool("Bash", {"command": "git push"}, "pushed")
    a5.user(gold.said(a5.session_id, "stop running git push, that's my job", g["push"]))
    a5.user(gold.said(a5.session_id, "numpy docstrings please, we switched from google style",
                      g["doc"]))
    a5.user(gold.said(a5.session_id, "help me think this through before you touch the code",
                      g["think"]))
    a5.assistant("Shipped.")
    a5.write(claude)

    a6 = ClaudeSession(session_id("out-a6"), S, _t(20))
    a6.user("rework the search ranking")
    a6.user(gold.said(a6.session_id, "walk me through your approach before you change any code",
                      g["plan"]))
    a6.user(gold.said(a6.session_id, "explain why this commit broke the tests", g["explain"]))
    a6.assistant("Reworked.")
    a6.write(claude)
    gold.finish()
    return gold
