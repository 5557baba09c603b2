"""The scope options every session-reading command shares.

`learn sessions`, `run`, `plan` and `signals` must agree on which sessions a
scope means, or `plan` would price a different set than `run` mines. So the
options and their resolution live here once:

    @click.command()
    @scope_options(default_since="30d", default_limit=20)
    def command(scope: Scope, ...) -> None:
        files = scope.discover()

The commands that show what runs stored (`digest`, `apply`, `report`, `decline`,
`stats`) read `--project` and `--since` through the same two functions
(`existing_project`, `since_time`), so a folder that does not exist and a span that
cannot be read are the same usage error (exit 2) everywhere; `stored_proposals` says
why there is nothing to show in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import msgspec

from learn.transcripts.files.discover import Discovery, HeadReader, SessionFile, parse_since, scan

if TYPE_CHECKING:
    from learn.records.proposal import RunResult

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

    def describe(self, matched: str | None = None) -> str:
        """One line for headers and "why nothing?" messages. `matched`: the project
        discovery listed the sessions of (`Discovery.project`), named when it is not
        the folder asked: from `w/trunc/sub/dir`, outside any repository, the sessions
        listed are those of `w/trunc`, and a heading naming `sub/dir` said otherwise."""
        where = "all projects" if self.all_projects else f"project {self.matched(matched)}"
        parts = [where]
        if self.since_text:
            parts.append(f"since {self.since_text}")
        if self.limit is not None:
            parts.append(f"newest {self.limit}")
        return ", ".join(parts)

    def matched(self, project: str | None) -> str:
        """The project's folder as the heading names it: the folder asked, as it was
        spelled, when it is the project's own; else the project's folder on this disk
        (or its key, when this disk has none: another system's path, an id)."""
        from learn.projects import as_folder, is_path, path_key

        asked = str(self.project)
        if project is None or (is_path(asked) and path_key(asked) == project):
            return asked
        return str(as_folder(project) or project)


def scope_options(
    *, default_since: str | None = None, default_limit: int | None = None,
    configured: bool = False,
) -> Callable[[F], F]:
    """Add --project/--all-projects/--since/--limit and pass a resolved `scope: Scope`.

    `configured`: --since and --limit default to `[mining] since` and `[mining] limit`
    (`configured_scope`); a flag given on the command line wins."""

    def decorate(func: F) -> F:
        @wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            since, limit = kwargs.pop("since"), kwargs.pop("limit")
            if configured and (since is None or limit is None):
                # Only what the flags leave is read: a `--since` given is not held up
                # by a config `since` it overrides (the scheduled job passes one).
                config_since, config_limit = configured_scope(since=since is None)
                since = config_since if since is None else since
                limit = config_limit if limit is None else limit
            kwargs["scope"] = resolve_scope(
                project=kwargs.pop("project"),
                all_projects=kwargs.pop("all_projects"),
                since=since,
                limit=limit,
            )
            return func(*args, **kwargs)

        since_help = "Only sessions active since then: 30d, 12h, 2w, or a date like 2026-11-01."
        limit_help = "At most this many sessions, newest first."
        if configured:
            since_help += " [default: [mining] since in the config, else 30d]"
            limit_help += " [default: [mining] limit in the config, else none]"

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
                help=since_help,
            ),
            click.option(
                "--limit",
                type=click.IntRange(min=1),
                default=default_limit,
                show_default=default_limit is not None,
                help=limit_help,
            ),
        ]
        decorated: Callable[..., Any] = wrapper
        for option in reversed(options):
            decorated = option(decorated)
        return decorated  # type: ignore[return-value]

    return decorate


def configured_scope(*, since: bool = True) -> tuple[str, int | None]:
    """`[mining] since` and `[mining] limit`: the sessions `learn run` and `learn plan`
    read when the command line does not say (they must agree, or `plan` would price
    another set than `run` mines). With no config file, the defaults, without reading
    one; an invalid config is its usage error (learn.config.ConfigError, exit 2).
    `since=False`: the command line gave one, so the config's is neither checked nor used."""
    from learn.config_defaults import DEFAULT_SINCE, defaults_apply

    if defaults_apply():
        return DEFAULT_SINCE, None
    from learn.config import ConfigError, config_path, load_config

    mining = load_config().mining
    if since and mining.since:
        where = f"{config_path()}: mining.since: {mining.since!r}"
        try:
            at = parse_since(mining.since)
        except ValueError:
            raise ConfigError(f"{where} cannot be read: use a span like 30d, 12h or 2w, a date "
                              'like 2026-11-01, or "" for no age limit') from None
        if at > datetime.now(UTC):
            raise ConfigError(f"{where} is in the future: nothing has happened since then (a "
                              "span like 30d, or a past date)")
    return mining.since, mining.limit


def resolve_scope(
    *,
    project: Path | None,
    all_projects: bool,
    since: str | None,
    limit: int | None,
) -> Scope:
    if project is not None and all_projects:
        raise click.UsageError("--project and --all-projects cannot be combined")
    since_at = since_time(since)
    existing_project(project)
    return Scope(
        project=(project or Path.cwd()).expanduser(),
        all_projects=all_projects,
        since=since_at,
        since_text=since or None,
        limit=limit,
    )


def since_time(since: str | None, *, now: datetime | None = None) -> datetime | None:
    """`--since` as every command reads it: a span (30d, 12h, 2w) or a date, local
    midnight for a bare date (learn.transcripts.files.discover.parse_since). One that
    cannot be read, or a moment still to come, is a usage error (exit 2): since a
    future date nothing has happened, and `learn digest --since 2027-01-01` went on to
    fail as "no stored run", `learn run` to read 0 sessions and store an empty run."""
    if not since:
        return None
    try:
        at = parse_since(since, now=now)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--since") from None
    if at > (now or datetime.now(UTC)):
        raise click.BadParameter(
            f"{since!r} is in the future: nothing has happened since then (a span like "
            "30d, or a past date like 2026-11-01)", param_hint="--since")
    return at


def existing_project(project: Path | None) -> None:
    """A `--project` folder that does not exist, and never had a session, is a usage
    error (exit 2). A folder that is gone may still have sessions (a deleted worktree,
    a moved project); one that never had any is a typo: `--project /nope` ran and
    exited 0 saying nothing was found, `learn digest --project /nope` said "run `learn
    run` there first" and `learn stats --project /nope` measured nothing, silently."""
    if (project is not None and not project.expanduser().exists()
            and not scan(project=project.expanduser(), limit=1).files):
        raise click.BadParameter(
            f"{project}: no such folder, and no session ran in it (`learn sessions "
            "--all-projects` lists the projects learn can read)", param_hint="--project")


class NothingToShow(Exception):
    """No run has anything to show for the project because learn can read none of its
    sessions: not a failure (exit 0; the command says it and stops)."""


def stored_proposals(project: str | None, since: datetime | None, since_text: str | None,
                     *, folder: Path | None = None, every_state: bool = False) -> RunResult:
    """The proposals `digest`, `apply`, `report` and `decline` show for `project` (None:
    every project), read from the store (learn.report.runs.load_proposals).

    Nothing stored for the project is said as what it is. A run that reads no session
    stores no project (its result names the projects of the sessions it read), so right
    after `learn run` in a folder without sessions ("Read 0 sessions") the commands said
    "no stored run: run `learn run` there first": NothingToShow now, when learn can read
    no session of the project (or of `folder`, the one named). With sessions to read and
    no run that read them, or no run within `--since` (whose help promises a failure),
    NoRunError (exit 1)."""
    from learn.report.runs import NoRunError, load_proposals

    # Its rules' outcomes and checks are the project's own already (load_proposals scopes
    # them, for every caller).
    result = load_proposals(since, project, every_state=every_state)
    if result is not None:
        return result
    window = f" since {since_text}" if since_text else ""
    after = "(digest, report and apply show what runs proposed, no model calls)"
    if project is None:
        raise NoRunError(f"no stored run{window}: run `learn run` first {after}")
    folders = dict.fromkeys(f.expanduser() for f in (Path(project), folder) if f is not None)
    if any(scan(project=f, limit=1).files for f in folders):
        raise NoRunError(f"no stored run{window} for {project}: run `learn run` there first "
                         f"{after}")
    unread = (f"learn reads no session of {project}, so no run has anything to show here "
              "(`learn sessions --all-projects` lists the projects it can read)")
    if since is not None:
        raise NoRunError(f"no stored run{window} for {project}; {unread}")
    raise NothingToShow(unread)
