"""The /learn command file learn installs for Claude Code, and the texts it shipped before.

`learn install-claude-command` writes `claude_command.md` (beside this module) as
`commands/learn.md`; `learn doctor` says when the installed copy is an earlier learn's.
An earlier copy runs `learn run` without `--exit-zero`, and Claude Code 2.1.332 drops a
whole slash command whose `!` line exits non-zero: when one stage of the run failed, the
digest and the words typed after /learn were lost (audit of the real clients, 2026-12).
"""

from __future__ import annotations

import hashlib
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
})


def command_text() -> str:
    """The command file this learn installs."""
    return resources.files("learn.report").joinpath("claude_command.md").read_text("utf-8")


def is_earlier(data: bytes) -> bool:
    """Whether `data` is a command file an earlier learn installed, unchanged since."""
    return hashlib.sha256(data).hexdigest() in EARLIER_TEXTS


def installed_copies(claude_home: Path, project: Path | None) -> list[Path]:
    """Where an installed /learn can be: the person's own commands, and the project's."""
    places = [claude_home / "commands" / "learn.md"]
    if project is not None:
        places.append(project / ".claude" / "commands" / "learn.md")
    return places
