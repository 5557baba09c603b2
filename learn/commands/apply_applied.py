"""`learn apply --only KEY` for a proposal already applied: said so, nothing written.

`--only` names a proposal in any state (learn.commands.apply._select), and an applied
one was planned again like any other. With nothing else pending in the project the
person read "not a proposal of <project>: KEY; learn reads no session of <project>"
(exit 2) about the key they had just applied; with other proposals pending, "already
in CLAUDE.md, not added again" and exit 0, with no word of when or how to take it
back (reproduced 2026-12 on a store holding one applied rule).

An applied proposal whose rule is still in a file learn wrote it to is said in one
line (where, when, and how to see, remove or undo it) and left out of the apply: no
diff, no write. It is the command's "nothing to do" (exit 0), as `nothing to apply`
is. One the store calls applied but no file holds any more (pruned, or deleted by
hand) is planned as today: the person named it, and the diff is shown first. So is
one asked for with a place named (`--agent gemini`, `--file`, `--target`, `--scope`):
written where that file lacks it, "already in" where it holds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import click

from learn.isotime import parse_iso
from learn.records.proposal import Proposal
from learn.store.proposals import AppliedRule

# The decided states that mean "written" (learn.store.proposals_ddl.State).
_APPLIED = ("applied", "edited")
# Forms whose file holds no learn marker for the rule (a settings deny rule, a Codex
# rules line, a check's data): present is all learn can tell of them.
_UNMARKED = ("permission", "codex-rule", "check")
# An instruction file is a few KB; the marker is looked for in at most this much.
_READ_MAX = 4 * 1024 * 1024


def still_to_apply(only: tuple[str, ...], pool: Sequence[Proposal],
                   states: Mapping[str, str], here: str) -> tuple[str, ...]:
    """The keys of `only` (a key or a bare label, as `--only` takes them) to plan: one
    naming a proposal applied in `here` whose rule is still in place is said and left
    out. A key that names no proposal is kept (the usual usage error follows)."""
    # As _select finds them: by key, else by label; the newest row of each.
    by_name = {p.label: p for p in reversed(pool)} | {p.key: p for p in reversed(pool)}
    keep: list[str] = []
    for name in only:
        p = by_name.get(name)
        if p is None or states.get(p.key) not in _APPLIED:
            keep.append(name)
            continue
        rules = _applied_rules(p.key, here)
        held = [r for r in rules if _holds(r)]
        if rules and not held:
            gone = ", ".join(sorted({r.target_file for r in rules}))
            click.echo(f"note: {p.key} was applied to {gone}, which no longer holds it: "
                       "planned again")
            keep.append(name)
            continue
        click.echo(already_applied(p.key, held))
    return tuple(keep)


def already_applied(key: str, held: Sequence[AppliedRule]) -> str:
    """The line said for `key`, applied and still in the files of `held`."""
    # One line per file: a restated rule is two records of one file (its original line
    # written, the rewrite accepted), and the file was named twice.
    latest: dict[str, str] = {}
    for r in held:
        if r.target_file not in latest or r.applied_at > latest[r.target_file]:
            latest[r.target_file] = r.applied_at
    where = "; ".join(f"in {target} {_when(at)}" for target, at in latest.items()) \
        or "(learn has no record of the file)"
    return (f"already applied: {key}, {where}; nothing written (`learn digest --all` "
            f"shows it, `learn apply --prune {key}` removes it, `learn apply --undo` puts "
            "back the last apply; --agent or --file writes it to another file too)")


def _when(at: str) -> str:
    parsed = parse_iso(at)
    return f"on {parsed.strftime('%Y-%m-%d %H:%M')} UTC" if parsed is not None \
        else f"on {at}" if at else ""


def _applied_rules(key: str, here: str) -> list[AppliedRule]:
    """What learn wrote `key` to, from project `here`; else anywhere (a user-scope rule
    applied from another project is applied in every project)."""
    from learn.store import open_store

    with open_store() as store:
        return store.proposals.applied(key=key, project=here) \
            or store.proposals.applied(key=key)


def _holds(rule: AppliedRule) -> bool:
    """Whether the file `rule` was written to holds it still: its marker, or its words on
    a line of their own; for a file that carries no marker, that it is there."""
    from learn.report.edits import has_marker, normalize_rule

    path = Path(rule.target_file)
    try:
        if not path.is_file():
            return False
        if rule.form in _UNMARKED:
            return True
        with path.open("rb") as f:
            text = f.read(_READ_MAX).decode("utf-8", "replace")
    except OSError:
        return False
    if has_marker(text, rule.key):
        return True
    words = normalize_rule(rule.rule_text)
    return bool(words) and any(normalize_rule(line) == words for line in text.splitlines())
