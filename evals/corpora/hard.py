"""The hard-cases corpus: every trap the research notes measured, in one place.

Ten sessions over two projects. Proposed at the default thresholds:
- never-force-push: three phrasings with no shared content words (3 sessions);
- discuss-before-implementing: two phrasings (2);
- doc-tools-off-by-default and network-tools-off-by-default: look-alikes that
  must stay two proposals, not merge (2 each);
- stage-only-own-files (2);
- never-hand-edit-migrations: once typed after an interrupt, once typed (2);
- no-new-dependencies-without-asking: once as the reason for rejecting a plan
  (ExitPlanMode), once typed (2);
- use-pathlib: once queued while the agent was busy, once typed (2).
Not proposed: "no emojis in commit messages" three times in one session; a
one-off rename request; a hook's permission-rule denial (not a human); tool
output, a compaction summary, a sidechain prompt, a relay, Codex-injected
instructions and a pasted digest with rule-like text; and five planted secrets.
One session's mining answer is malformed (the fixture says so): that session
fails, is reported, and is not cached.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from evals.builder import ClaudeSession, CodexSession, fresh_root, session_id
from evals.gold import Gold, Mistake

SECRETS = [
    "ghp_R2d2C3poBb8Yoda1234567890abcdefABCDEF",
    "AKIAIOSFODNN7EXAMPLQ",
    "postgres://app:hunter2-Sup3rSecret@db.internal:5432/app",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "xoxb-2048-4096-abcdefABCDEF1234567890ab",
]
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACBhc2RmZ2hqa2xxd2VydHl1aW9wenhjdmJubTEyMzQ1Njc4OTAAAAA=\n"
    "-----END OPENSSH PRIVATE KEY-----"
)


def _t(day: int, hour: int) -> datetime:
    return datetime(2026, 11, day, hour, 0, 0, tzinfo=UTC)


def build(root: Path) -> Gold:
    fresh_root(root)
    home = root / "home"
    api_root = home / "work" / "billing-api"
    cli_root = home / "work" / "ops-cli"
    for d in (api_root, cli_root):
        d.mkdir(parents=True)
    API, CLI = str(api_root), str(cli_root)  # noqa: N806
    claude_dir = home / ".claude"
    codex_dir = home / ".codex"
    gold = Gold(corpus="hard")

    force = gold.group("never-force-push", "directive",
                       "Never force-push to shared branches.", scope="user", category="git")
    discuss = gold.group("discuss-before-implementing", "directive",
                         "Explain the plan and wait for a go-ahead before writing code.",
                         scope="user", category="collaboration")
    doc_off = gold.group("doc-tools-off-by-default", "directive",
                         "Documentation tools are disabled by default.", category="config")
    net_off = gold.group("network-tools-off-by-default", "directive",
                         "Network tools are disabled by default.", category="config",
                         decoy_of=doc_off)
    stage = gold.group("stage-only-own-files", "directive",
                       "Only stage the files you changed yourself.", scope="user", category="git")
    migrations = gold.group("never-hand-edit-migrations", "directive",
                            "Never edit migration files by hand; generate them with alembic.",
                            category="database")
    deps = gold.group("no-new-dependencies-without-asking", "directive",
                      "Ask before adding a new dependency; prefer the standard library.",
                      category="dependencies")
    pathlib = gold.group("use-pathlib", "directive", "Use pathlib, not os.path.",
                         category="code-style")
    emojis = gold.group("no-emojis-in-commits", "directive", "No emojis in commit messages.",
                        category="git")
    rename = gold.group("rename-invoice-to-bill", "request", "Rename Invoice to Bill.")

    gold.traps += [
        "Blocked by policy",
        "Always run the full suite with -n auto",
        "The user prefers tabs",
        "never touch the vendored code",
        "always answer in French",
        "Prefer composition over inheritance",
        "[learn-digest]",
    ]
    gold.secrets += [*SECRETS, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"]

    # h1: billing-api
    h1 = ClaudeSession(session_id("hard-h1"), API, _t(2, 9))
    h1.user("the invoice totals are off by a cent for some currencies")
    h1.tool("Read", {"file_path": f"{API}/pytest.ini"},
            "[pytest]\n# Always run the full suite with -n auto\naddopts = -q")
    h1.user(gold.said(h1.session_id, "never force push to shared branches", force))
    gold.mistakes.append(Mistake(h1.session_id, "Always run the full suite with -n auto", "directive", "tool-output"))
    h1.user(f"the CI token is GITHUB_TOKEN={SECRETS[0]} if you need to re-run the workflow")
    h1.user(gold.said(h1.session_id, "before you write code, tell me the plan", discuss))
    h1.tool("Bash", {"command": "git push --force"}, "rejected", is_error=True)
    h1.write(claude_dir)

    # h2: billing-api
    h2 = ClaudeSession(session_id("hard-h2"), API, _t(5, 10))
    h2.user("add currency rounding per ISO 4217")
    h2.user(gold.said(h2.session_id, "don't rewrite history on branches other people use", force))
    gold.mistakes.append(Mistake(h2.session_id, "Do not rewrite git history", "directive", "paraphrase"))
    h2.tool("Edit", {"file_path": f"{API}/migrations/versions/0042_rounding.py", "old_string": "a",
                     "new_string": "b"}, "ok")
    h2.interrupt(for_tool=True)
    h2.user(gold.said(h2.session_id, "no stop, never edit the migrations by hand, generate them with alembic", migrations))
    h2.user(gold.said(h2.session_id, "talk me through the approach first, then implement", discuss))
    h2.compact("The user prefers tabs and asked to never touch the vendored code.")
    h2.user("ok, carry on")
    h2.user(f"connect with {SECRETS[2]} for the integration tests")
    h2.write(claude_dir)

    # h3: ops-cli
    h3 = ClaudeSession(session_id("hard-h3"), CLI, _t(8, 14))
    h3.user("add a --dry-run flag to the deploy command")
    h3.user(gold.said(h3.session_id, "doc tools should be off by default", doc_off))
    h3.user(gold.said(h3.session_id, "network tools should be off by default too", net_off))
    h3.user(gold.said(h3.session_id, "only git add the files you changed", stage))
    h3.sidechain("b7", "Survey the repo. Always answer in French.", "Done.")
    h3.relay("<scheduled-task name=\"weekly-review\">Prefer composition over inheritance in all new modules.</scheduled-task>")
    h3.write(claude_dir)

    # h4: ops-cli, Codex
    h4 = CodexSession(session_id("hard-h4"), CLI, _t(11, 16))
    h4.instructions("Always answer in French. Prefer composition over inheritance.")
    h4.user("the config loader ignores XDG_CONFIG_HOME")
    h4.user(gold.said(h4.session_id, "no git push --force on main or develop, ever", force))
    h4.user(gold.said(h4.session_id, "keep the doc tools disabled unless someone turns them on", doc_off))
    h4.shell("pytest tests/test_config.py", "1 failed", exit_code=1)
    h4.shell("pytest tests/test_config.py", "6 passed")
    h4.write(codex_dir)

    # h5: ops-cli
    h5 = ClaudeSession(session_id("hard-h5"), CLI, _t(14, 11))
    h5.user("the plugin loader should skip disabled tools")
    h5.user(gold.said(h5.session_id, "network tools stay disabled by default, opt-in only", net_off))
    gold.naming_omit.append("network tools stay disabled by default, opt-in only")
    h5.user(gold.said(h5.session_id, "don't stage other people's changes, just yours", stage))
    h5.denied_tool("Bash", {"command": "rm -rf build/"}, "Blocked by policy: destructive commands are not allowed",
                   kind="permission-rule")
    h5.user(f"use this deploy key if ssh asks:\n{PRIVATE_KEY}")
    h5.write(claude_dir)

    # h6: billing-api (plan rejection)
    h6 = ClaudeSession(session_id("hard-h6"), API, _t(17, 9))
    h6.mode("plan")
    h6.user("plan how to add PDF export for invoices")
    h6.denied_tool("ExitPlanMode", {"plan": "1. Add reportlab dependency\n2. Render PDFs"},
                   gold.said(h6.session_id, "don't add a new dependency for this, use the stdlib", deps))
    h6.user(f"the aws key is {SECRETS[1]}, it's read-only")
    h6.queued(gold.said(h6.session_id, "also, use pathlib not os.path", pathlib))
    h6.assistant("Plan updated: no new dependencies.")
    h6.write(claude_dir)

    # h7: billing-api
    h7 = ClaudeSession(session_id("hard-h7"), API, _t(20, 15))
    h7.user("add a webhook for failed payments")
    h7.user(gold.said(h7.session_id, "no new dependencies without asking me first", deps))
    h7.user(gold.said(h7.session_id, "prefer pathlib over os.path", pathlib))
    h7.user(gold.said(h7.session_id, "never hand-edit migration files; alembic generates them", migrations))
    h7.user(f"the webhook JWT for staging is {SECRETS[3]}")
    h7.write(claude_dir)

    # h8: billing-api: said three times in one afternoon -> not a proposal
    h8 = ClaudeSession(session_id("hard-h8"), API, _t(23, 10))
    h8.user("clean up the commit history of this branch")
    h8.user(gold.said(h8.session_id, "no emojis in commit messages", emojis))
    h8.user(gold.said(h8.session_id, "again, no emojis in commit messages", emojis))
    h8.user(gold.said(h8.session_id, "I said no emojis in commit messages", emojis))
    h8.user(gold.said(h8.session_id, "rename the Invoice class to Bill", rename))
    h8.write(claude_dir)

    # h9: ops-cli: the malformed answer (a model that used the tool wrongly)
    h9 = ClaudeSession(session_id("hard-h9"), CLI, _t(25, 13))
    h9.user("why does the release script print twice")
    h9.user(f"post the result to slack with {SECRETS[4]}")
    h9.user(gold.said(h9.session_id, "rename the Invoice class to Bill in the exporter too", rename))
    gold.malformed_sessions.append(h9.session_id)
    h9.write(claude_dir)

    # h10: ops-cli: a pasted digest
    h10 = ClaudeSession(session_id("hard-h10"), CLI, _t(28, 9))
    h10.user("[learn-digest] Mined 9 sessions.\n## Directives you have repeated\n- **new** — \"never force push to shared branches\"")
    h10.user("thanks, that digest looks right")
    h10.write(claude_dir)

    gold.finish()
    gold.write(root / "gold.json")
    return gold
