"""`learn install-claude-command`: put the /learn command where Claude Code finds it.

The plugin route (integrations/claude-code) namespaces it as /learn:learn; this
copies the same file to ~/.claude/commands/learn.md (or the project's
.claude/commands/) so it is plain /learn. An existing, different learn.md is
somebody's own command (ECC and many dotfiles ship one), so it is never
overwritten without --force, and with --force it is backed up first.
"""

from __future__ import annotations

from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import click

from learn.paths import atomic_write_bytes, atomic_write_text, data_dir, ensure_private_dir
from learn.report.targets import claude_home, project_root


def command_text() -> str:
    return resources.files("learn.report").joinpath("claude_command.md").read_text("utf-8")


def destination(project: bool, project_dir: Path) -> Path:
    base = project_root(project_dir) / ".claude" if project else claude_home()
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
def command(scope: str, project_dir: Path, force: bool, print_only: bool) -> None:
    """Install the /learn slash command for Claude Code."""
    text = command_text()
    if print_only:
        click.echo(text, nl=False)
        return
    dest = destination(scope == "project", project_dir)
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
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        backup = ensure_private_dir(data_dir() / "backups") / f"claude-command-learn.{stamp}.md"
        atomic_write_bytes(backup, current)
        click.echo(f"backed up the old {dest} to {backup}")
    atomic_write_text(dest, text)
    click.echo(f"installed {dest}: type /learn in Claude Code (needs `learn` on PATH)")
