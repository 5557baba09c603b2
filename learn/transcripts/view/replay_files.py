"""The slash-command templates on disk that `replay` fingerprints, and a cache per project.

Claude Code's user and project commands and skills (`~/.claude/commands`,
`<project>/.claude/commands`, `skills/*/SKILL.md`, plugins), Codex's prompts
(`$CODEX_HOME/prompts`), and OpenCode's commands: `command/` and `commands/`
`**/*.md` in its config folders, and `command.<name>.template` in `opencode.json(c)`.
OpenCode writes a command's expanded body as one plain text part of the person's
message, nothing naming the command (1.18.33, driven for real): without its template
on disk the whole body read as typed. Unreadable or oversized files are skipped.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from learn.transcripts.view.replay import Fingerprints, replay_fingerprints
from learn.windows_names import not_opened

# Templates are small; anything past this is not a command body (or is a file
# we should not read whole just to build fingerprints).
_MAX_TEMPLATE_BYTES: Final = 1 << 20

# Directories that can sit under ~/.claude/plugins (marketplace clones) and
# never hold command templates; pruned so the walk stays cheap.
_PRUNE_DIRS: Final = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv"})


def claude_config_dir() -> Path:
    value = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else Path.home() / ".claude"


def codex_home() -> Path:
    value = os.environ.get("CODEX_HOME")
    return Path(value).expanduser() if value else Path.home() / ".codex"


# OpenCode's config files that can hold `command.<name>.template` (read for those
# strings only, never whole: `read_templates`).
_OPENCODE_CONFIGS: Final = ("opencode.json", "opencode.jsonc")
_OPENCODE_GLOBAL_CONFIGS: Final = (*_OPENCODE_CONFIGS, "config.json")


def opencode_config_dirs() -> list[Path]:
    """OpenCode's user-scope folders: `$XDG_CONFIG_HOME/opencode` (default
    ~/.config/opencode), `$OPENCODE_CONFIG_DIR`, and ~/.opencode."""
    value = os.environ.get("XDG_CONFIG_HOME")
    base = Path(value).expanduser() if value else Path.home() / ".config"
    dirs = [base / "opencode"]
    extra = os.environ.get("OPENCODE_CONFIG_DIR")
    if extra:
        dirs.append(Path(extra).expanduser())
    dirs.append(Path.home() / ".opencode")
    return dirs


def user_template_paths() -> list[Path]:
    """User scope (CLAUDE_CONFIG_DIR or ~/.claude), installed plugins at any depth
    (their cache layout has changed between releases), Codex prompts, plans, and
    OpenCode's commands (`opencode_config_dirs`, and the file `$OPENCODE_CONFIG`)."""
    claude = claude_config_dir()
    found = _commands_and_skills(claude)
    found += _plugin_templates(claude / "plugins")
    found += sorted(_glob(codex_home() / "prompts", "*.md"))
    # Plans the assistant wrote in plan mode: handed back as "Implement the
    # following plan:" they are its words, and an amended plan is matched
    # paragraph by paragraph so only the person's amendment is kept.
    found += sorted(_glob(claude / "plans", "*.md"))
    for base in opencode_config_dirs():
        found += _opencode_commands(base, _OPENCODE_GLOBAL_CONFIGS)
    config = os.environ.get("OPENCODE_CONFIG")
    if config and Path(config).expanduser().is_file():
        found.append(Path(config).expanduser())
    return _dedupe(found)


def project_template_paths(project: Path) -> list[Path]:
    """`.claude/commands` and `.claude/skills` in the project and its ancestors
    (Claude Code reads `.claude/` up the tree), stopping below HOME; and the
    prompt bodies spec tools install into a project: Codex prompts kept in the
    project (`.codex/prompts`, used with CODEX_HOME pointed there) and the
    command templates they are generated from (`.specify/templates/commands`).
    OpenCode's project commands: `.opencode/command(s)/**/*.md` and the templates
    in `opencode.json(c)` beside the project or in its `.opencode`. None for a folder
    on a network share (learn.windows_names.not_opened: looking there asks its server,
    with the person's login), whoever asks."""
    if not_opened(str(project)) is not None:
        return []
    found: list[Path] = []
    for base in _ancestors(project):
        found += _commands_and_skills(base / ".claude")
        found += sorted(_glob(base / ".codex" / "prompts", "*.md"))
        found += sorted(_glob(base / ".specify" / "templates" / "commands", "*.md"))
        found += _opencode_commands(base / ".opencode", _OPENCODE_CONFIGS)
        found += [base / n for n in _OPENCODE_CONFIGS if (base / n).is_file()]
    return _dedupe(found)


def template_paths(project: Path | None) -> list[Path]:
    """Every command / skill / prompt template file in force, deduplicated by realpath."""
    found = user_template_paths()
    if project is not None:
        found += project_template_paths(project)
    return _dedupe(found)


def read_templates(paths: Iterable[Path]) -> list[str]:
    """The text of each template; unreadable or oversized files are skipped. An
    OpenCode config file (`*.json`, `*.jsonc`) gives its `command.<name>.template`
    strings, or nothing when it does not parse."""
    out: list[str] = []
    for path in paths:
        try:
            if path.stat().st_size > _MAX_TEMPLATE_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if path.suffix in (".json", ".jsonc"):
            out += config_command_templates(text)
        else:
            out.append(text)
    return out


def config_command_templates(text: str) -> list[str]:
    """The `command.<name>.template` strings of an OpenCode config (JSON or JSONC:
    comments and trailing commas allowed); [] when it does not parse."""
    try:
        config: Any = json.loads(_plain_json(text))
    except ValueError:
        return []
    commands = config.get("command") if isinstance(config, dict) else None
    if not isinstance(commands, dict):
        return []
    return [c["template"] for _, c in sorted(commands.items())
            if isinstance(c, dict) and isinstance(c.get("template"), str) and c["template"].strip()]


# JSONC's extras, outside strings: `//` and `/* */` comments, then a comma before `}` or `]`.
_JSONC_COMMENT_RE: Final = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
_JSONC_COMMA_RE: Final = re.compile(r'("(?:\\.|[^"\\])*")|,(?=\s*[}\]])')


def _plain_json(text: str) -> str:
    text = _JSONC_COMMENT_RE.sub(lambda m: m.group(1) or "", text.lstrip("\ufeff"))
    return _JSONC_COMMA_RE.sub(lambda m: m.group(1) or "", text)


def load_templates(project: Path | None) -> list[str]:
    """The text of every template `template_paths` finds."""
    return read_templates(template_paths(project))


class FingerprintCache:
    """Fingerprints per project, with the user-scope part read once.

    A run over many projects would otherwise walk ~/.claude/plugins once per
    project, and the plugin tree is the largest part.
    """

    def __init__(self) -> None:
        self._user: Fingerprints | None = None
        self._by_project: dict[str | None, Fingerprints] = {}

    def for_project(self, project: str | None) -> Fingerprints:
        if project in self._by_project:
            return self._by_project[project]
        if self._user is None:
            self._user = replay_fingerprints(read_templates(user_template_paths()))
        prints = Fingerprints(self._user)
        prints.scaffold = self._user.scaffold
        if project:
            known = set(prints)
            extra = replay_fingerprints(read_templates(project_template_paths(Path(project))))
            prints += [fp for fp in extra if fp not in known]
            prints.scaffold = tuple(
                sorted(dict.fromkeys(prints.scaffold + extra.scaffold), key=len, reverse=True)
            )
        self._by_project[project] = prints
        return prints


def _dedupe(paths: Iterable[Path]) -> list[Path]:
    seen: set[str] = set()
    unique: list[Path] = []
    for path in paths:
        try:
            key = os.path.realpath(path)
        except OSError:
            continue
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def _ancestors(project: Path) -> Iterator[Path]:
    # Stop at HOME: its .claude is the user scope, already read (and it is the
    # CLAUDE_CONFIG_DIR default, which must not be read twice as a "project").
    # A folder on a share is never resolved (learn.windows_names.not_opened).
    if not_opened(str(project)) is not None:
        return
    home = Path.home().resolve()
    try:
        current = project.expanduser().resolve()
    except OSError:
        return
    while True:
        if current == home:
            return
        yield current
        if current.parent == current:
            return
        current = current.parent


def _commands_and_skills(base: Path) -> list[Path]:
    return sorted(_glob(base / "commands", "**/*.md")) + sorted(_glob(base / "skills", "*/SKILL.md"))


def _opencode_commands(base: Path, configs: Iterable[str]) -> list[Path]:
    """OpenCode's `{command,commands}/**/*.md` under `base`, and its config files there."""
    found = sorted(_glob(base / "command", "**/*.md")) + sorted(_glob(base / "commands", "**/*.md"))
    return found + [base / n for n in configs if (base / n).is_file()]


def _glob(base: Path, pattern: str) -> Iterator[Path]:
    if not base.is_dir():
        return
    try:
        for path in base.glob(pattern):
            if not path.name.startswith("._") and path.is_file():
                yield path
    except OSError:
        return


def _plugin_templates(root: Path) -> list[Path]:
    """`**/commands/**/*.md` and `**/skills/*/SKILL.md` under the plugins dir."""
    out: list[Path] = []
    if not root.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda _err: None):
        dirnames[:] = sorted(d for d in dirnames if d not in _PRUNE_DIRS)
        here = Path(dirpath)
        parts = here.relative_to(root).parts
        for name in sorted(filenames):
            if name.startswith("._") or not name.endswith(".md"):
                continue
            if "commands" in parts or (
                name == "SKILL.md" and len(parts) >= 2 and parts[-2] == "skills"
            ):
                out.append(here / name)
    return out
