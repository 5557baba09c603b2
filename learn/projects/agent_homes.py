"""The agents' own folders (`~/.codex`, `~/.claude`, ...): never a project, nor anything in them.

Found running learn on real Codex sessions: the person started Codex in `~/.codex` to
fix its config, and learn listed `~/.codex` as a project of its own ("said in 2
projects: …/ai-hack-starter, /home/kei/.codex"). A project-scope rule said there was
planned into that "project's" AGENTS.md, which is `~/.codex/AGENTS.md`: the file Codex
loads in every project, so a rule judged to belong to one project became every
project's without the user-scope question being asked (and a CLAUDE.md was made
beside it). The same holds of `~/.claude` (its CLAUDE.md is the person's own, loaded
everywhere), `~/.gemini`, `~/.copilot`, `~/.config/opencode`; and of a repository
inside one (Claude Code clones plugin marketplaces into `~/.claude/plugins/`), which
learn would otherwise take for a project of its own.

So, as the home folder is (learn.projects.identity), such a folder is no place for a
project's files: a folder in it is that agent folder's (one key for all of it, listed
under it as the home folder's sessions are under `~`), no repository inside claims
it, and `learn apply` writes no project file there (learn.report.targets,
learn.report.confine). What was said there still counts: it is the person's words,
in no project.

Which folders: each agent's default folder in the home and the one its own variable
names instead (CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, COPILOT_HOME,
XDG_CONFIG_HOME for OpenCode), resolved as every key is; for a transcript from another
machine, those names under a home folder of any system (`/Users/bob/.codex`). A
variable naming the home folder or a folder above it names no agent folder: the whole
home would be one.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Final

from learn.projects.flavour import is_path, key_within, path_key

# Each agent's own folder in the home, where it keeps its config and reads the
# person's instructions for every project (docs/rule-files.md): Claude Code, Codex,
# Gemini CLI, Copilot CLI, OpenCode; Cursor's, Kiro's (global steering) and Windsurf's
# (global_rules.md); `~/.agents`, whose skills Codex lists in every project.
_IN_HOME: Final = (".claude", ".codex", ".gemini", ".copilot", ".config/opencode", ".cursor",
                   ".kiro", ".codeium/windsurf", ".agents")

# The same names under a home folder of any machine (a transcript's `cwd` from another).
_ELSEWHERE: Final = re.compile(
    r"^((?:/(?:home|Users|users|var/home)/[^/]+|/root|[a-z]:\\users\\[^\\]+)"
    r"[/\\](?:" + "|".join(re.escape(n).replace("/", r"[/\\]") for n in _IN_HOME) +
    r"))(?:[/\\].*)?$")


# The variables the agents read in place of their default folders, and the folder each
# names: (CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME) the folder itself, GEMINI_CLI_HOME
# a home holding `.gemini`, XDG_CONFIG_HOME the folder holding `opencode`.
_VARIABLES: Final = (("CLAUDE_CONFIG_DIR", ""), ("CODEX_HOME", ""), ("COPILOT_HOME", ""),
                     ("GEMINI_CLI_HOME", ".gemini"), ("XDG_CONFIG_HOME", "opencode"))


def agent_home_keys(home: str | None = None) -> tuple[str, ...]:
    """The keys of this machine's agent folders (`home`: the home folder, default
    the person's), longest first: a folder in two is the nearer one's."""
    values = tuple(os.environ.get(name) or None for name, _ in _VARIABLES)
    return _keys(home or os.path.expanduser("~"), values)


# Asked for every quote of every rule `learn apply` places and every root it confines
# (0.44 ms a call uncached: ten realpaths), so kept per home and variables.
@functools.lru_cache(maxsize=16)
def _keys(home: str, values: tuple[str | None, ...]) -> tuple[str, ...]:
    home_key = path_key(home)
    named = [os.path.join(os.path.expanduser(v), below) if below else os.path.expanduser(v)
             for v, (_, below) in zip(values, _VARIABLES, strict=True) if v]
    found: set[str] = set()
    for folder in [*(os.path.join(home, n) for n in _IN_HOME), *named]:
        if not is_path(folder):
            continue  # a relative variable names no folder
        key = path_key(folder)
        if not key_within(home_key, key):  # the home or above: not one agent's folder
            found.add(key)
    return tuple(sorted(found, key=lambda k: (-len(k), k)))


def agent_home_in(key: str, homes: tuple[str, ...]) -> str | None:
    """The agent folder the folder `key` is or lies in (its key), of `homes`
    (`agent_home_keys`) or by name under any machine's home folder; None: none."""
    for home in homes:
        if key_within(key, home):
            return home
    m = _ELSEWHERE.match(key)
    return m.group(1) if m else None


def agent_home(path: str | os.PathLike[str]) -> str | None:
    """The agent's own folder `path` is or lies in (`~/.codex`, as its key), None when
    it is in none: a folder that is no project."""
    text = os.fspath(path)
    if not is_path(text):
        return None
    return agent_home_in(path_key(text), agent_home_keys())
