"""What discovery left out, in one line: `12 in other projects, 1 unreadable`.

One wording for every command that reads sessions (`learn sessions`, `plan`, `run`,
`signals`). A new user's walkthrough found `learn run` dropping an unreadable
transcript without a word while `learn sessions` said "1 unreadable", its digest then
saying "said in 3 of your last 3 sessions"; and a Gemini CLI subagent file named a
"Codex subagent rollout" on a home with no Codex at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from learn.transcripts.files.listing import SkippedFile
from learn.transcripts.ids import AGENT_NAMES

_LABELS: Final = {
    "other_project": "in other projects",
    "too_old": "too old",
    "over_limit": "over the limit",
    "no_cwd": "without a cwd",
    "unreadable": "unreadable",
    "duplicate": "duplicates",
}


def skipped_note(skipped: Mapping[str, int], files: Iterable[SkippedFile] = ()) -> str:
    """`12 in other projects, 1 unreadable`: empty when nothing was skipped.

    `skipped` counts by reason (`Discovery.skipped`); `files` (`Discovery.skipped_files`),
    when given, name the client of each subagent file skipped."""
    labels = {**_LABELS, "subagent": _subagent_label(files)}
    return ", ".join(f"{n} {labels.get(k, k)}" for k, n in sorted(skipped.items()) if n)


def _subagent_label(files: Iterable[SkippedFile]) -> str:
    """`Codex subagent rollouts`, `Gemini CLI subagent files`, or `subagent files` when
    the clients are not known: each client's word for them, never one client's for all."""
    clients = sorted({f.provider for f in files if f.reason == "subagent" and f.provider})
    if clients == ["codex"]:
        kind = "Codex subagent rollouts"
    else:
        names = " and ".join(AGENT_NAMES.get(c, c) for c in clients)
        kind = f"{names} subagent files" if names else "subagent files"
    return f"{kind} (attached to their session)"
