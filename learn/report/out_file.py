"""Where a report the person asked for may go: `--out` of `learn run`, `digest`, `report`.

The digest quotes what the person typed and what a model made of it. Written over an
agent's controls it becomes them: `learn run --out ~/.claude/settings.json` left
Claude Code a settings file of Markdown (no longer JSON, so its deny rules stopped
applying), `--out CLAUDE.md` rewrote the person's memory wholesale with model text,
and `--out` into `~/.claude/projects/` replaced a transcript. A `/learn` typed with
such an option reached it from inside Claude Code. So an `--out` file is anything but
those: no instruction, command, settings or hooks file of any agent (by name, along
any folder above it, as named and as its links lead), nothing in an agent's own
folder (its settings, hooks and transcripts live there) and none of learn's own data
(its store, backups, checks, queue: a report in its folder is fine, `learn schedule`
writes its digests there). The file is replaced in one
rename (a link at the name is replaced, never followed), 0600 when new.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from learn.paths import atomic_write_text, config_dir, data_dir
from learn.projects import key_within, path_key
from learn.report.confine import HOMES, SURFACES, match_pattern
from learn.report.errors import ConfinementError
from learn.store.target import STORE_FILENAME
from learn.transcripts.instructions import RECORD_DIR
from learn.transcripts.opencode.places import data_dir as opencode_data_dir

# What learn keeps in its data folder, by first name there: the folders and files its
# stages read back (a report written over one broke the store, a check, the queue).
_DATA: Final = frozenset({"backups", "checks", "hook", RECORD_DIR, "decisions.jsonl"})
# A report's own kinds: a file of these learn's data folder holds is a report (the
# scheduled digests, a report a person put there) and may be replaced by another.
_REPORTS: Final = frozenset({".md", ".html", ".json", ".txt"})
# What a refused file is, by its kind: the name is in the message already ("refusing to
# write to CLAUDE.md: it is CLAUDE.md (an agent's controls)" said it twice).
_AGENT_FILE: Final[dict[str, str]] = {
    "instructions": "an agent's instruction file",
    "command": "an agent's command file",
    "claude-settings": "an agent's settings file",
    "codex-rules": "an agent's rules file",
    "codex-hooks": "an agent's hooks file",
}


def out_refusal(path: Path) -> str | None:
    """Why `path` may not take a report (what it is), None when it may."""
    asked = Path(os.path.abspath(path.expanduser()))
    for spelled in dict.fromkeys((asked, Path(os.path.realpath(asked)))):
        why = _controls(spelled)
        if why is not None:
            return why
    return None


def check_out(path: Path) -> None:
    """ConfinementError when `path` may not take a report: asked before a command's work,
    so a run of minutes is not spent on a file it will refuse."""
    why = out_refusal(path)
    if why is not None:
        raise ConfinementError(f"refusing to write to {path}: it is {why}; learn writes a "
                               "report only to a file of its own (`learn apply` writes "
                               "rules). Nothing was written: name another file")


def write_out(path: Path, text: str) -> None:
    """`text` written to `path` unless that is an agent's controls or learn's data
    (ConfinementError, nothing written). Checked again here: the name may lead
    elsewhere since the command began."""
    check_out(path)
    atomic_write_text(path, text)


def _controls(path: Path) -> str | None:
    home = Path.home()
    folders: list[tuple[str, Path]] = [
        (f"in {where(home)}, an agent's own folder (its settings, hooks, transcripts)", where(home))
        for base, where in HOMES.items() if base.endswith("-home")]
    folders.append(("in OpenCode's sessions folder", opencode_data_dir()))
    folders.append(("in learn's config folder", config_dir()))
    data = data_dir()
    for what, folder in folders:
        for root in dict.fromkeys((folder, Path(os.path.realpath(folder)))):
            if _under(path, root):
                return what
    for root in dict.fromkeys((data, Path(os.path.realpath(data)))):
        if _under(path, root) and _learns_data(path.relative_to(root).parts, path):
            return "learn's own data (its store, backups, checks, hook queue)"
    # A project's surfaces, with any folder above the file as the project: a CLAUDE.md
    # or a .claude/settings.json is an agent's wherever it is. In any case: on macOS
    # and Windows `claude.md` is the CLAUDE.md beside it.
    for top in path.parents:
        rel = path.relative_to(top).parts
        for s in SURFACES:
            if s.base == "project" and match_pattern(rel, s.pattern, fold=True):
                return _AGENT_FILE.get(s.kind, "an agent's controls")
    return None


def _learns_data(rel: tuple[str, ...], path: Path) -> bool:
    """Whether the file `rel` in learn's data folder is learn's own data: in one of its
    folders, its store (and the store's journal files), a lock, or a file there of no
    report's kind."""
    if not rel:
        return True
    if rel[0] in _DATA or rel[0].startswith(STORE_FILENAME) or rel[-1].endswith(".lock"):
        return True
    return path.exists() and path.suffix.casefold() not in _REPORTS


def _under(path: Path, root: Path) -> bool:
    # By key: on macOS and Windows `~/.CLAUDE/projects` is the folder `~/.claude/projects`.
    return key_within(path_key(path), path_key(root))
