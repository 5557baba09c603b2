"""Keeping instruction files healthy: each target's size budget, said in the apply
preview, and the rules learn wrote that are offered for pruning when a file is over it.

Budgets: Claude Code's guidance is ~200 lines per CLAUDE.md (everything in it is
read on every turn; auto-memory stops loading MEMORY.md at 200 lines / 25 KB);
Codex stops reading the AGENTS.md chain at `project_doc_max_bytes`, 32 KiB by
default, so whatever is past it is silently not read.

Pruning: a rule learn wrote (its `<!-- learn KEY, N sessions, last DATE -->`
marker) whose correction has not been said for PRUNE_AFTER_DAYS, in a file over
its budget, is offered for removal with its last date: a rule that holds that
long is either learnt by habit or no longer relevant, and the file's room is
better spent on what is still being said. Never removed without `--prune KEY`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from learn.report.edits import split_lines

CLAUDE_MD_LINES = 200
CODEX_PROJECT_DOC_BYTES = 32 * 1024
PRUNE_AFTER_DAYS = 90

_MARK = re.compile(r"<!-- learn (?P<key>[a-z]+:[\w.-]+)(?:, (?P<prov>[^>]*?))? -->")
_LAST = re.compile(r"last (\d{4}-\d{2}-\d{2})")


def is_codex_doc(path: Path) -> bool:
    return path.name in ("AGENTS.md", "AGENTS.override.md")


def _codex_cut(path: Path, text: str, home: Path | None) -> tuple[int, int, str | None]:
    """(chain bytes through `text`, Codex's limit from its config.toml, why the end of
    `text` is past it or None)."""
    from learn.reduce.rule_target import agents_cut, chain_bytes_above, codex_doc_limit

    home = home or Path.home()
    n_bytes = len(text.encode("utf-8"))
    # A nested AGENTS.md measured alone read "0.3 KiB of 32" under a 32 KB root file.
    return (chain_bytes_above(path) + n_bytes, codex_doc_limit(home),
            agents_cut(path, n_bytes, home))


def budget_line(path: Path, text: str, *, max_lines: int, max_bytes: int,
                home: Path | None = None) -> str:
    """The preview's one line on size: what the file will be, against its budget. For
    Codex, the whole AGENTS.md chain up to this file's end against `project_doc_max_bytes`
    (config.toml's, else 32 KiB)."""
    n_lines, n_bytes = len(text.splitlines()), len(text.encode("utf-8"))
    if is_codex_doc(path):
        total, limit, cut = _codex_cut(path, text, home)
        above = total - n_bytes
        chained = f" (with {above / 1024:.1f} KiB of AGENTS files above it)" if above else ""
        past = f"; past it: {cut}, so the end of this file is not read" if cut else \
            " (past it, Codex stops reading)"
        return (f"{path.name}: {total / 1024:.1f} KiB{chained} of Codex's {limit / 1024:g} KiB "
                f"project-doc limit for the whole AGENTS.md chain{past}; {n_lines} lines")
    return f"{path.name}: {n_lines} of ~{max_lines} lines, {n_bytes:,} of {max_bytes:,} bytes"


def over_budget(path: Path, text: str, *, max_lines: int, max_bytes: int,
                home: Path | None = None) -> bool:
    n_lines, n_bytes = len(text.splitlines()), len(text.encode("utf-8"))
    if is_codex_doc(path):
        return _codex_cut(path, text, home)[2] is not None
    return n_lines > max_lines or n_bytes > max_bytes


@dataclass(frozen=True, slots=True)
class Stale:
    key: str
    line: str
    last: str  # YYYY-MM-DD


def stale_rules(text: str, *, last_said: dict[str, str] | None = None,
                now: datetime | None = None, days: int = PRUNE_AFTER_DAYS) -> list[Stale]:
    """Rules learn wrote in `text` whose correction was last said more than `days` ago:
    the date is the newest of the marker's and `last_said[key]` (later runs)."""
    cut = (now or datetime.now(UTC)) - timedelta(days=days)
    out: list[Stale] = []
    for line in text.splitlines():
        m = _MARK.search(line)
        if not m:
            continue
        dates = [d for d in (_LAST.search(m.group("prov") or ""),) if d]
        last = dates[0].group(1) if dates else None
        later = (last_said or {}).get(m.group("key"))
        if later and (last is None or later[:10] > last):
            last = later[:10]
        if last is None:
            continue
        when = datetime.fromisoformat(last).replace(tzinfo=UTC)
        if when < cut:
            out.append(Stale(m.group("key"), line.strip(), last))
    return out


def without_rules(text: str, keys: set[str]) -> str:
    """`text` without the lines of learn's rules `keys` (the rest byte for byte: each kept
    line with its own ending, learn.report.edits.split_lines)."""
    return "".join(line for line in split_lines(text)
                   if not ((m := _MARK.search(line)) and m.group("key") in keys))
