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

The instruction surfaces learn writes were not all an agent reads: `--out` took
`.claude/agents/reviewer.md`, `.claude/skills/deploy/SKILL.md`, `.claude/hooks/pre.sh`,
`.mcp.json`, `.cursor/mcp.json`, `.codex/config.toml`, `.github/prompts/*.prompt.md`
and `.cursorrules` (12 of the 14 controls an audit tried). So a project's agent folders
are refused whole, in any folder above the file, and the agents' files by name. A file
`--out` replaces keeps its mode: a report the person had shared 0644 became 0600.
"""

from __future__ import annotations

import os
import stat
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
# An agent's folder in a project (or anywhere above the file, as a project's): its
# settings, hooks, agents, skills, commands, MCP servers. By folded name: on macOS and
# Windows `.Claude` is `.claude`, and a refusal on Linux costs a report one rename.
_AGENT_FOLDERS: Final[dict[str, str]] = {
    ".claude": "Claude Code", ".codex": "Codex", ".gemini": "Gemini CLI",
    ".cursor": "Cursor", ".windsurf": "Windsurf", ".kiro": "Kiro", ".opencode": "OpenCode",
    ".clinerules": "Cline", ".roo": "Roo Code", ".continue": "Continue", ".amazonq": "Amazon Q",
}
# `.github` holds CI too; only these are read by Copilot as instructions and prompts.
_COPILOT_FOLDERS: Final = frozenset({"prompts", "instructions", "agents", "chatmodes"})
# An agent's file by its name alone, wherever it is.
_AGENT_NAMES: Final[dict[str, str]] = {
    ".mcp.json": "an agent's MCP server list (.mcp.json: programs it runs)",
    ".cursorrules": "Cursor's rules file",
    ".windsurfrules": "Windsurf's rules file",
    ".clinerules": "Cline's rules file",
    "copilot-instructions.md": "GitHub Copilot's instruction file",
    "claude.md": "an agent's instruction file",
    "agents.md": "an agent's instruction file",
    "gemini.md": "an agent's instruction file",
    ".aider.conf.yml": "aider's settings file",
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
    atomic_write_text(path, text, mode=_kept_mode(path))


def _kept_mode(path: Path) -> int:
    """The permission bits of the file at `path` when it is one (a report replaced keeps
    who may read it), else 0600 (a new report quotes the person's sessions). A link at
    the name is replaced, not followed, so its target's mode is not taken either."""
    try:
        st = path.lstat()
    except OSError:
        return 0o600
    return stat.S_IMODE(st.st_mode) & 0o777 if stat.S_ISREG(st.st_mode) else 0o600


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
    # Spelled as `path` is (absolute, no `..`): LEARN_DATA_DIR=/a/../data is /data, and
    # `relative_to` of the spelling as set raised ValueError for every --out under it.
    for root in dict.fromkeys((Path(os.path.abspath(data)), Path(os.path.realpath(data)))):
        if _under(path, root) and _learns_data(_parts_below(path, root), path):
            return "learn's own data (its store, backups, checks, hook queue)"
    # A project's surfaces, with any folder above the file as the project: a CLAUDE.md
    # or a .claude/settings.json is an agent's wherever it is. In any case: on macOS
    # and Windows `claude.md` is the CLAUDE.md beside it.
    for top in path.parents:
        rel = path.relative_to(top).parts
        for s in SURFACES:
            if s.base == "project" and match_pattern(rel, s.pattern, fold=True):
                return _AGENT_FILE.get(s.kind, "an agent's controls")
    return _agent_file(path)


def _agent_file(path: Path) -> str | None:
    """What `path` is when an agent reads it as its controls: a file in an agent's folder
    (any folder above it), in `.github`'s Copilot folders, or an agent's file by name."""
    folded = [part.casefold() for part in path.parts]
    by_name = _AGENT_NAMES.get(folded[-1])
    if by_name is not None:
        return by_name
    for i, folder in enumerate(folded[:-1]):
        agent = _AGENT_FOLDERS.get(folder)
        if agent is not None:
            return (f"in {Path(*path.parts[:i + 1])}, {agent}'s folder (its settings, "
                    "hooks, agents, skills, commands)")
        if folder == ".vscode" and folded[i + 1:] == ["mcp.json"]:
            return f"in {Path(*path.parts[:i + 1])}, VS Code's MCP server list (programs it runs)"
        if folder == ".github" and i + 1 < len(folded) - 1 and folded[i + 1] in _COPILOT_FOLDERS:
            return (f"in {Path(*path.parts[:i + 2])}, a folder GitHub Copilot reads (its "
                    "prompts, instructions, agents, chat modes)")
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


def _parts_below(path: Path, root: Path) -> tuple[str, ...]:
    """The parts of `path` below `root` (`_under` holds): by count, since on a disk
    that folds case the two may be spelled differently."""
    return path.parts[len(root.parts):]


def _under(path: Path, root: Path) -> bool:
    # By key: on macOS and Windows `~/.CLAUDE/projects` is the folder `~/.claude/projects`.
    return key_within(path_key(path), path_key(root))
