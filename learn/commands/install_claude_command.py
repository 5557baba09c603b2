"""`learn install-claude-command`: put the /learn command where Claude Code finds it.

The plugin route (integrations/claude-code) namespaces it as /learn:learn; this
copies the same file to ~/.claude/commands/learn.md (or the project's
.claude/commands/) so it is plain /learn. An existing, different learn.md is
somebody's own command (ECC and many dotfiles ship one), so it is never
overwritten without --force, and with --force it is backed up first. A learn.md that
is a link is never written through, --force or not: one linked to the person's
other.md had --force replace /other with /learn.

`--hooks` changes the person's settings.json: the change is shown as a diff and asked
for (`--yes` to skip the question; not at a terminal and without it, nothing is
written), and what the command wrote is journaled as `learn apply` journals its
writes, so `learn apply --undo` puts it back. It wrote them unasked and for good before.
Journaled as apply's are: pending before each rename, under the apply lock, taken only
to write, after the question (learn.commands.apply_writes.Journaled, apply_lock.one_apply).
Journaled after the write, a `kill -9` between the two left hooks in settings.json that
`--undo` did not know about.

A learn.md holding the text an earlier learn shipped (report.claude_command.EARLIER_TEXTS) is learn's own, out
of date: it is replaced without --force, backed up and journaled like any other write.
Refused as "a different command", the person kept the old line: `learn run` without
`--exit-zero`, which Claude Code 2.1.332 drops whole when one stage of the run failed.
A later learn's learn.md (report.claude_command.is_later) is refused without --force as
somebody's own is, but says so: the fix is to update learn, not to put an older /learn back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import click

from learn.commands.apply_lock import one_apply, settled
from learn.commands.apply_writes import Journaled, asked, new_batch
from learn.projects import checkout_folder
from learn.report.claude_command import command_text, is_earlier, is_later, own_revision, revision
from learn.report.confine import confine, read_regular
from learn.report.edits import ApplyError, FilePlan, sha256
from learn.report.errors import ConfinementError
from learn.report.targets import claude_home


def destination(project: bool, project_dir: Path) -> Path:
    base = checkout_folder(project_dir) / ".claude" if project else claude_home()
    return base / "commands" / "learn.md"


@click.command(name="install-claude-command")
# Two flags, not one value both set: with a shared value the last one given won, so
# `--user --project` silently installed into the project; apart, it can be refused.
@click.option("--user", is_flag=True, help="Install to ~/.claude/commands/learn.md (default).")
@click.option("--project", "to_project", is_flag=True,
              help="Install to this project's .claude/commands/learn.md.")
@click.option("--project-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("."), show_default=True, help="The project, for --project.")
@click.option("--force", is_flag=True, help="Replace a different existing learn.md (backed up).")
@click.option("--print", "print_only", is_flag=True, help="Print the command file; install nothing.")
@click.option("--hooks", is_flag=True,
              help="Also add learn's hooks to settings.json: SessionEnd mines each ended "
                   "session in the background, so /learn only reduces; InstructionsLoaded "
                   "records which instruction files each session loaded. The change is "
                   "shown and asked for.")
@click.option("--yes", is_flag=True, help="Write the hooks' change without asking.")
def command(user: bool, to_project: bool, project_dir: Path, force: bool, print_only: bool,
            hooks: bool, yes: bool) -> None:
    """Install the /learn slash command for Claude Code."""
    if user and to_project:
        raise click.UsageError("--user and --project cannot be combined: choose one")
    text = command_text()
    if print_only:
        click.echo(text, nl=False)
        return
    settled()  # what a killed write left, decided before planning (one_apply)
    _install(text, to_project, project_dir, force, hooks, yes)


def _install(text: str, project: bool, project_dir: Path, force: bool, hooks: bool,
             yes: bool) -> None:
    root = checkout_folder(project_dir) if project else None
    asked = destination(project, project_dir)
    dest = _confined(asked, root)
    current = _read(dest)
    installed = current == text.encode("utf-8")
    outdated = current is not None and not installed and is_earlier(current)
    if asked.is_symlink() and not installed:
        raise click.ClickException(
            f"{asked} is a link to {dest}; learn does not write through it (that would "
            "change the file it leads to), --force or not. Nothing was written. Remove the "
            "link and run again, or install the plugin, which is namespaced as /learn:learn")
    # Everything is checked and read before anything is written: `--hooks` used to
    # change settings.json and then stop at a different learn.md, and then at a
    # checked-in settings.json it could not read (a link to /dev/zero, read until
    # MemoryError), each time leaving half an install behind.
    if current is not None and not installed and not outdated and not force:
        if is_later(current):
            raise click.ClickException(
                f"{dest} is a later learn's /learn (revision {revision(current)}; this "
                f"learn's is {own_revision()}); not touching it. Update learn instead "
                "(reinstall it from an up-to-date checkout: `pipx install --force .` or "
                "`pip install .`), or use --force to put this learn's back (the later one "
                "is backed up)")
        raise click.ClickException(
            f"{dest} exists and is a different command; not touching it. Use --force to "
            "replace it (the old one is backed up), or install the plugin instead, which "
            "is namespaced as /learn:learn")
    hook = _hooks_planned(settings_file(project, project_dir), root) if hooks else None
    note = _committed_hooks_note(dest.parents[1] / "settings.json") if hooks and project \
        else None
    if hook is not None and not _confirmed(hook, yes):
        click.echo("nothing was written")
        return
    # One batch for both files: `learn apply --undo` puts back the install. Written under
    # the apply lock, taken only now that the person said yes (one_apply); a file changed
    # since it was read above is refused (write_journaled), not overwritten.
    batch = Journaled(new_batch(), "install", str(root) if root is not None else None)
    with one_apply():
        if hook is not None:
            _write_hooks(hook, root, batch)
        if note:
            click.echo(note)
        if installed:
            click.echo(f"already installed: {dest}")
            return
        backup = _write(_plan(dest, current, text, root), batch)
    if backup is not None:
        click.echo(f"backed up the old {dest} to {backup}")
    if outdated:
        click.echo(f"updated {dest} from an earlier learn's /learn: type /learn in Claude Code")
        return
    click.echo(f"installed {dest}: type /learn in Claude Code (needs `learn` on PATH)")


def _read(path: Path) -> bytes | None:
    """`path`'s bytes (None: no file), a regular file of bounded size (learn.report.confine)."""
    try:
        return read_regular(path)
    except ConfinementError as exc:
        raise click.ClickException(str(exc)) from exc


def settings_file(project: bool, project_dir: Path) -> Path:
    """Where `--hooks` puts learn's hooks. A project's own settings.local.json, not its
    settings.json: the hooks name this machine's Python by absolute path, which means
    nothing in a checked-in file on anybody else's machine (learn check's hook goes
    there for the same reason, learn.report.check_install)."""
    base = destination(project, project_dir).parents[1]
    return base / ("settings.local.json" if project else "settings.json")


def _committed_hooks_note(committed: Path) -> str | None:
    """An older learn put a project's hooks in its checked-in settings.json: what to say
    (that file is the team's; learn does not take them out itself). Only a note: a file
    that cannot be read (not a regular file, too large, not JSON) says nothing."""
    import json

    from learn.hook.settings import HOOKS, has_hook

    try:
        raw = read_regular(committed)
        data = json.loads(raw) if raw is not None else None
    except (ConfinementError, ValueError, RecursionError):  # RecursionError: nested too deep
        return None
    if isinstance(data, dict) and any(has_hook(data, event, args) for event, args, _ in HOOKS):
        return (f"note: {committed} (checked in) also has learn's hooks from an older learn; "
                "they name this machine's Python, so take them out of it by hand")
    return None


def _plan(path: Path, before: bytes | None, text: str, root: Path | None) -> FilePlan:
    """`path` (confined) going from `before` (None: no file) to holding `text`."""
    return FilePlan(path=path, original=None if before is None
                    else before.decode("utf-8", "replace"),
                    original_hash=sha256(before) if before is not None else "", new_text=text,
                    projects=(str(root),) if root is not None else ())


def _write(plan: FilePlan, batch: Journaled) -> Path | None:
    """`plan` written as `learn apply` writes a file (learn.report.apply.write_plan):
    confined again and written in the folder confine approved, only while it still holds
    what it was planned against, its mode and owner kept (a new file 0600), the old one
    backed up, journaled in `batch` for `learn apply --undo` before it is renamed into
    place. The backup."""
    try:
        return batch.write(plan)
    except ApplyError as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise click.ClickException(f"could not write {plan.path}: {exc}") from exc


def _confined(path: Path, project: Path | None) -> Path:
    """`path` checked like every write learn makes (learn.report.confine)."""
    try:
        return confine(path, (project,))
    except ConfinementError as exc:
        raise click.ClickException(str(exc)) from exc


def _hooks_planned(settings_path: Path, project: Path | None = None) -> HooksPlan:
    """learn's hooks (SessionEnd, InstructionsLoaded) added to `settings_path`, planned:
    the confined file, what it holds and what it will (None: already there), keeping
    everything else as written (learn.report.json_settings)."""
    from learn.hook.settings import persons_own, with_hooks
    from learn.report.json_settings import SettingsError, edit_settings, parse_settings

    settings_path = _confined(settings_path, project)
    raw = _read(settings_path)
    try:
        updated = edit_settings(raw, settings_path, with_hooks)
        kept = persons_own(parse_settings(raw, settings_path)[0])
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from exc
    except ValueError as exc:  # with_hooks: `hooks` is not what Claude Code reads
        raise click.ClickException(f"{exc}; not touching it") from exc
    notes = tuple(f"your own {event} hook already runs `learn {args}` (`{cmd}`): learn leaves "
                  "it as it is and adds none beside it" for event, args, cmd in kept)
    return HooksPlan(settings_path, raw, updated, notes)


@dataclass(frozen=True, slots=True)
class HooksPlan:
    path: Path  # confined
    before: bytes | None  # None: no file
    after: str | None  # None: nothing to change
    notes: tuple[str, ...] = ()


def _confirmed(hook: HooksPlan, yes: bool) -> bool:
    """The hooks' change shown, and asked for: a settings.json runs what its hooks say, so
    it is never changed unseen (as `learn check` and `learn apply`). Not at a terminal
    and without --yes, nothing is written (exit 2): a pipe cannot say yes."""
    for note in hook.notes:
        click.echo(f"note: {note}")
    if hook.after is None:
        return True
    click.echo(_plan(hook.path, hook.before, hook.after, None).diff(), nl=False)
    return asked(yes, f"write these changes to {hook.path}?")


def _write_hooks(hook: HooksPlan, root: Path | None, batch: Journaled) -> None:
    if hook.after is None:
        click.echo(f"learn's hooks already in {hook.path}")
        return
    backup = _write(_plan(hook.path, hook.before, hook.after, root), batch)
    if backup is not None:
        click.echo(f"backed up {hook.path} to {backup}")
    from learn.paths import data_dir

    click.echo(f"added learn's hooks to {hook.path}: ended sessions are mined in the "
               f"background (log: {data_dir() / 'hook' / 'hook.log'}), and each instruction file a "
               "session loads is recorded (outcomes count a rule only where it was loaded); "
               "`learn apply --undo` takes them out")
