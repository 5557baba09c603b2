"""Doctor's line on the installed /learn command: is it this learn's, an earlier one's, or a
later one's?

Only `learn install-claude-command` replaced an earlier copy, and nothing said to run it:
a person who installed /learn before `--exit-zero` kept a command that Claude Code drops
whole whenever one stage of the run fails (learn.report.claude_command). A later learn's
copy (a newer `learn-command-version` than this learn ships; the plugin's too, which
updates from a checkout while learn does not) runs here through its fallback: without
`--exit-zero`, so a failed stage drops the command again, and with a note to update learn
on every /learn; doctor names it once, with the fix.
"""

from __future__ import annotations

from pathlib import Path

from learn.check import Check
from learn.report.claude_command import (
    command_text,
    installed_copies,
    is_earlier,
    is_later,
    own_revision,
    plugin_copies,
    revision,
)


def check_claude_command(claude_home: Path, project: Path | None) -> Check | None:
    """A line when a /learn is installed (the person's or the project's) or the learn
    plugin's is a later learn's; None otherwise."""
    current = command_text().encode("utf-8")
    found = _read(installed_copies(claude_home, project))
    # The plugin's copy is only looked at for this: it updates with the plugin, so an
    # earlier one is not the person's to fix with install-claude-command.
    later = [(path, revision(data)) for path, data in [*found, *_read(plugin_copies(claude_home))]
             if is_later(data)]
    if not found and not later:
        return None
    earlier = [path for path, data in found if data != current and is_earlier(data)]
    details: list[str] = []
    hints: list[str] = []
    if earlier:
        where = ", ".join(str(p) for p in earlier)
        are = "is an earlier learn's" if len(earlier) == 1 else "are an earlier learn's"
        details.append(f"{where} {are}: when one stage of the run fails, Claude "
                       "Code drops the whole command (its `learn run` line exits non-zero)")
        hints.append("`learn install-claude-command` updates it (add --project for a "
                     "project's copy; the old file is backed up, `learn apply --undo` puts it "
                     "back)")
    if later:
        where = ", ".join(f"{p} (revision {n})" for p, n in later)
        are = "is" if len(later) == 1 else "are"
        details.append(f"{where} {are} from a later learn than this one (revision "
                       f"{own_revision()}): it runs `learn run` without `--exit-zero` here "
                       "and says to update learn on every /learn")
        hints.append("update learn (reinstall it from an up-to-date checkout: `pipx install "
                      "--force .` or `pip install .`); or, for a copy in a commands folder, "
                      "`learn install-claude-command --force` puts back this learn's /learn "
                      "(the later one is backed up)")
    if details:
        return Check("/learn", "warn", "; ".join(details), "; ".join(hints))
    own = [str(p) for p, data in found if data == current]
    if own:
        return Check("/learn", "ok", f"installed: {', '.join(own)}")
    return Check("/learn", "ok", f"{found[0][0]} is not a text learn shipped (your own "
                 "command): left as it is")


def _read(paths: list[Path]) -> list[tuple[Path, bytes]]:
    found: list[tuple[Path, bytes]] = []
    for path in paths:
        try:
            found.append((path, path.read_bytes()))
        except OSError:  # none there (or unreadable: Claude Code cannot read it either)
            continue
    return found
