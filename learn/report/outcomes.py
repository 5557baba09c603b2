"""Did the rule work: the digest section and the report's cards, one per rule in place.

Read from the run's `extra["outcomes"]` (learn.reduce.outcomes.RuleOutcome.to_json),
so `learn digest` and `learn report` re-render a stored run without a model call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from learn.records.proposal import Proposal, RunResult
from learn.reduce.outcomes import MIN_SESSIONS_SINCE, VERDICT_WORDS, RuleOutcome, outcome_from_json
from learn.reduce.rates import CHANGE_WORDS, change, rate_words
from learn.report.words import day, flatten, plural

QUOTES_SHOWN = 3


def outcomes_of(result: RunResult) -> list[RuleOutcome]:
    """The rules in place of the project the result is shown for (`extra["project"]`,
    set by learn.report.runs.load_proposals, which scopes them; every project when None)."""
    here = shown_here(result)
    return [o for o in (outcome_from_json(x) for x in result.extra.get("outcomes") or ()
                        if isinstance(x, dict)) if here(o.project)]


def outcome_of(result: RunResult, key: str) -> RuleOutcome | None:
    """The measured outcome of the rule in place under `key`: `learn apply` and
    learn.reduce.in_place.record_written both record a rule under its proposal's key."""
    return next((o for o in outcomes_of(result) if o.key == key), None)


def said_again(o: RuleOutcome) -> bool:
    """Whether the person said the rule again in a session that started after it was in
    place and loaded it: the one test of "that rule is not working", under a proposal
    and in "Did the rules work?" alike.

    learn.reduce.outcomes.rule_outcomes splits the sessions at the rule's date (`learn
    apply`'s write; for a line the person wrote, the commit that added it, else the run
    that first found it). The proposal's line once judged it from coverage alone: a
    CLAUDE.md line outside git, first found after every quote, was "not working" while
    the section below it said "0 sessions since"."""
    return o.said_since > 0


# The states in which `learn apply` writes nothing more for a proposal: an applied rule
# still in its file is said and left (learn.commands.apply_applied), and plain `learn
# apply` answers "nothing to apply".
APPLIED_STATES = ("applied", "edited")


def applied_here(result: RunResult, key: str) -> bool:
    """Whether the proposal `key`, shown by `result`, is applied or edited (the run's
    `extra["states"]`, which holds the decided proposals it shows)."""
    return (result.extra.get("states") or {}).get(key) in APPLIED_STATES


def in_place_line(p: Proposal, result: RunResult) -> str | None:
    """The digest's line under proposal `p` about its rule already in place, as the rule's
    outcome measured it (`said_again`); None when no outcome was measured for it (the
    proposal's own line, learn.report.proposal_lines, stands).

    Said for a rule coverage found written (restated) and for one `learn apply` wrote: a
    rule applied and said again was shown with "rewrite it rather than adding another"
    while `learn apply` answered "nothing to apply"."""
    o = outcome_of(result, p.key)
    applied = applied_here(result, p.key)
    if o is None or not (applied or p.status == "restated"):
        return None
    rule = f'"{flatten(o.rule_text, 160)}"'
    when = day(o.applied_at) or o.applied_at
    head = (f"applied to `{o.target_file}` on {when}: {rule}" if applied else
            f"already written in `{o.target_file}`: {rule} (in place since {when})")
    if said_again(o):
        return (f"{head} — said again in {o.said_since} of the "
                f"{plural(o.sessions_since, 'session')} since, so that rule is not working: "
                f"{next_step(o, applied=applied)}")
    if o.said_unloaded:
        return (f"{head} — said again since only in {plural(o.said_unloaded, 'session')} "
                "that did not load it: its place, not its words, is what fails "
                "(\"Did the rules work?\" says why, with the fix)")
    since = (f"not said again in the {plural(o.sessions_since, 'session')} that started "
             "since and loaded it" if o.sessions_since else "no session that loaded it has "
             "started since")
    return (f"{head} — {since}, and the quotes here are from sessions that started before: "
            "whether it works is not known yet (\"Did the rules work?\" follows it)")


def offered(o: RuleOutcome) -> str | None:
    """The key of the stronger surface learn proposed for `o` and the person has not
    decided yet (learn.report.escalation, learn.report.check_offer), if any."""
    for offer in (o.escalation, o.check_offer):
        if offer and offer.get("state") == "pending":
            return str(offer.get("key", ""))
    return None


def next_step(o: RuleOutcome, *, applied: bool) -> str:
    """What the person can do about a rule said again since it was in place, of what
    exists: the stronger surface learn proposed for it, else the line rewritten (`learn
    apply` writes a pending restated proposal on that line; an applied rule it does not
    write again, so that is done by hand)."""
    key = offered(o)
    if key is not None:
        return f"a stronger surface is proposed for it, `learn apply --only {key}`"
    if not applied:
        return "rewrite that line rather than adding another"
    # An escalation or check decided before is said on its own line (applied, declined).
    none = "" if o.escalation or o.check_offer else (
        ", and learn has no stronger surface for this one (a deny rule needs a command it "
        "forbids, a command needs steps to follow)")
    return (f"`learn apply` does not write an applied rule again{none}: rewrite that line in "
            f"`{o.target_file}` yourself, more specific and with the reason")


def for_project(result: RunResult) -> RunResult:
    """`result` with only the rules and checks of the project it is shown for, in every
    form it is rendered (the digest's JSON and the report's data carry `extra` whole).
    Applied where stored proposals are loaded (learn.report.runs.load_proposals)."""
    here = shown_here(result)
    extra = dict(result.extra)
    for name in ("outcomes", "checks"):
        if name in extra:
            extra[name] = [x for x in extra[name] or () if isinstance(x, dict) and here(
                x["project"] if isinstance(x.get("project"), str) else None)]
    return dataclasses.replace(result, extra=extra)


def shown_here(result: RunResult) -> Callable[[str | None], bool]:
    """Whether a rule (or check) of a project belongs in what `result` shows.

    The digest, `learn outcomes` and the report show the newest run that read the project
    asked, with that run's outcomes; a run over every project measured every project's
    rules, and `learn digest --project infra` after `learn run --all-projects` listed the
    rules of shop-api and web-app under "Did the rules work?". A rule's project is judged
    by learn.projects (its identity function, worktrees and spellings included); a rule of
    no project (the person's own, user scope) is shown everywhere."""
    asked = result.extra.get("project")
    if not isinstance(asked, str) or not asked:
        return lambda project: True
    from learn.projects import Known, key_within, project_of

    known = Known()

    def here(project: str | None) -> bool:
        return not project or key_within(project_of(project, known) or "", asked)

    return here


def verdict_sentence(o: RuleOutcome) -> str:
    if o.verdict == "never-loaded":
        why = (o.not_loaded or {}).get("reason") or "no session since loaded it"
        return (f"never loaded in {plural(o.sessions_unloaded, 'session')} since: {why}; "
                "its wording was never tested")
    loaded = " that loaded it" if o.sessions_unloaded else ""
    if o.verdict == "ignored":
        return (f"ignored: said again in {o.said_since} of the "
                f"{plural(o.sessions_since, 'session')}{loaded} since it was written; a rule "
                "the agent keeps breaking wants a stronger surface")
    if o.verdict == "holding":
        return f"holding: not said again in {plural(o.sessions_since, 'session')}{loaded} since"
    return (f"too early to tell: {plural(o.sessions_since, 'session')}{loaded} since, and "
            f"learn waits for {MIN_SESSIONS_SINCE} before calling a rule holding")


def rates_sentence(o: RuleOutcome) -> str:
    """Before and since as rates per loaded session, with their intervals, and what the
    two say together (small samples said so)."""
    before, since = o.rate_before, o.rate_since
    return (f"before: {rate_words(before)}; since: {rate_words(since)} — "
            f"{CHANGE_WORDS[change(since, before)]}")


def loading_sentence(o: RuleOutcome) -> str | None:
    """How learn knows it loaded, and where it did not (when not the verdict itself)."""
    how = dict(o.loaded_how)
    parts = []
    if how.get("recorded"):
        parts.append(f"recorded loaded in {plural(how['recorded'], 'session')}")
    if how.get("inferred"):
        parts.append(f"inferred loaded in {plural(how['inferred'], 'session')}")
    if o.sessions_unloaded and o.verdict != "never-loaded":
        why = (o.not_loaded or {}).get("reason") or "not loaded"
        parts.append(f"not loaded in {plural(o.sessions_unloaded, 'session')} ({why})")
    return "; ".join(parts) if parts else None


def check_sentence(c: dict[str, Any]) -> str:
    """learn's check of the rule: what it stopped, or would have stopped, and how often
    the person said the rule again since it was put in place."""
    would, would_s = int(c.get("would_have_stopped") or 0), int(c.get("would_sessions") or 0)
    stopped, stopped_s = int(c.get("stopped") or 0), int(c.get("stopped_sessions") or 0)
    since = day(c.get("installed_at")) or "its install"
    noted = (f"would have stopped the agent {plural(would, 'time')} in "
             f"{plural(would_s, 'session')}")
    if c.get("mode") == "enforce":
        out = (f"learn's check (enforced since {day(c.get('enforced_at')) or since}) stopped the "
               f"agent {plural(stopped, 'time')} in {plural(stopped_s, 'session')}"
               + (f"; record-only before, it {noted}" if would else ""))
    else:
        out = f"learn's check (record-only since {since}) {noted}"
        if would:
            out += f"; `learn check enforce {c.get('rule_id', '')}` makes it stop them"
    n, said = int(c.get("sessions_since") or 0), int(c.get("said_since") or 0)
    return out + (f"; said again in {said} of {plural(n, 'session')} since the check" if n
                  else "")


def escalation_sentence(e: dict[str, Any]) -> str:
    key, summary, state = e.get("key", ""), e.get("summary", ""), e.get("state")
    if state in ("applied", "edited"):
        return f"escalated already ({summary}; `{key}` applied)"
    if state == "declined":
        return (f"escalation `{key}` declined: offered again only if said in twice the "
                "sessions")
    return f"escalation proposed: {summary} (`learn apply --only {key}`)"


def check_offer_sentence(c: dict[str, Any]) -> str:
    key, summary, state = c.get("key", ""), c.get("summary", ""), c.get("state")
    if state in ("applied", "edited"):
        return f"learn's check applied already (`{key}`)"
    if state == "declined":
        return f"learn's check `{key}` declined: offered again only if said in twice the sessions"
    return f"learn's check proposed: {summary} (`learn apply --only {key}`)"


def kept_sentence(kept: dict[str, Any]) -> str:
    """Why the figures of a rule are not this run's own (learn.reduce.outcomes_kept)."""
    why = kept.get("why") or "its counts missed sessions"
    if kept.get("at"):
        return (f"not measured again by the latest run ({why}): the figures below are the "
                f"ones the run of {day(kept.get('at')) or kept.get('at')} measured")
    return (f"measured by the latest run although {why}: a partial measure, which misses "
            "what was said in those sessions (the next complete run measures it again)")


def where_written(o: RuleOutcome) -> str:
    when = day(o.applied_at) or o.applied_at
    if o.origin == "written":
        return f"you wrote it in `{o.target_file}` (learn first saw it {when})"
    return f"written to `{o.target_file}` on {when}"


def checks_alone(result: RunResult) -> list[dict[str, Any]]:
    """learn's checks not tied to a rule whose outcome the run shows (added by hand)."""
    shown = {o.key for o in outcomes_of(result)}
    here = shown_here(result)
    return [c for c in result.extra.get("checks") or ()
            if isinstance(c, dict) and c.get("key") not in shown
            and here(c["project"] if isinstance(c.get("project"), str) else None)]


def checks_lines(result: RunResult) -> list[str]:
    """The digest's lines for learn's checks of their own; [] when there are none."""
    alone = checks_alone(result)
    if not alone:
        return []
    out = ["", "## learn's checks", ""]
    for c in alone:
        out.append(f"- **{c.get('rule_id', '')}** ({c.get('words', '')}): {check_sentence(c)}")
    return out


def outcome_lines(result: RunResult) -> list[str]:
    """The digest's "Did the rules work?" section (and learn's checks of their own);
    [] when no rule or check is in place."""
    found = outcomes_of(result)
    if not found:
        return checks_lines(result)
    out = ["", "## Did the rules work?", "",
           "Each rule in place, against the sessions that started after it (counted like "
           "every proposal: verified quotes, distinct sessions).", ""]
    for o in found:
        out.append(f"- **{o.label}** — {VERDICT_WORDS[o.verdict]}: \"{flatten(o.rule_text, 160)}\"")
        out.append(f"  - {where_written(o)}")
        if o.kept:
            out.append(f"  - {kept_sentence(o.kept)}")
        out.append(f"  - {verdict_sentence(o)}")
        if o.not_loaded and (o.verdict == "never-loaded" or o.said_unloaded):
            out.append(f"  - fix: {o.not_loaded.get('fix')}")
        if o.verdict != "never-loaded":
            out.append(f"  - {rates_sentence(o)}")
        if (loading := loading_sentence(o)) is not None:
            out.append(f"  - loading: {loading}")
        for q in o.quotes_since[:QUOTES_SHOWN]:
            when = f" ({day(q.at)})" if q.at else ""
            out.append(f"  - said since: \"{flatten(q.text, 200)}\"{when}")
        if len(o.quotes_since) > QUOTES_SHOWN:
            out.append(f"  - and {plural(len(o.quotes_since) - QUOTES_SHOWN, 'more quote')}")
        for q in o.quotes_unloaded[:QUOTES_SHOWN]:
            when = f" ({day(q.at)})" if q.at else ""
            out.append(f"  - said where it was not loaded: \"{flatten(q.text, 200)}\"{when}")
        if o.check:
            out.append(f"  - {check_sentence(o.check)}")
        if o.escalation:
            out.append(f"  - {escalation_sentence(o.escalation)}")
        if o.check_offer:
            out.append(f"  - {check_offer_sentence(o.check_offer)}")
        if said_again(o) and offered(o) is None:  # an offer's own line says its command
            # Whether learn wrote it is the rule's origin here: the run's states hold only
            # the proposals it shows, and a rule said again is often not one of them.
            out.append(f"  - next: {next_step(o, applied=o.origin != 'written')}")
    return out + checks_lines(result)
