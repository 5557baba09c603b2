"""The scope options every session-reading command shares.

`learn sessions`, `run`, `plan` and `signals` must agree on which sessions a
scope means, or `plan` would price a different set than `run` mines. So the
options and their resolution live here once:

    @click.command()
    @scope_options(default_since="30d", default_limit=20)
    def command(scope: Scope, ...) -> None:
        files = scope.discover()
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click
import msgspec

from learn.transcripts.files.discover import Discovery, HeadReader, SessionFile, parse_since, scan

F = TypeVar("F", bound=Callable[..., Any])


class Scope(msgspec.Struct, frozen=True):
    project: Path  # the project (default: cwd); ignored when all_projects
    all_projects: bool
    since: datetime | None
    since_text: str | None
    limit: int | None

    def scan(self, heads: HeadReader | None = None) -> Discovery:
        return scan(
            project=self.project,
            all_projects=self.all_projects,
            since=self.since,
            limit=self.limit,
            heads=heads,
        )

    def discover(self) -> list[SessionFile]:
        return self.scan().files

    def describe(self) -> str:
        """One line for headers and "why nothing?" messages."""
        where = "all projects" if self.all_projects else f"project {self.project}"
        parts = [where]
        if self.since_text:
            parts.append(f"since {self.since_text}")
        if self.limit is not None:
            parts.append(f"newest {self.limit}")
        return ", ".join(parts)


def scope_options(
    *, default_since: str | None = None, default_limit: int | None = None
) -> Callable[[F], F]:
    """Add --project/--all-projects/--since/--limit and pass a resolved `scope: Scope`."""

    def decorate(func: F) -> F:
        @wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            kwargs["scope"] = resolve_scope(
                project=kwargs.pop("project"),
                all_projects=kwargs.pop("all_projects"),
                since=kwargs.pop("since"),
                limit=kwargs.pop("limit"),
            )
            return func(*args, **kwargs)

        options = [
            click.option(
                "--project",
                type=click.Path(file_okay=False, path_type=Path),
                default=None,
                help="Sessions whose cwd is this directory or under it (default: the current directory).",
            ),
            click.option(
                "--all-projects",
                is_flag=True,
                default=False,
                help="Sessions from every project.",
            ),
            click.option(
                "--since",
                default=default_since,
                show_default=default_since is not None,
                metavar="SPAN|DATE",
                help="Only sessions active since then: 30d, 12h, 2w, or a date like 2026-11-01.",
            ),
            click.option(
                "--limit",
                type=click.IntRange(min=1),
                default=default_limit,
                show_default=default_limit is not None,
                help="At most this many sessions, newest first.",
            ),
        ]
        decorated: Callable[..., Any] = wrapper
        for option in reversed(options):
            decorated = option(decorated)
        return decorated  # type: ignore[return-value]

    return decorate


def resolve_scope(
    *,
    project: Path | None,
    all_projects: bool,
    since: str | None,
    limit: int | None,
) -> Scope:
    if project is not None and all_projects:
        raise click.UsageError("--project and --all-projects cannot be combined")
    since_at: datetime | None = None
    if since:
        try:
            since_at = parse_since(since)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--since") from None
    # A folder that is gone may still have sessions (a deleted worktree, a moved
    # project); one that never had any is a typo: `--project /nope` ran and exited 0
    # saying nothing was found.
    if (project is not None and not project.expanduser().exists()
            and not scan(project=project.expanduser(), limit=1).files):
        raise click.BadParameter(
            f"{project}: no such folder, and no session ran in it (`learn sessions "
            "--all-projects` lists the projects learn can read)", param_hint="--project")
    return Scope(
        project=(project or Path.cwd()).expanduser(),
        all_projects=all_projects,
        since=since_at,
        since_text=since or None,
        limit=limit,
    )


def skipped_note(discovery: Discovery) -> str:
    """`12 other project, 3 too old` — empty when nothing was skipped."""
    labels = {
        "other_project": "in other projects",
        "too_old": "too old",
        "over_limit": "over the limit",
        "no_cwd": "without a cwd",
        "unreadable": "unreadable",
        "duplicate": "duplicates",
        "subagent": "Codex subagent rollouts (attached to their session)",
    }
    parts = [f"{n} {labels.get(k, k)}" for k, n in sorted(discovery.skipped.items()) if n]
    return ", ".join(parts)
