"""The /learn command file learn installs for Claude Code, and the texts it shipped before.

`learn install-claude-command` writes `claude_command.md` (beside this module) as
`commands/learn.md`; `learn doctor` says when the installed copy is an earlier learn's.
An earlier copy runs `learn run` without `--exit-zero`, and Claude Code 2.1.332 drops a
whole slash command whose `!` line exits non-zero: when one stage of the run failed, the
digest and the words typed after /learn were lost (audit of the real clients, 2026-12).

The other way round, a command file newer than the learn it runs (the plugin updated from a
newer checkout, a project's copy from a teammate's newer learn), its `--exit-zero` was
click's "No such option" and nothing else: the line now asks learn first and falls back,
and the file says which revision it is (`learn-command-version` in its frontmatter), so
`learn doctor` can tell a later learn's copy from the person's own command.
"""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from pathlib import Path
from typing import Final

# sha256 of every claude_command.md learn shipped before this one (git log -- the file).
EARLIER_TEXTS: Final = frozenset({
    "fd067576a18c73c3a31d227b82421607a778d5e27f6fd398d91eb7cf8c8c7090",  # before --exit-zero
    "e9b5f703656c75656284b92bdd68ef3b8a305ee892a8b784299124b696df02a2",
    "e762e10de79e6656ba476a98764a1aa101a583e5138f0a591affc8f494031efc",
    "e3fc98215d81aeadc82abc8d529c3d4edcaa6e9de5a9e54254e97770c0e0613e",
    "ea11020ae434a56962c70ea00874beb8f9ca7969c8d34853b70442560cf929da",
    "7dcdf64bac1ef71655df04ed566d977de54255a3bc739680e7df6694bbce1728",  # before the fallback
})

# `learn-command-version: N` in the frontmatter: raised with every text shipped from the
# one that carries it (7: the seventh text) on. A file without one is older, or not learn's.
_REVISION = re.compile(rb"\Alearn-command-version: *(\d{1,6}) *\Z")


def command_text() -> str:
    """The command file this learn installs."""
    return resources.files("learn.report").joinpath("claude_command.md").read_text("utf-8")


def is_earlier(data: bytes) -> bool:
    """Whether `data` is a command file an earlier learn installed, unchanged since."""
    return hashlib.sha256(data).hexdigest() in EARLIER_TEXTS


def revision(data: bytes) -> int | None:
    """The revision a command file says it is, from its frontmatter; None when it says none."""
    lines = data.replace(b"\r\n", b"\n").split(b"\n")
    if lines[0] != b"---":
        return None
    for line in lines[1:]:
        if line == b"---":  # the body is the prompt: a marker quoted there is not the file's
            return None
        m = _REVISION.match(line)
        if m:
            return int(m.group(1))
    return None


def own_revision() -> int:
    """The revision of the command file this learn installs."""
    found = revision(command_text().encode("utf-8"))
    if found is None:  # a packaging mistake: the tests pin the marker
        raise RuntimeError("claude_command.md has no learn-command-version")
    return found


def is_later(data: bytes) -> bool:
    """Whether `data` is the command file of a later learn than this one: its line runs
    flags this learn may not know (it falls back, and says to update learn, every time)."""
    found = revision(data)
    return found is not None and found > own_revision()


def installed_copies(claude_home: Path, project: Path | None) -> list[Path]:
    """Where an installed /learn can be: the person's own commands, and the project's."""
    places = [claude_home / "commands" / "learn.md"]
    if project is not None:
        places.append(project / ".claude" / "commands" / "learn.md")
    return places


def plugin_copies(claude_home: Path) -> list[Path]:
    """The /learn:learn of each learn plugin Claude Code installed and has not disabled
    (plugins/installed_plugins.json, settings.json's enabledPlugins): the copy most likely
    to be newer than learn, since the plugin updates from a checkout and learn does not."""
    installed = _json(claude_home / "plugins" / "installed_plugins.json")
    plugins = installed.get("plugins") if isinstance(installed, dict) else None
    settings = _json(claude_home / "settings.json")
    enabled = settings.get("enabledPlugins") if isinstance(settings, dict) else None
    out: list[Path] = []
    for name, entries in (plugins.items() if isinstance(plugins, dict) else ()):
        if str(name).partition("@")[0] != "learn" or not isinstance(entries, list):
            continue
        if isinstance(enabled, dict) and enabled.get(name) is False:
            continue
        for entry in entries:
            where = entry.get("installPath") if isinstance(entry, dict) else None
            if isinstance(where, str):
                out.append(Path(where) / "commands" / "learn.md")
    return out


def _json(path: Path) -> object:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):  # none, unreadable, not JSON, too deep
        return None
