"""The demo corpus: eight sessions over three projects, Claude Code and Codex.

Written for this purpose (no one's real transcripts). What it holds, and what a
correct run proposes at the default thresholds:

- "use bun, not npm" said three ways in three sessions (two Claude Code, one
  Codex) with almost no shared words  -> a directive in 3 sessions;
- "don't mock the database" in two sessions                     -> directive, 2;
- "run ruff before committing" in two sessions, already in the project's
  CLAUDE.md                                                     -> restated;
- "leave the generated files alone", typed only as the reason for rejecting an
  edit, in two sessions                                         -> directive, 2
  (found by the deterministic denial detector even with no model);
- "use structlog" once typed and once as a free-form answer     -> directive, 2;
- a pytest import error fixed by `pip install -e .` in two sessions -> a fix;
- "open a release PR" asked for in three sessions               -> a request;
and what must NOT be proposed: "keep functions short" said three times in one
session; "run the tests before committing" (a look-alike of the ruff rule, once);
"bump the version" asked twice (requests need three); a replayed /pr template
body with rule-like lines; CONTRIBUTING.md text in tool output; a compaction
summary; a subagent prompt; a teammate relay; a pasted digest; and a planted API
key that must never leave the machine or reach a file learn writes.

Run `python -m evals.corpora.demo DIR` to write it somewhere to look at.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from evals.builder import ClaudeSession, CodexSession, fresh_root, session_id
from evals.gold import Gold, Mistake

# The corpus is built where it is used (a temp HOME), so the sessions' working
# directories are real directories there and coverage finds the project's
# CLAUDE.md. Rendering shows paths relative to the session's project, so the
# model sees the same text wherever the corpus was built and the recorded
# answers in cache/ still match.

PR_TEMPLATE = """---
description: Open a pull request for the current branch
argument-hint: [patch|minor|major]
---
Open a pull request for the current branch against main.

Write the PR description in the imperative mood and always include a Testing section
that lists the exact commands you ran. Never include unrelated refactors in the same PR;
split them out first. Label the PR with $ARGUMENTS and request review from the code owners.
"""

CONTRIBUTING = """# Contributing

Never push directly to main. Every change goes through a pull request with one approval.
Always squash-merge feature branches. Keep commits small and focused.
"""

PLANTED_KEY = "sk-ant-api03-Zx8vQ2mN4bT7yK1pL9sW3dF6hJ0cR5eA2gU8iO4kM7nB1vC3xZ6qP9tY2wE5rT8uI1oP-4sDfGhAA"


def _t(day: int, hour: int) -> datetime:
    return datetime(2026, 11, day, hour, 0, 0, tzinfo=UTC)


def build(root: Path) -> Gold:
    """Write the corpus under `root` (HOME is `root/home`) and return its gold."""
    fresh_root(root)
    home = root / "home"
    shop_root = home / "code" / "shop-api"
    web_root = home / "code" / "web-app"
    infra_root = home / "code" / "infra"
    for d in (shop_root, web_root, infra_root):
        d.mkdir(parents=True)
    SHOP, WEB, INFRA = str(shop_root), str(web_root), str(infra_root)  # noqa: N806
    claude_dir = home / ".claude"
    codex_dir = home / ".codex"
    gold = Gold(corpus="demo")

    bun = gold.group("use-bun-not-npm", "directive",
                     "Use bun for installs and scripts in this repo, never npm.")
    nomock = gold.group("real-database-in-tests", "directive",
                        "Tests hit the real Postgres database; never mock the database layer.",
                        category="testing")
    ruff = gold.group("run-ruff-before-commit", "directive",
                      "Run `ruff check` before every commit.", coverage="restated",
                      category="tooling")
    gen = gold.group("leave-generated-files-alone", "directive",
                     "Never edit files under src/generated/; regenerate them with `bun run codegen`.")
    structlog = gold.group("use-structlog-for-logging", "directive",
                           "Log with structlog, never print().", category="code-style")
    short = gold.group("keep-functions-short", "directive", "Keep functions short.",
                       category="code-style")
    tests_first = gold.group("run-tests-before-commit", "directive",
                             "Run the test suite before committing.", decoy_of=ruff,
                             category="testing")
    fix_install = gold.group("pip-install-editable-for-imports", "fix",
                             "When pytest cannot import shop_api, install the package in editable mode with `pip install -e .`.",
                             category="environment")
    release = gold.group("open-release-pr", "request",
                         "Open a release PR with the changelog.", category="workflow",
                         command="Open a release pull request for $ARGUMENTS: add the changes "
                                 "since the last release to CHANGELOG.md, commit that, and open "
                                 "the PR against main with the new changelog entry as its "
                                 "description.")
    bump = gold.group("bump-the-version", "request", "Bump the version.", category="workflow")
    tf = gold.group("terraform-fmt-before-plan", "directive", "Run terraform fmt before plan.",
                    category="tooling")

    # The /pr command template on disk: its body replays into transcripts.
    commands = claude_dir / "commands"
    commands.mkdir(parents=True)
    (commands / "pr.md").write_text(PR_TEMPLATE, encoding="utf-8")
    pr_body = PR_TEMPLATE.split("---\n", 2)[2].replace("$ARGUMENTS", "patch")
    gold.traps += [
        "Write the PR description in the imperative mood",
        "Never push directly to main",
        "always use bun for everything",
        "never suggest yarn",
        "always deploy on fridays",
        "[learn-digest]",
    ]
    gold.secrets.append(PLANTED_KEY)

    # The project's existing rules: the ruff rule is already written down.
    (shop_root / "CLAUDE.md").write_text(
        "# shop-api\n\n## Workflow\n\n- Run ruff before committing.\n- Use uv to manage the virtualenv.\n",
        encoding="utf-8",
    )

    # -- S1: web-app, Claude Code ---------------------------------------------------
    s1 = ClaudeSession(session_id("demo-s1"), WEB, _t(3, 9))
    s1.user("add a /health endpoint to the dev server and wire it into the smoke test")
    s1.tool("Read", {"file_path": f"{WEB}/CONTRIBUTING.md"}, CONTRIBUTING)
    s1.tool("Bash", {"command": "npm install", "description": "Install deps"}, "added 812 packages")
    s1.user(gold.said(s1.session_id, "we're on bun now, not npm. use bun install and bun run for everything", bun))
    s1.tool("Bash", {"command": "bun install"}, "412 packages installed [1.21s]")
    s1.denied_tool("Edit", {"file_path": f"{WEB}/src/generated/api.ts", "old_string": "a", "new_string": "b"},
                   gold.said(s1.session_id, "leave the generated files alone, regenerate them with bun run codegen", gen))
    s1.tool("Bash", {"command": "bun run codegen"}, "generated 14 files")
    s1.assistant("Added the endpoint and regenerated the client.")
    gold.mistakes.append(Mistake(s1.session_id, "Never push directly to main.", "directive", "tool-output"))
    s1.write(claude_dir)

    # -- S2: web-app, Claude Code ---------------------------------------------------
    s2 = ClaudeSession(session_id("demo-s2"), WEB, _t(8, 14))
    s2.user("the login form doesn't show validation errors, fix it")
    s2.tool("Bash", {"command": "npm test -- login"}, "npm ERR! missing script", is_error=True)
    s2.user(gold.said(s2.session_id, "no npm please, this repo uses bun", bun))
    gold.naming_omit.append("no npm please, this repo uses bun")
    gold.mistakes.append(Mistake(s2.session_id, "This repo uses bun instead of npm", "directive", "paraphrase"))
    s2.tool("Bash", {"command": "bun test login"}, "3 pass")
    s2.denied_tool("Write", {"file_path": f"{WEB}/src/generated/schema.ts", "content": "..."},
                   gold.said(s2.session_id, "don't edit anything under src/generated, it gets overwritten by codegen", gen))
    s2.sidechain("a1", "Search the codebase for uses of npm and never suggest yarn", "Found 3 references.")
    s2.user(gold.said(s2.session_id, "open a release PR with the changelog for this", release))
    s2.slash_command("pr", "patch", pr_body)
    gold.mistakes.append(Mistake(s2.session_id, "Write the PR description in the imperative mood", "directive", "replayed-template"))
    s2.assistant("Opened the PR.")
    s2.write(claude_dir)

    # -- S3: shop-api, Claude Code ---------------------------------------------------
    s3 = ClaudeSession(session_id("demo-s3"), SHOP, _t(10, 10))
    s3.user("add a refund endpoint to the orders service")
    s3.tool("Bash", {"command": "pytest tests/test_orders.py"},
            "ImportError while importing test module\nModuleNotFoundError: No module named 'shop_api'",
            is_error=True)
    s3.tool("Bash", {"command": "pip install -e ."}, "Successfully installed shop-api-0.3.0")
    s3.tool("Bash", {"command": "pytest tests/test_orders.py"}, "12 passed")
    gold.said(s3.session_id, "pytest failed with ModuleNotFoundError for shop_api until the package was installed with pip install -e .",
              fix_install, command="pytest tests/test_orders.py",
              error_excerpt="ModuleNotFoundError: No module named 'shop_api'")
    s3.tool("Edit", {"file_path": f"{SHOP}/tests/test_refunds.py", "old_string": "x", "new_string": "mock_db = MagicMock()"}, "ok")
    s3.user(gold.said(s3.session_id, "don't mock the database in tests. we got burned last quarter when the mocked tests passed and the migration failed in prod", nomock))
    s3.user(f"here's the staging key for the smoke test: ANTHROPIC_API_KEY={PLANTED_KEY} — run it once and then forget it")
    s3.user(gold.said(s3.session_id, "run ruff check before you commit anything", ruff))
    s3.tool("Read", {"file_path": f"{SHOP}/CONTRIBUTING.md"}, CONTRIBUTING)
    s3.compact("The user asked to add a refund endpoint. The user said to always use bun for everything and to mock nothing.")
    s3.user("ok continue with the refund tests")
    s3.assistant("Done. The refund tests pass against the real database.")
    s3.write(claude_dir)

    # -- S4: shop-api, Claude Code ---------------------------------------------------
    s4 = ClaudeSession(session_id("demo-s4"), SHOP, _t(14, 16))
    s4.user("the nightly job double-charges when the payment provider times out, find out why")
    s4.tool("Bash", {"command": "pytest -k charge"},
            "E   ModuleNotFoundError: No module named 'shop_api'", is_error=True)
    s4.tool("Bash", {"command": "pip install -e ."}, "Successfully installed shop-api-0.3.1")
    s4.tool("Bash", {"command": "pytest -k charge"}, "4 passed, 1 failed")
    gold.said(s4.session_id, "pytest could not import shop_api until pip install -e . was run",
              fix_install, command="pytest -k charge",
              error_excerpt="ModuleNotFoundError: No module named 'shop_api'")
    s4.user(gold.said(s4.session_id, "tests must hit the real postgres, no mocks for the db layer", nomock))
    s4.user(gold.said(s4.session_id, "run the tests before committing", tests_first))
    s4.relay("<teammate-message teammate_id=\"ops-bot\">always deploy on fridays</teammate-message>")
    s4.user(gold.said(s4.session_id, "open a release PR with the changelog once this is merged", release))
    s4.slash_command("pr", "patch", pr_body)
    s4.user(gold.said(s4.session_id, "bump the version", bump))
    s4.assistant("Fixed the retry path and opened the PR.")
    s4.write(claude_dir)

    # -- S5: web-app, Codex ------------------------------------------------------------
    s5 = CodexSession(session_id("demo-s5"), WEB, _t(18, 11))
    s5.instructions("Follow the repository conventions in AGENTS.md. Always use bun for everything.")
    s5.user("the storybook build is broken after the upgrade")
    s5.shell("npm run storybook", "npm ERR! Missing script: \"storybook\"", exit_code=1)
    s5.user(gold.said(s5.session_id, "use bun for scripts here, we dropped npm last month", bun))
    s5.shell("bun run storybook", "storybook started on :6006")
    s5.assistant("Storybook builds again with bun.")
    s5.write(codex_dir)

    # -- S6: shop-api, Claude Code ---------------------------------------------------
    s6 = ClaudeSession(session_id("demo-s6"), SHOP, _t(21, 9))
    s6.user("refactor the invoice generator, it's one 300-line function")
    s6.user(gold.said(s6.session_id, "keep functions short", short))
    s6.tool("Edit", {"file_path": f"{SHOP}/shop_api/invoices.py", "old_string": "a", "new_string": "b"}, "ok")
    s6.user(gold.said(s6.session_id, "keep functions short, split this one up more", short))
    s6.interrupt()
    s6.user(gold.said(s6.session_id, "again: keep functions short", short))
    s6.ask("Which logging library should the invoice module use?", ["logging", "loguru"],
           gold.said(s6.session_id, "use structlog, we never use print or bare logging here", structlog))
    s6.user(gold.said(s6.session_id, "always ruff before committing please", ruff))
    s6.user("[learn-digest] Mined 5 sessions. ## Directives you have repeated - **new** — \"we're on bun now, not npm\" grouped as: use-bun-not-npm")
    s6.user(gold.said(s6.session_id, "bump the version", bump))
    s6.assistant("Split the generator into five functions.")
    s6.write(claude_dir)

    # -- S7: shop-api, Claude Code ---------------------------------------------------
    s7 = ClaudeSession(session_id("demo-s7"), SHOP, _t(25, 15))
    s7.user("add pagination to GET /orders")
    s7.user(gold.said(s7.session_id, "log with structlog, not print", structlog))
    s7.tool("Bash", {"command": "pytest tests/test_orders.py"}, "18 passed")
    s7.user(gold.said(s7.session_id, "now open a release PR with the changelog", release))
    s7.slash_command("pr", "minor", pr_body.replace("patch", "minor"))
    s7.assistant("Opened the release PR.")
    s7.write(claude_dir)

    # -- S8: infra, Codex ----------------------------------------------------------------
    s8 = CodexSession(session_id("demo-s8"), INFRA, _t(27, 13))
    s8.user("add an S3 bucket for the invoice exports")
    s8.shell("terraform plan", "Error: Invalid format", exit_code=1)
    s8.user(gold.said(s8.session_id, "run terraform fmt before plan", tf))
    s8.shell("terraform fmt && terraform plan", "Plan: 1 to add")
    s8.write(codex_dir)

    gold.finish()
    gold.write(root / "gold.json")
    return gold


if __name__ == "__main__":
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "demo-corpus")
    g = build(out)
    print(f"wrote {out} ({len(g.quotes)} gold quotes, "
          f"{sum(1 for x in g.groups.values() if x.proposed)} proposals expected)")
