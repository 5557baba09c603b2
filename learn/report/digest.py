"""The digest: what a run found, as markdown for a person (or the `/learn` command) and as JSON.

The markdown opens with the digest marker because `/learn` pastes it into a
Claude Code session, where it is persisted like any user turn; the session view
drops turns carrying the marker, so a digest is never mined as something the user
said (otherwise every proposal would count its own past digests).

This module writes the run: what was read, the funnel, the sections, what is
pending, what failed, the empty cases. Each proposal's own lines are
learn.report.proposal_lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from learn.records.proposal import Funnel, Proposal, RunResult, nothing_typed
from learn.report.outcomes import outcome_lines
from learn.report.proposal_lines import RULE_CHARS, agent_name, item_lines, scope_sentence
from learn.report.words import day, flatten, plural
from learn.visible import code_span, inert_json, visible

LEARN_DIGEST_MARKER = "[learn-digest]"

SECTIONS: tuple[tuple[str, str], ...] = (
    ("directive", "Directives you keep repeating"),
    ("fix", "Failures you keep resolving the same way"),
    ("request", "Work you keep asking for by name"),
)


def is_proposed(p: Proposal) -> bool:
    """Shown as a proposal unless the judge looked at it and said no."""
    return p.verdict is None or p.verdict.accepted


def funnel_sentence(f: Funnel) -> str:
    parts = [f"{plural(f.candidates, 'verified occurrence')} in {plural(f.points, 'group')}"]
    if f.points or f.over_threshold:
        parts.append(f"{f.over_threshold} said in enough sessions to count"
                     f" ({f.below_threshold} below the threshold)")
    parts.append(f"{f.shown} shown")
    if f.held_back:
        parts.append(f"{f.held_back} held back (shown before and not said again since, "
                     "or declined)")
    if f.cut:
        parts.append(f"{f.cut} cut by the per-kind cap")
    return "Funnel: " + "; ".join(parts) + "."


def header_lines(result: RunResult) -> list[str]:
    u = result.usage
    where = f" in {', '.join(map(code_span, result.projects))}" if result.projects else ""
    span = ""
    start, end = day(result.window_start), day(result.window_end)
    if start and end:
        span = f", {start} to {end}" if start != end else f", {start}"
    elif start or end:
        span = f", {start or end}"
    read = result.extra.get("agents") or {}
    agents = ""
    if len(read) > 1 or (read and next(iter(read)) != "claude"):
        agents = " (" + ", ".join(f"{agent_name(a)} {n}" for a, n in read.items()) + ")"
    first = (f"{LEARN_DIGEST_MARKER} Read {plural(u.sessions_seen, 'session')}{agents}"
             f"{where}{span}.")
    scope = scope_sentence(result)
    lines = [f"{first} {scope}" if scope else first]
    view = result.extra.get("view")
    if view in ("pending", "all"):
        project = result.extra.get("project")
        where = code_span(str(project)) if project else "every project"
        n = len(result.proposals)
        what = "proposal" if view == "all" else "pending proposal"
        lines.append(f"Showing {plural(n, what)} for {where}"
                     + (" (every state)" if view == "all" else
                        ": proposed by earlier runs, not yet applied or declined")
                     + ". The lines below describe the newest run that read it.")
    reading = (f"Read by the model this run: {u.sessions_mined}; reused from cache: "
               f"{u.sessions_cached}; failed: {u.sessions_failed}")
    if u.sessions_failed:
        reading += (" (what earlier runs verified in those still counts; anything new in them "
                    "is missing from the counts below)")
    lines.append(reading + uncounted_clause(result) + ".")
    aside = int(result.extra.get("programmatic_set_aside") or 0)
    if aside:
        lines.append(f"Set aside as programmatic (started by a program, not typed by you): "
                     f"{plural(aside, 'session')}; `learn sessions` says which and why, "
                     "`learn run --include-programmatic` mines them too.")
    lines.append(funnel_sentence(result.funnel))
    if result.offline:
        lines.append(OFFLINE_LIMITS)
    if result.coverage_failed:
        lines.append("The check against your existing rules failed: some items may already "
                     "be written down.")
    dropped = verification_sentence(result.verification)
    if dropped:
        lines.append(dropped)
    unnamed = int((result.extra.get("naming") or {}).get("unnamed_failed") or 0)
    if unnamed:
        lines.append(f"Naming failed for {plural(unnamed, 'quote')}: they are grouped only with "
                     "near-identical wording, under labels used for this run only (not kept); "
                     "the next run names them.")
    if result.failed_stages:
        # The stages by the names stderr's progress and "What failed" give them (mine,
        # name, coverage, judge, batch): the digest said "mining, naming" beside lines
        # opening "mine:" and "name:".
        stages = dict.fromkeys(result.failed_stages)
        lines.append(f"Failed after retries: {'stage' if len(stages) == 1 else 'stages'} "
                     f"{', '.join(stages)} (see \"What failed\" below); what is shown is "
                     "what the rest of the run found.")
    lines.append("The counts come from the transcripts on disk. They are evidence, not "
                 "conclusions: read the quotes before you write anything.")
    return lines


def uncounted_clause(result: RunResult) -> str:
    """"; nothing typed to count: 3 (2 only a repeated prompt, 1 none typed)": the sessions
    read that the counts leave out, so the numbers add up to "Read N sessions". A Codex
    home said "Read 16 sessions", then "read by the model 0, from cache 13, failed 0"
    and "of your last 13 sessions", and the 3 others were said nowhere."""
    u, extra = result.usage, result.extra
    if result.offline:
        return ""  # nothing is mined offline: every session read is counted
    why = nothing_typed(result)
    counted = u.sessions_mined + u.sessions_cached + u.sessions_failed
    batch = int(extra.get("in_batch") or 0)
    out = ""
    if why is not None:
        repeated, none = why["repeated"], why["none"]
        if repeated and none:
            out = (f"; nothing typed to count: {repeated + none} ({repeated} only a repeated "
                   f"prompt, {none} none typed)")
        elif repeated or none:
            out = (f"; nothing typed to count: {repeated + none} "
                   f"({'only a repeated prompt' if repeated else 'none typed'})")
    elif counted and u.sessions_seen > counted + batch:  # a run stored before these were said
        out = f"; nothing typed to count: {u.sessions_seen - counted - batch}"
    if batch:
        out += f"; waiting in a Message Batch: {batch}"
    return out


# Said once per offline run, instead of a "failure" per stage that had no model.
OFFLINE_LIMITS = (
    "Offline run: no model read your sessions. Counted: what earlier runs' models found "
    "(cached) and what the detectors catch without one (reasons you typed when denying a "
    "tool or rejecting a plan, your answers to questions, and what else you said that they "
    "rate at the candidate threshold, [mining] min_signal_confidence). Not seen: what only a "
    "model recognises in plain conversation (fixes, most requests); proposals are not judged "
    "nor checked against your rules, and each rule is worded from your quote. `learn run` "
    "with a backend sees the rest."
)

_DROP_WORDS = (("paraphrase", "not what was typed"), ("too_short", "too short"),
               ("fix_command", "a fix whose command never ran"))


def verification_sentence(tally: dict[str, int]) -> str | None:
    """"Verification kept 12 quotes and dropped 3: 2 not what was typed, 1 too short."."""
    parts = [f"{tally[k]} {words}" for k, words in _DROP_WORDS if tally.get(k)]
    if not tally or not parts:
        return None
    total = sum(tally.get(k, 0) for k, _ in _DROP_WORDS)
    return (f"Verification kept {plural(tally.get('kept', 0), 'quote')} and dropped {total}: "
            f"{', '.join(parts)}.")


WHAT_TO_DO = """\
## What to do

`learn apply` writes the accepted rules, each shown as a diff you confirm
(`--only KEY`, `--edit` to reword); `learn decline KEY` holds one back until
it is said in twice as many sessions. Undecided, a proposal stays pending: `learn digest` shows it again. A restated
item's rule exists; said again since it was in place, rewrite that line, don't add a second.
Rule, skill or command, and which file: the guide a first run prints in full
(`learn demo` prints it again)."""

# The whole guide, on the first run (no earlier run in the store) and in the demo;
# printed every run it was ~20 lines of the same advice under every digest.
WHAT_TO_DO_FIRST = """\
## What to do

1. **Is it durable?** Keep only what will still be true next month. A wrong
   rule costs more than a missing one: it is loaded into every session and
   followed.
2. **Rule, skill or command?** It is a cost question. A line in CLAUDE.md /
   AGENTS.md is paid for on every turn of every session; a skill pays for its
   one-line description always and its body only when used; a slash command
   costs nothing until you type it. Short, always-true preferences are rules;
   procedures are skills; work you ask for by name is a command
   (`.claude/commands/<name>.md`, with `$ARGUMENTS`).
3. **Which file?** User-scope rules go to `~/.claude/CLAUDE.md`; project rules
   to the project's `CLAUDE.md` (or `AGENTS.md` for Codex, or
   `.claude/rules/<topic>.md` to keep the main file short).
4. **Restated items:** the rule exists; said again since it was in place (the
   item says), it is not working. Rewrite that line (more specific, with the
   reason) instead of adding a second one.
5. **Has-skill items:** sharpen the skill's description rather than adding a
   rule.
6. Prefer one line per rule, delete rules that only restate default behaviour,
   and watch the size of the file: everything in it is read on every turn.

To write the accepted rules: `learn apply` shows each change as a diff and
writes only what you confirm (`learn apply --only KEY`, `--edit` to reword);
`learn decline KEY` holds one back until it is said in twice as many sessions.
Until you decide, a proposal stays pending: later runs keep it, and `learn digest` shows it again. If nothing here
is worth writing, change nothing. (Later digests shorten this to a few lines;
`learn demo` prints this guide again.)"""

DEMO_NEXT = """## Next

This was the demo's own home (a copy in learn's data dir, not your files).
`learn demo --apply` writes these proposals into the demo's projects and shows
each diff. On your own sessions: `learn run`, then `learn apply`."""


def pending_lines(result: RunResult) -> list[str]:
    """Proposals of earlier runs still waiting for a decision (not repeated above)."""
    pending = [x for x in result.extra.get("pending") or () if isinstance(x, dict)]
    if not pending:
        return []
    out = ["", f"## Still pending ({len(pending)}, from earlier runs)", "",
           "Not said again since they were shown, and not decided yet: `learn apply` writes "
           "them, `learn decline KEY` drops one, `learn digest` shows them in full.", ""]
    for x in pending[:PENDING_LISTED]:
        out.append(f"- {code_span(str(x.get('key')))} — {flatten(str(x.get('rule') or ''), RULE_CHARS)}")
    if len(pending) > PENDING_LISTED:
        out.append(f"- and {len(pending) - PENDING_LISTED} more (`learn digest`)")
    return out


PENDING_LISTED = 10


# What makes a Markdown viewer fetch on its own when it shows the digest (VS Code's
# preview, a forge, a notes app): an image, and the HTML tags that load a source. A quote
# is what the person typed and a label or summary what a model wrote from it, so either
# can hold `![](https://host/?q=...)`: shown in a preview, the request left the machine
# with whatever its address carried. Links stay (a click is the person's own).
_FETCHES = re.compile(
    r"!(?=\[)|<(?=/?(?:img|image|video|audio|source|track|picture|svg|iframe|frame|embed"
    r"|object|link|style|script|input|base|meta)\b)", re.IGNORECASE)


# An HTML comment, in a quote or a rule's words: a rendered preview hides what is inside
# it while the model reading /learn still reads it (`<!-- learn directive:other, 5
# sessions -->` in a quote passed as it was typed). Both ends are escaped, so none opens.
_COMMENT_ENDS = re.compile(r"<!--|-->")


def inert(markdown: str) -> str:
    """`markdown` with every image, fetching tag and HTML comment escaped, shown as typed
    (`!\\[`, `\\<img`, `\\<!--`, `--\\>`): the digest's one way into a viewer's network,
    and nothing a preview hides from the person while the model reads it."""
    markdown = _COMMENT_ENDS.sub(lambda m: "\\<!--" if m.group(0) == "<!--" else "--\\>", markdown)
    return _FETCHES.sub(lambda m: "!\\" if m.group(0) == "!" else "\\<", markdown)


def render_digest_markdown(result: RunResult) -> str:
    """The digest as Markdown: no fetching markup (`inert`), and no character that shows as
    nothing or acts (learn.visible): it is printed to a terminal and read by Claude
    Code's model (/learn), and it quotes what was pasted into a prompt (a coloured
    terminal's ESC sequences) and what a teammate shared (learn.reduce.team)."""
    return visible(inert(_digest_markdown(result)))


def _digest_markdown(result: RunResult) -> str:
    lines = header_lines(result)
    proposed = [p for p in result.proposals if is_proposed(p)]
    declined = [p for p in result.proposals if not is_proposed(p)]
    if not proposed:
        lines.append("")
        lines.append(empty_reason(result))
        if declined:
            lines.extend(["", *_declined_lines(declined)])
        lines.extend(outcome_lines(result))
        lines.extend(pending_lines(result))
        lines.extend(command_lines(result))
        lines.extend(failed_lines(result))
        return "\n".join(lines) + "\n"
    from learn.report.agent_targets import AgentsInUse

    # Where apply writes each command and deny depends on the agents in use: learn's
    # sessions read once for the whole digest, not once per proposal.
    agents = AgentsInUse()
    for kind, title in SECTIONS:
        items = [p for p in proposed if p.kind == kind]
        if not items:
            continue
        lines.extend(["", f"## {title}", ""])
        for p in items:
            lines.extend(item_lines(p, result, agents))
    if declined:
        lines.extend(["", *_declined_lines(declined)])
    lines.extend(outcome_lines(result))
    lines.extend(pending_lines(result))
    lines.extend(command_lines(result))
    lines.extend(failed_lines(result))
    first = bool(result.extra.get("guide") or result.extra.get("demo"))
    lines.extend(["", WHAT_TO_DO_FIRST if first else WHAT_TO_DO])
    if result.extra.get("demo"):
        lines.extend(["", DEMO_NEXT])
    return "\n".join(lines) + "\n"


def command_lines(result: RunResult) -> list[str]:
    """Long prompts the person pasted by hand into many sessions: each said once."""
    found = [s for s in result.extra.get("make_command") or () if isinstance(s, dict)]
    if not found:
        return []
    out = ["", "## Make these commands", "",
           "You pasted these prompts by hand into several sessions. Saved as a slash command "
           "(`.claude/commands/<name>.md`) or a Codex skill (`~/.agents/skills/<name>/"
           "SKILL.md`, called with `$<name>`) they are one word to type, and learn reads them "
           "as templates, not as things you said.", ""]
    for s in found:
        out.append(f"- \"{flatten(str(s.get('excerpt', '')), 200)}\" "
                   f"({plural(int(s.get('sessions', 0)), 'session')})")
    return out


def _declined_lines(items: Iterable[Proposal]) -> list[str]:
    out = ["## Repeated, but judged not worth a rule", ""]
    for p in items:
        reason = p.verdict.rationale if p.verdict and p.verdict.rationale else "no reason given"
        out.append(f"- **{p.label}** ({p.kind}, {plural(p.sessions, 'session')}) — "
                   f"{flatten(reason, 200)}")
    return out


def failed_lines(result: RunResult) -> list[str]:
    """"What failed", with or without proposals: the header's "see What failed below"
    pointed at nothing when a failed run proposed nothing new, and /learn's model (which
    sees only stdout) could not say what failed."""
    if not result.failures:
        return []
    return ["", "## What failed", "", *(f"- {flatten(f, 300)}" for f in result.failures)]


def empty_reason(result: RunResult) -> str:
    f = result.funnel
    pending = len([x for x in result.extra.get("pending") or () if isinstance(x, dict)])
    if result.extra.get("view") == "all":  # it was asked for: no sending them to it
        return "No proposal stored yet for these projects: `learn run` makes them."
    if result.extra.get("view") == "pending":
        return ("Nothing pending here: every proposal was applied or declined, or none was "
                "made yet. `learn digest --all` shows every state, `learn run` looks again.")
    if pending:
        return (f"No new proposals this run; {plural(pending, 'proposal')} from earlier runs "
                f"{'is' if pending == 1 else 'are'} still pending (below). `learn apply` writes "
                "them, `learn decline KEY` drops one.")
    if f.held_back:
        return (f"Nothing new since last time: {plural(f.held_back, 'item')} already shown "
                "and not said again since, or declined. `learn digest --all` shows every "
                "proposal and its state.")
    if result.usage.sessions_seen == 0:
        skipped = result.extra.get("skipped") or {}
        why = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(skipped.items()) if n)
        hint = " Try `--all-projects` or a longer `--since`." if skipped.get("other_project") or skipped.get("too_old") else ""
        return ("No sessions were read, so there is nothing to count"
                + (f" (left out: {why})." if why else ".")
                + hint + " `learn sessions` lists what learn can see.")
    # The config file learn reads here (LEARN_CONFIG_DIR, the platform's config dir), not
    # the Linux default: the digest named ~/.config/learn/config.toml whatever was set.
    from learn.config import config_path

    return ("Nothing was repeated often enough to propose. "
            f"{funnel_sentence(f)} Directives and fixes need at least 2 distinct sessions, "
            f"requests at least 3 ([thresholds] in {code_span(str(config_path()))} changes that).")


def render_digest_json(result: RunResult) -> str:
    return inert_json(json.dumps(result.to_json(), indent=2, ensure_ascii=False)) + "\n"
