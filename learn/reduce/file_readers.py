"""One file, several names: the agents that read an instruction file by any name it has.

A project used with several agents keeps one file for all of them by linking the names
(`CLAUDE.md -> AGENTS.md`, the reverse, `GEMINI.md` or `.github/copilot-instructions.md`
linked to `AGENTS.md`, or the user's `~/.codex/AGENTS.md -> ~/.claude/CLAUDE.md`).
`learn.reduce.agent_files.readers_of` judges a path by its name and place, and the rule
corpus keeps one name per file (the first it meets: CLAUDE.md before AGENTS.md), so a
file's other names went uncounted. Measured in the audit of 2026-12 with a real `learn
run` and `learn apply` on `CLAUDE.md -> AGENTS.md`: a rule in AGENTS.md said again to
Codex was proposed as new ("written for Claude Code in CLAUDE.md ... but you said it to
Codex, which does not read that file"); with `.github/copilot-instructions.md` beside it
Copilot got a second copy of every rule the shared file already gave it; and `learn apply
--agent codex` wrote nothing ("Codex does not read CLAUDE.md").

`file_readers` is `readers_of` over every name the agents look for that leads to the same
file: the instruction names in the folder of the name given and of the file it leads to
(and `.github/copilot-instructions.md` there), and the agents' own files in the home.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

from learn.reduce.agent_files import gemini_file_names, opencode_config_dir, readers_of
from learn.reduce.rule_places import claude_home, codex_home
from learn.transcripts.copilot.places import copilot_dir
from learn.transcripts.gemini.places import gemini_dir
from learn.transcripts.ids import AGENT_NAMES

__all__ = ["file_readers", "heard", "other_names"]

# The names an agent reads in a folder (Gemini's come from its settings, read per folder).
_FOLDER_NAMES: Final = ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md", "AGENTS.md",
                        "AGENTS.override.md", ".github/copilot-instructions.md")


def _real(path: Path) -> Path | None:
    """The file `path` leads to, made yet or not (a link to an AGENTS.md learn is about to
    make leads to it); None for a folder or a path that cannot be followed."""
    try:
        return None if path.is_dir() else path.expanduser().resolve()
    except (OSError, RuntimeError, ValueError):  # a loop, a folder not to be looked at, a NUL
        return None


def _same(name: Path, path: Path, real: Path) -> bool:
    """Whether `name` is another name of `path` (which leads to `real`): a link to it, or
    the file itself; not the same name spelled through a linked folder."""
    try:
        if name == path or not (name.is_symlink() or name.exists() or name == real):
            return False
        if name.name == path.name and not name.is_symlink() and not path.is_symlink():
            return False
    except (OSError, ValueError):  # a name too long for the disk (Gemini's settings give any)
        return False
    return _real(name) == real


def _candidates(path: Path, real: Path, home: Path) -> Iterator[Path]:
    for folder in dict.fromkeys((path.parent, real.parent)):
        if folder.name == ".github":
            folder = folder.parent  # copilot-instructions.md: its names are the checkout's
        yield from (folder / n for n in _FOLDER_NAMES)
        yield from (folder / n for n in gemini_file_names(folder, home))
    yield claude_home(home) / "CLAUDE.md"
    yield from (codex_home(home) / n for n in ("AGENTS.md", "AGENTS.override.md"))
    yield from (gemini_dir(home) / n for n in gemini_file_names(None, home))
    yield copilot_dir(home) / "copilot-instructions.md"
    yield opencode_config_dir(home) / "AGENTS.md"


def other_names(path: str | Path, home: Path | None = None) -> tuple[Path, ...]:
    """The other names an agent reads `path` by (links to it, or the file it links to),
    in the order met; () when it has none or is a folder."""
    p = Path(path).expanduser()
    home = home or Path.home()
    real = _real(p)
    if real is None:
        return ()
    out: dict[Path, None] = {}
    for name in _candidates(p, real, home):
        if name not in out and _same(name, p, real):
            out[name] = None
    return tuple(out)


def file_readers(path: str | Path, home: Path | None = None) -> frozenset[str]:
    """The agents that read the instruction file `path` under any of its names
    (readers_of of each); readers_of(path) for a file with one name."""
    home = home or Path.home()
    readers = readers_of(path, home)
    for name in other_names(path, home):
        readers |= readers_of(name, home)
    return readers


def heard(agents: tuple[tuple[str, int], ...], file: str, home: Path | None = None) -> bool:
    """Whether an agent a rule was said to (`agents`: a proposal's (agent, sessions))
    reads `file` by any of its names; unknown agents or file: yes. A rule said again to an
    agent that reads it is restated; one written only for other agents is missing where
    it was said (learn.reduce.coverage)."""
    readers = file_readers(file, home)
    said_to = {a for a, _ in agents if a in AGENT_NAMES}  # a team run's sessions name none
    return not readers or not said_to or bool(said_to & readers)
