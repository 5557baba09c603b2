"""`learn install-claude-command`: put the /learn command where Claude Code finds it.

The plugin route (integrations/claude-code) namespaces it as /learn:learn; this
copies the same file to ~/.claude/commands/learn.md (or the project's
.claude/commands/) so it is plain /learn. An existing, different learn.md is
somebody's own command (ECC and many dotfiles ship one), so it is never
overwritten without --force, and with --force it is backed up first.
"""

from __future__ import annotations

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
    root = checkout_folder(project_dir) if scope == "project" else None
    if hooks:
        install_hook(destination(scope == "project", project_dir).parents[1] / "settings.json",
                     root)
    dest = _confined(destination(scope == "project", project_dir), root)
    if dest.exists():
        current = dest.read_bytes()
        if current == text.encode("utf-8"):
            click.echo(f"already installed: {dest}")
            return
        if not force:
            raise click.ClickException(
                f"{dest} exists and is a different command; not touching it. Use --force to "
                "replace it (the old one is backed up), or install the plugin instead, which "
                "is namespaced as /learn:learn")
        backup = save_backup(dest, current)
        click.echo(f"backed up the old {dest} to {backup}")
    atomic_write_text(dest, text)
    click.echo(f"installed {dest}: type /learn in Claude Code (needs `learn` on PATH)")


def _confined(path: Path, project: Path | None) -> Path:
    """`path` checked like every write learn makes (learn.report.confine)."""
    try:
        return confine(path, (project,))
    except ConfinementError as exc:
        raise click.ClickException(str(exc)) from exc


def install_hook(settings_path: Path, project: Path | None = None) -> None:
    """Add learn's hooks (SessionEnd, InstructionsLoaded) to `settings_path`, keeping
    everything else (backed up)."""
    import json

    from learn.hook.settings import with_hooks

    settings_path = _confined(settings_path, project)
    current: dict[str, object] = {}
    raw = settings_path.read_bytes() if settings_path.exists() else None
    if raw is not None and raw.strip():
        try:
            loaded = json.loads(raw)
        except ValueError as exc:
            raise click.ClickException(f"{settings_path} is not valid JSON ({exc}); not touching it") from exc
        if not isinstance(loaded, dict):
            raise click.ClickException(f"{settings_path} is not a JSON object; not touching it")
        current = loaded
    try:
        updated = with_hooks(current)
    except ValueError as exc:
        raise click.ClickException(f"{exc}; not touching it") from exc
    if updated is current:
        click.echo(f"learn's hooks already in {settings_path}")
        return
    if raw is not None:
        backup = save_backup(settings_path, raw)
        click.echo(f"backed up {settings_path} to {backup}")
    atomic_write_text(settings_path, json.dumps(updated, indent=2) + "\n")
    click.echo(f"added learn's hooks to {settings_path}: ended sessions are mined in the "
               "background (log: learn's data dir, hook/hook.log), and each instruction file a "
               "session loads is recorded (outcomes count a rule only where it was loaded)")
