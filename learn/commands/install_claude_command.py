"""`learn install-claude-command`: put the /learn command where Claude Code finds it.

The plugin route (integrations/claude-code) namespaces it as /learn:learn; this
copies the same file to ~/.claude/commands/learn.md (or the project's
.claude/commands/) so it is plain /learn. An existing, different learn.md is
somebody's own command (ECC and many dotfiles ship one), so it is never
overwritten without --force, and with --force it is backed up first.
"""

from __future__ import annotations

import stat
from importlib import resources
from pathlib import Path

import click

from learn.paths import atomic_write_text
from learn.projects import checkout_folder
from learn.report.apply import save_backup
from learn.report.confine import confine
from learn.report.errors import ConfinementError
from learn.report.targets import claude_home


def command_text() -> str:
    return resources.files("learn.report").joinpath("claude_command.md").read_text("utf-8")


def destination(project: bool, project_dir: Path) -> Path:
    base = checkout_folder(project_dir) / ".claude" if project else claude_home()
    return base / "commands" / "learn.md"


@click.command(name="install-claude-command")
@click.option("--user", "scope", flag_value="user", default=True,
              help="Install to ~/.claude/commands/learn.md (default).")
@click.option("--project", "scope", flag_value="project",
              help="Install to this project's .claude/commands/learn.md.")
@click.option("--project-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("."), show_default=True, help="The project, for --project.")
@click.option("--force", is_flag=True, help="Replace a different existing learn.md (backed up).")
@click.option("--print", "print_only", is_flag=True, help="Print the command file; install nothing.")
@click.option("--hooks", is_flag=True,
              help="Also add learn's hooks to settings.json: SessionEnd mines each ended "
                   "session in the background, so /learn only reduces; InstructionsLoaded "
                   "records which instruction files each session loaded.")
def command(scope: str, project_dir: Path, force: bool, print_only: bool, hooks: bool) -> None:
    """Install the /learn slash command for Claude Code."""
    text = command_text()
    if print_only:
        click.echo(text, nl=False)
        return
    project = scope == "project"
    root = checkout_folder(project_dir) if project else None
    dest = _confined(destination(project, project_dir), root)
    current = dest.read_bytes() if dest.exists() else None
    installed = current == text.encode("utf-8")
    # Refused before anything is written: `--hooks` used to change settings.json and
    # then stop here, leaving half an install behind.
    if current is not None and not installed and not force:
        raise click.ClickException(
            f"{dest} exists and is a different command; not touching it. Use --force to "
            "replace it (the old one is backed up), or install the plugin instead, which "
            "is namespaced as /learn:learn")
    if hooks:
        install_hook(settings_file(project, project_dir), root)
        if project:
            _note_committed_hooks(dest.parents[1] / "settings.json")
    if installed:
        click.echo(f"already installed: {dest}")
        return
    if current is not None:
        backup = save_backup(dest, current)
        click.echo(f"backed up the old {dest} to {backup}")
    atomic_write_text(dest, text, mode=_kept_mode(dest))
    click.echo(f"installed {dest}: type /learn in Claude Code (needs `learn` on PATH)")


def settings_file(project: bool, project_dir: Path) -> Path:
    """Where `--hooks` puts learn's hooks. A project's own settings.local.json, not its
    settings.json: the hooks name this machine's Python by absolute path, which means
    nothing in a checked-in file on anybody else's machine (learn check's hook goes
    there for the same reason, learn.report.check_install)."""
    base = destination(project, project_dir).parents[1]
    return base / ("settings.local.json" if project else "settings.json")


def _note_committed_hooks(committed: Path) -> None:
    """An older learn put a project's hooks in its checked-in settings.json: say so
    (that file is the team's; learn does not take them out itself)."""
    import json

    from learn.hook.settings import HOOKS, has_hook

    try:
        data = json.loads(committed.read_bytes())
    except (OSError, ValueError):
        return
    if isinstance(data, dict) and any(has_hook(data, event, args) for event, args, _ in HOOKS):
        click.echo(f"note: {committed} (checked in) also has learn's hooks from an older "
                   "learn; they name this machine's Python, so take them out of it by hand")


def _kept_mode(path: Path, new: int = 0o600) -> int:
    """A file replaced keeps its permissions (a 0644 settings.json stays 0644); a new
    one gets `new`, private as every file learn makes."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return new


def _confined(path: Path, project: Path | None) -> Path:
    """`path` checked like every write learn makes (learn.report.confine)."""
    try:
        return confine(path, (project,))
    except ConfinementError as exc:
        raise click.ClickException(str(exc)) from exc


def install_hook(settings_path: Path, project: Path | None = None) -> None:
    """Add learn's hooks (SessionEnd, InstructionsLoaded) to `settings_path`, keeping
    everything else as written (learn.report.json_settings; the old file backed up)."""
    from learn.hook.settings import with_hooks
    from learn.report.json_settings import SettingsError, edit_settings

    settings_path = _confined(settings_path, project)
    raw = settings_path.read_bytes() if settings_path.exists() else None
    try:
        updated = edit_settings(raw, settings_path, with_hooks)
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from exc
    except ValueError as exc:  # with_hooks: `hooks` is not what Claude Code reads
        raise click.ClickException(f"{exc}; not touching it") from exc
    if updated is None:
        click.echo(f"learn's hooks already in {settings_path}")
        return
    if raw is not None:
        backup = save_backup(settings_path, raw)
        click.echo(f"backed up {settings_path} to {backup}")
    atomic_write_text(settings_path, updated, mode=_kept_mode(settings_path))
    click.echo(f"added learn's hooks to {settings_path}: ended sessions are mined in the "
               "background (log: learn's data dir, hook/hook.log), and each instruction file a "
               "session loads is recorded (outcomes count a rule only where it was loaded)")
