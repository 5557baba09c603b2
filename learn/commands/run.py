"""`learn run`: the main job, from the command line.

Exit codes: 0 ok (also when a malformed or cut answer was repaired by a retry);
1 partial failure (a session or a stage still failed after retries; stderr names
it, the rest is reported); 2 usage or configuration error (one line plus what to do).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from learn.commands._scope import Scope, scope_options

BACKENDS = ("auto", "anthropic", "claude-cli", "openai", "replay")


class UsageProblem(click.ClickException):
    exit_code = 2


def choose_backend_name(name: str) -> str:
    """`auto`: the API when a key is set, else the user's `claude` binary."""
    if name != "auto":
        return name
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if shutil.which("claude"):
        return "claude-cli"
    raise UsageProblem(
        "no model backend available: ANTHROPIC_API_KEY is not set and no `claude` binary is on PATH.\n"
        "  hint: export ANTHROPIC_API_KEY=…, or install Claude Code and use --backend claude-cli, "
        "or run without a model: learn run --offline"
    )


def build_backend(name: str, *, record: bool, cache_dir: Path | None, config: Any) -> Any:
    from learn.models.base import ModelError
    from learn.models.registry import get_backend

    if name == "anthropic" and not os.environ.get("ANTHROPIC_API_KEY"):
        raise UsageProblem(
            "ANTHROPIC_API_KEY is not set.\n"
            "  hint: export ANTHROPIC_API_KEY=sk-ant-…, or use --backend claude-cli (your Claude Code "
            "login), or --offline (deterministic signals only, no model)"
        )
    try:
        return get_backend(
            name,
            cache_dir=cache_dir or config.backend.cache_dir,
            record=record,
            base_url=config.backend.openai_base_url if name == "openai" else None,
            binary=config.backend.claude_binary,
            model=config.models.mine if name == "openai" else None,
        )
    except (ModelError, ValueError) as exc:
        raise UsageProblem(str(exc)) from exc


class _Bars:
    """Rich progress bars on stderr; silent when not a TTY or with --quiet."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> _Bars:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description:<8}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), console=Console(stderr=True), transient=True,
            )
            self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(None, None, None)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self._progress is None:
            return
        task = self._tasks.get(stage)
        if task is None:
            task = self._tasks[stage] = self._progress.add_task(stage, total=total)
        self._progress.update(task, completed=done, total=total)


@click.command("run")
@scope_options(default_since="30d")
@click.option("--backend", type=click.Choice(BACKENDS), default=None,
              help="Model backend (default from config: anthropic). auto = API key if set, else claude CLI.")
@click.option("--model", default=None, help="Model for every step (overrides config per-step models).")
@click.option("--offline", is_flag=True, help="No model: deterministic signals and local embeddings only.")
@click.option("--dry-run", is_flag=True, help="Say what would be mined and what it would cost; call nothing.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask before large runs.")
@click.option("--all", "show_all", is_flag=True, help="Show everything, including items already shown.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@click.option("--record", is_flag=True, help="Also record every model answer for the replay backend.")
@click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
              help="Where replay answers are read (replay) or written (--record).")
@click.option("--embedder", type=click.Choice(["minilm", "tfidf"]), default="minilm", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the digest (or JSON with --json) to this file.")
@click.option("--batch", is_flag=True,
              help="Mine uncached sessions through Message Batches (anthropic; half the price, slower).")
@click.option("--team", is_flag=True,
              help="Propose what several people shared for this repository (everything shared; [team] in the config).")
@click.option("--include-programmatic", is_flag=True,
              help="Also mine sessions a program started (SDK, scripted `claude -p`, plugins).")
def command(scope: Scope, backend: str | None, model: str | None, offline: bool, dry_run: bool,
            yes: bool, show_all: bool, as_json: bool, quiet: bool, record: bool,
            cache_dir: Path | None, embedder: str, out: Path | None, team: bool,
            batch: bool, include_programmatic: bool) -> None:
    """Mine your sessions and propose rules for CLAUDE.md / AGENTS.md.

    Reads the current project's sessions of the last 30 days (see --project,
    --all-projects, --since, --limit), asks the model what you keep saying,
    verifies every quote, counts distinct sessions, and prints a digest.
    """
    sys.exit(run_command(scope, backend=backend, model=model, offline=offline, dry_run=dry_run,
                         yes=yes, show_all=show_all, as_json=as_json, quiet=quiet, record=record,
                         cache_dir=cache_dir, embedder=embedder, out=out, team=team,
                         batch=batch, include_programmatic=include_programmatic))


def run_command(scope: Scope, *, backend: str | None, model: str | None, offline: bool,
                dry_run: bool, yes: bool, show_all: bool, as_json: bool, quiet: bool,
                record: bool, cache_dir: Path | None, embedder: str, out: Path | None,
                team: bool = False, batch: bool = False,
                include_programmatic: bool = False) -> int:
    from learn.config import ConfigError, load_config
    from learn.lock import LockedError, run_lock

    try:
        config = load_config()
    except ConfigError as exc:
        raise UsageProblem(f"invalid config: {exc}") from exc
    if model:
        config = config.model_copy(update={"models": config.models.model_copy(update={
            "mine": model, "name": model, "coverage": model, "judge": model})})
    if dry_run:
        from learn.commands.plan import print_plan

        print_plan(scope, config, as_json=as_json)
        return 0

    model_backend = None
    if not offline:
        name = choose_backend_name(backend or config.backend.name)
        model_backend = build_backend(name, record=record, cache_dir=cache_dir, config=config)
        if batch and name != "anthropic":
            raise UsageProblem("--batch needs the anthropic backend (Message Batches are its API)")
        if not team and name == "anthropic" and not batch:
            batch = _offer_batch(scope, config, yes)
        if not team and not yes and not batch and not _confirm(scope, config):
            click.echo("nothing mined (not confirmed)", err=True)
            return 0
    elif batch:
        raise UsageProblem("--batch needs a model (it is a way of calling one)")

    from learn.pipeline import RunOptions, run_pipeline

    options = RunOptions(
        project=None if scope.all_projects else scope.project,
        all_projects=scope.all_projects,
        since=scope.since,
        limit=scope.limit,
        offline=offline,
        show_all=show_all,
        embedder="tfidf" if embedder == "tfidf" else "minilm",
        batch=batch,
        include_programmatic=include_programmatic,
    )
    bars = _Bars(enabled=not quiet and sys.stderr.isatty())
    try:
        with run_lock(), bars:
            if team:
                result = _team_result(scope, config, model_backend, embedder)
            else:
                result, _ = run_pipeline(options, config, backend=model_backend, progress=bars)
    except LockedError as exc:
        click.echo(f"learn: {exc}", err=True)
        return 2
    if as_json:
        import json

        text = json.dumps(result.to_json(), indent=2, ensure_ascii=False)
    else:
        from learn.report.digest import render_digest_markdown

        text = render_digest_markdown(result)
    click.echo(text)
    if out is not None:
        from learn.paths import atomic_write_text

        atomic_write_text(out, text + "\n")
    for line in result.failures:
        click.echo(f"learn: {line}", err=True)
    if result.failed_stages:
        click.echo(f"learn: failed after retries: {', '.join(result.failed_stages)} "
                   "(what else the run found is reported above)", err=True)
    return 1 if result.failed_stages or result.usage.sessions_failed or result.coverage_failed else 0


def _team_result(scope: Scope, config: Any, model_backend: Any, embedder: str) -> Any:
    """`--team`: the repository's shared candidates across people (learn.reduce.team)."""
    from learn.commands.share import remote_url
    from learn.reduce.team import run_team

    if not config.team.database_url:
        raise UsageProblem("--team needs [team] database_url in the config")
    root = scope.project.expanduser().resolve()
    remote = remote_url(root)
    if remote is None:
        raise UsageProblem(f"{root} has no git remote 'origin': a team run groups by the repository")
    return run_team(root, remote, config, backend=model_backend, embedder=embedder)


def _offer_batch(scope: Scope, config: Any, yes: bool) -> bool:
    """Above BATCH_ABOVE uncached sessions, batch them: `--yes` says so, a terminal is asked."""
    from learn.mining.batch import BATCH_ABOVE
    from learn.mining.cache import MineCache
    from learn.mining.plan import plan_mining

    plan = plan_mining(scope.discover(), MineCache(), config.models.mine,
                       context_window=config.models.context_window)
    n = len(plan.to_mine)
    if n <= BATCH_ABOVE:
        return False
    if yes:
        click.echo(f"learn: {n} uncached sessions: mining them as a Message Batch "
                   "(half the price; a later `learn run` or `learn batches` collects it)", err=True)
        return True
    if not sys.stdin.isatty():
        return False
    return click.confirm(f"{n} uncached sessions: send them as a Message Batch (half the price, "
                         "results can take hours)?", default=True)


def _confirm(scope: Scope, config: Any) -> bool:
    """Ask before mining many uncached sessions; refuse without a TTY (PlanRefused)."""
    from learn.mining.cache import MineCache
    from learn.mining.plan import confirm_plan, plan_mining

    plan = plan_mining(scope.discover(), MineCache(), config.models.mine,
                       context_window=config.models.context_window)
    return confirm_plan(plan, False, confirm_above=config.mining.confirm_above)
