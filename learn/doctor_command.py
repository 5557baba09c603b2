"""Doctor's line on the installed /learn command: is it this learn's, or an earlier one's?

Only `learn install-claude-command` replaced an earlier copy, and nothing said to run it:
a person who installed /learn before `--exit-zero` kept a command that Claude Code drops
whole whenever one stage of the run fails (learn.report.claude_command).
"""

from __future__ import annotations

from pathlib import Path

from learn.check import Check
from learn.report.claude_command import command_text, installed_copies, is_earlier


def check_claude_command(claude_home: Path, project: Path | None) -> Check | None:
    """A line when a /learn is installed (the person's or the project's); None when none is."""
    current = command_text().encode("utf-8")
    found: list[tuple[Path, bytes]] = []
    for path in installed_copies(claude_home, project):
        try:
            found.append((path, path.read_bytes()))
        except OSError:  # none there (or unreadable: Claude Code cannot read it either)
            continue
    if not found:
        return None
    earlier = [path for path, data in found if data != current and is_earlier(data)]
    if earlier:
        where = ", ".join(str(p) for p in earlier)
        are = "is an earlier learn's" if len(earlier) == 1 else "are an earlier learn's"
        return Check("/learn", "warn",
                     f"{where} {are}: when one stage of the run fails, Claude "
                     "Code drops the whole command (its `learn run` line exits non-zero)",
                     "`learn install-claude-command` updates it (add --project for a "
                     "project's copy; the old file is backed up, `learn apply --undo` puts it back)")
    own = [str(p) for p, data in found if data == current]
    if own:
        return Check("/learn", "ok", f"installed: {', '.join(own)}")
    return Check("/learn", "ok", f"{found[0][0]} is not a text learn shipped (your own command, "
                 "or a later learn's): left as it is")
