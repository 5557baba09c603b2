"""The adversarial corpus: points a correct run proposes and the judge must turn down.

Written for this purpose (no one's real transcripts), and run only under the
noisy model (`NOISY_ONLY` in evals/corpora/__init__.py): it has no recorded
answers in cache/, and adding it there would change nothing the demo sends.

Every other corpus's gold group is one the judge accepts, so a judge that
accepted everything scored 1.0 there (audit 57, sabotage 8a). Here:

- "keep the SQL in queries/" said in three sessions       -> directive, accepted;
- "add type hints to public functions" in two sessions     -> directive, accepted;
- "skip the flaky settlement test for now" in two sessions -> a directive that is
  a situation, not a rule: proposed, and the judge must REJECT it;
- "commit what you have" asked in three sessions           -> a request too
  generic to be a command: proposed, and the judge must REJECT it (and no
  command may be written for it);
- "use the staging database" in three sessions, each time a FRAGMENT of a
  message that limits it ("..., but only for this one", "for now, ...",
  "... just for today's fix") -> proposed, and the judge, which reads the
  message in full (`said in full:`, learn/reduce/windows.py), must REJECT it;
- "keep every money amount in integer cents" in three sessions, a fragment of a
  message that only explains it (no limit) -> the control: the same shape of
  item line, `said in full:` included, and the judge must ACCEPT it;
and what the model reports that must not survive: a fix for `pytest` in a
session where it never failed (fix verification must refuse it), a rule-like
line the assistant wrote, and a warning printed by a tool.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from evals.builder import ClaudeSession, CodexSession, fresh_root, session_id
from evals.gold import Gold, Mistake

ASSISTANT_RULE = "You should always pin every dependency to an exact version"
TOOL_WARNING = "WARNING: never run the migrations against production from a laptop"


def _t(day: int, hour: int) -> datetime:
    return datetime(2026, 10, day, hour, 0, 0, tzinfo=UTC)


def build(root: Path) -> Gold:
    """Write the corpus under `root` (HOME is `root/home`) and return its gold."""
    fresh_root(root)
    home = root / "home"
    ledger_root = home / "code" / "ledger"
    ledger_root.mkdir(parents=True)
    LEDGER = str(ledger_root)  # noqa: N806
    claude_dir = home / ".claude"
    codex_dir = home / ".codex"
    gold = Gold(corpus="adversarial")

    sql = gold.group("sql-lives-in-queries-dir", "directive",
                     "Keep raw SQL in the queries/ directory; never inline it in request handlers.",
                     category="code-style")
    hints = gold.group("type-hints-on-public-functions", "directive",
                       "Every public function has type hints.", category="code-style")
    flaky = gold.group("skip-flaky-settlement-test", "directive",
                       "Skip the flaky settlement test.", category="testing", accepted=False)
    commit = gold.group("commit-current-work", "request", "Commit the current work.",
                        category="workflow", accepted=False)
    # Quoted as fragments: the miner reports the rule-like words, the rest of the
    # message limits them (staging) or only explains them (cents).
    staging = gold.group("use-staging-database", "directive", "Use the staging database.",
                         category="workflow", accepted=False, limited=True)
    cents = gold.group("money-in-integer-cents", "directive",
                       "Store money amounts as integer cents, never as floats.",
                       category="code-style")
    gold.traps += [ASSISTANT_RULE, TOOL_WARNING]

    # -- A1 ---------------------------------------------------------------------------
    a1 = ClaudeSession(session_id("adv-a1"), LEDGER, _t(2, 9))
    a1.user("add an endpoint that lists the unpaid invoices of a customer")
    a1.user(gold.said(a1.session_id, "put the raw SQL in the queries folder, not inline in the handler", sql))
    a1.tool("Bash", {"command": "pytest tests/test_settlement.py"}, "1 failed (timeout)", is_error=True)
    a1.user(gold.said(a1.session_id, "skip the flaky settlement test for now, we'll look at it next sprint", flaky))
    a1.assistant("The endpoint is in and the listing query lives in queries/unpaid.sql.")
    a1.write(claude_dir)

    # -- A2 ---------------------------------------------------------------------------
    a2 = ClaudeSession(session_id("adv-a2"), LEDGER, _t(5, 14))
    a2.user("rename the currency helper module to money")
    a2.assistant(f"{ASSISTANT_RULE}, so I pinned the new one too.")
    gold.distractors.append(Mistake(a2.session_id, ASSISTANT_RULE, "directive", "assistant-prose"))
    a2.user(gold.said(a2.session_id, "public functions get type hints, every one of them", hints))
    a2.user(gold.said(a2.session_id, "commit what you have", commit))
    a2.write(claude_dir)

    # -- A3 ---------------------------------------------------------------------------
    a3 = ClaudeSession(session_id("adv-a3"), LEDGER, _t(9, 10))
    a3.user("the nightly export writes the totals twice, have a look")
    a3.tool("Bash", {"command": "alembic upgrade head"}, f"{TOOL_WARNING}\nupgrade ok")
    gold.mistakes.append(Mistake(a3.session_id, TOOL_WARNING.removeprefix("WARNING: "), "directive",
                                 "tool-output"))
    a3.tool("Bash", {"command": "pytest tests/test_export.py"}, "9 passed")
    gold.mistakes.append(Mistake(a3.session_id, "pytest tests/test_export.py kept failing until the "
                                 "fixtures were rebuilt", "fix", "never-failed",
                                 command="pytest tests/test_export.py",
                                 error_excerpt="AssertionError: totals differ"))
    a3.user(gold.said(a3.session_id, "SQL belongs in queries/, don't build it inline in handler code", sql))
    a3.assistant("Fixed: the export loop ran the totals query once per page.")
    a3.write(claude_dir)

    # -- A4 ---------------------------------------------------------------------------
    a4 = ClaudeSession(session_id("adv-a4"), LEDGER, _t(13, 16))
    a4.user("make the settlement job retry on a lock timeout")
    a4.tool("Bash", {"command": "pytest tests/test_settlement.py"}, "1 failed (timeout)", is_error=True)
    a4.user(gold.said(a4.session_id, "just skip that flaky settlement test again today", flaky))
    a4.user(gold.said(a4.session_id, "ok, commit what you have so far", commit))
    a4.assistant("Committed the retry change.")
    a4.write(claude_dir)

    # -- A5 ---------------------------------------------------------------------------
    a5 = ClaudeSession(session_id("adv-a5"), LEDGER, _t(18, 11))
    a5.user("add a report of refunds per month")
    a5.user(gold.said(a5.session_id, "again: the SQL goes in queries/, keep it out of the handlers", sql))
    a5.assistant("The refunds report reads queries/refunds_by_month.sql.")
    a5.write(claude_dir)

    # -- A6: Codex ----------------------------------------------------------------------
    a6 = CodexSession(session_id("adv-a6"), LEDGER, _t(22, 15))
    a6.user("split the invoice PDF renderer out of the views module")
    a6.shell("pytest tests/test_pdf.py", "4 passed")
    a6.user(gold.said(a6.session_id, "type hints on all public functions please", hints))
    a6.user(gold.said(a6.session_id, "commit whatever you've got now", commit))
    a6.assistant("Moved the renderer to ledger/pdf.py.")
    a6.write(codex_dir)

    # -- A7: fragments, one limited, one not ------------------------------------------
    # The Claude Code sessions hold each point's longest quote, the one the judge's
    # line shows (a proposal's text is its longest quote), so the line carries the
    # message in full.
    a7 = ClaudeSession(session_id("adv-a7"), LEDGER, _t(24, 10))
    a7.user("write the migration that adds a currency column to payouts")
    a7.tool("Bash", {"command": "alembic upgrade head"},
            "could not connect to server: Connection refused", is_error=True)
    a7.user(gold.said(a7.session_id, "run the migration against the staging database", staging)
            + ", but only for this one, the local database is being rebuilt")
    a7.user("the payout total is a cent off. "
            + gold.said(a7.session_id, "keep every money amount in integer cents", cents)
            + ", the float sums drift when we round")
    a7.assistant("The migration ran against staging; payout totals are summed in cents now.")
    a7.write(claude_dir)

    # -- A8: Codex ------------------------------------------------------------------------
    a8 = CodexSession(session_id("adv-a8"), LEDGER, _t(26, 9))
    a8.user("the payouts backfill takes an hour, batch the inserts")
    a8.user(gold.said(a8.session_id, "use the staging database", staging)
            + " just for today's fix, production stays as it is")
    a8.user(gold.said(a8.session_id, "money stays in integer cents", cents)
            + " in the batches too, like every other table in the ledger")
    a8.assistant("The backfill inserts 500 rows a batch and reads staging.")
    a8.write(codex_dir)

    # -- A9 -------------------------------------------------------------------------------
    a9 = ClaudeSession(session_id("adv-a9"), LEDGER, _t(28, 15))
    a9.user("the fee report double counts reversed charges")
    a9.user("for now, " + gold.said(a9.session_id, "point the app at the staging database", staging)
            + ", until the seed data is back on the dev box")
    a9.user("the fee column is a float in the report query. "
            + gold.said(a9.session_id, "amounts are integer cents", cents)
            + ", convert them where they are shown")
    a9.assistant("Reversed charges are netted out; fees are summed as integer cents.")
    a9.write(claude_dir)

    gold.finish()
    gold.write(root / "gold.json")
    return gold


if __name__ == "__main__":
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "adversarial-corpus")
    g = build(out)
    print(f"wrote {out} ({len(g.quotes)} gold quotes, "
          f"{sum(1 for x in g.groups.values() if x.proposed)} proposals expected)")
