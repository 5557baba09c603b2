"""`learn run`: the main job, from the command line.

Exit codes: 0 ok (also when a malformed or cut answer was repaired by a retry);
1 partial failure (a session or a stage still failed after retries; stderr names
it, the rest is reported); 2 usage or configuration error (one line plus what to do);
3 the backend is unusable; 75 another run holds the lock.

`--exit-zero` is for Claude Code's /learn (learn/report/claude_command.md): Claude Code
2.1.332 drops a slash command whose `!` line exits non-zero, so a run with one failed
judge call (exit 1) lost the whole digest and the words typed after /learn, and the
person saw "Shell command failed" over a raw digest. With it, what failed is said on
stdout, in the digest's "What failed" (or a short digest of its own when the run could
not start), and the exit is 0; a plain `learn run` keeps its codes for scripts.

`--out` gets that short digest too when the run stops before its own (no key, the
endpoint refusing it, another run holding the lock, a key refused mid-run), whatever
`--exit-zero` says, and the exit code stays: the scheduled job (learn.report.schedule)
left no digest at all then, only a line in a log nobody reads, and the person saw the
weekly digest stop arriving with nothing saying why (audit60 F1). In that job
(LEARN_SCHEDULED_JOB set) a missing key's fix names the job's schedule.env: "export" it
where?
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import click

from learn.commands._scope import Scope, scope_options
from learn.visible import inert_json

BACKENDS = ("auto", "anthropic", "claude-cli", "openai", "replay")


class UsageProblem(click.ClickException):
    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"learn run: {self.format_message()}", err=True)


class OutRefused(UsageProblem):
    """`--out` names a file that is not the report's to write: nothing is written to it,
    not even the short digest of this failure."""


class BackendUnavailable(UsageProblem):
    """The endpoint or the login said no before anything was read (learn.errors.EXIT_UNAVAILABLE)."""

    exit_code = 3


def choose_backend_name(name: str) -> str:
    """`auto`: the API when a key is set, else the user's `claude` binary."""
    if name != "auto":
        return name
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if shutil.which("claude"):
        return "claude-cli"
    job = _job_env_file()
    if job is not None:
        raise UsageProblem(
            "no model backend available to the scheduled job: ANTHROPIC_API_KEY is not set "
            f"in it and no `claude` binary is on its PATH; fix: put ANTHROPIC_API_KEY=… in "
            f"{job} (chmod 600), or set [backend] claude_binary to the full path of `claude`")
    raise UsageProblem(
        "no model backend available: ANTHROPIC_API_KEY is not set and no `claude` binary is on "
        "PATH; fix: export ANTHROPIC_API_KEY=…, or install Claude Code and use --backend "
        "claude-cli, or run without a model: learn run --offline"
    )


def _job_env_file() -> Path | None:
    """The scheduled job's schedule.env when this run is that job (learn.report.schedule
    exports LEARN_SCHEDULED_JOB), else None."""
    from learn.report.schedule import SCHEDULED_ENV

    if not os.environ.get(SCHEDULED_ENV):
        return None
    from learn.paths import config_dir

    return config_dir() / "schedule.env"


# LEARN_PREFLIGHT_WAIT: seconds a run waits for an endpoint that does not answer at all
# (the scheduled job sets 600: a laptop's job runs at wake, before the network is up, and
# its preflight failed in 0.4 s with a week's digest lost; audit 60). 0: no wait.
PREFLIGHT_WAIT_ENV: Final = "LEARN_PREFLIGHT_WAIT"
_FIRST_PAUSE_S: Final = 10.0
_LONGEST_PAUSE_S: Final = 60.0


def _network_waited(ready: Any, name: str, config: Any) -> Any:
    """`ready`, or when nothing answered and LEARN_PREFLIGHT_WAIT allows, the check asked
    again with growing pauses until the endpoint answers or the wait is spent. An answer
    that says no (a refused key) is never waited on."""
    import time

    from learn.models.preflight import check_backend_ready
    from learn.redaction.redact import redact_message

    raw = os.environ.get(PREFLIGHT_WAIT_ENV, "").strip()
    if not raw:
        return ready
    try:
        budget = float(raw)
    except ValueError:
        raise UsageProblem(f"{PREFLIGHT_WAIT_ENV}={raw!r} is not a number of seconds") from None
    deadline = time.monotonic() + max(0.0, budget)
    pause = _FIRST_PAUSE_S
    while not ready.ok and ready.network and time.monotonic() + pause <= deadline:
        # The detail quotes the HTTP client's error, which can quote a header: the key.
        click.echo(redact_message(f"learn: {ready.detail}; asking again in {pause:.0f} s "
                                  f"({PREFLIGHT_WAIT_ENV})"), err=True)
        time.sleep(pause)
        pause = min(pause * 2, _LONGEST_PAUSE_S)
        ready = check_backend_ready(name, config)
    return ready


def build_backend(name: str, *, record: bool, cache_dir: Path | None, config: Any,
                  ready: Any = None) -> Any:
    """The backend `name`, after checking once that it can work at all (learn.models.preflight):
    a missing binary or a silent endpoint stops here with one line, before any session is read.
    `ready`: that check's answer when the caller has it already."""
    from learn.models.base import ModelError, report_waits
    from learn.models.preflight import anthropic_base_url, check_backend_ready
    from learn.models.ratelimit import limiter_for
    from learn.models.registry import get_backend
    from learn.redaction.redact import redact_message

    if ready is None:
        ready = check_backend_ready(name, config)
    ready = _network_waited(ready, name, config)
    if not ready.ok:
        line = ready.line()
        job = _job_env_file()
        if job is not None and name == "anthropic" and not os.environ.get("ANTHROPIC_API_KEY"):
            line = (f"{ready.detail} in the scheduled job; fix: put ANTHROPIC_API_KEY=sk-ant-… "
                    f"in {job} (chmod 600), or set [backend] name = \"claude-cli\" in the "
                    "config")
        # The line quotes the HTTP client's error, which can quote a header: the key.
        raise (BackendUnavailable if ready.problem == "unavailable" else UsageProblem)(
            redact_message(line))
    base_url = {"openai": config.backend.openai_base_url,
                "anthropic": anthropic_base_url(config, os.environ)}.get(name)
    try:
        backend = get_backend(
            name,
            cache_dir=cache_dir or config.backend.cache_dir,
            record=record,
            base_url=base_url,
            binary=config.backend.claude_binary,
            model=config.models.mine if name == "openai" else None,
            retry_seconds=config.backend.retry_seconds,
            limiter=limiter_for(name, in_flight=config.backend.in_flight,
                                requests_per_minute=config.backend.requests_per_minute),
        )
    except (ModelError, ValueError) as exc:
        raise UsageProblem(str(exc)) from exc
    # An overload waited out is said, whatever --quiet: a run that sits still
    # for minutes must say why (learn.models.retry.WaitNotice). Redacted: the reason
    # is the error's own message, and a proxy's 529 quoting the key put it on the
    # terminal whole (tests/test_network_audit_runs.py).
    report_waits(backend, lambda notice: click.echo(
        f"learn: {redact_message(notice.line())}", err=True))
    return backend


def _named(requested: str) -> tuple[str, UsageProblem | None]:
    """`choose_backend_name(requested)`, and for `auto` with neither a key nor `claude`
    (/learn runs `--backend auto`) the API's name with why it cannot be used: raised by
    `_backend_for_run` only when the run will call a model."""
    try:
        return choose_backend_name(requested), None
    except UsageProblem as exc:
        return "anthropic", exc


def _backend_for_run(name: str, *, record: bool, cache_dir: Path | None, config: Any,
                     calls_ahead: Callable[[], bool],
                     unavailable: UsageProblem | None = None) -> Any:
    """The run's backend: built now when it can be, or when the run will call it
    (`calls_ahead`: the check's one line then stops the run before any session is mined);
    else, when only the key is missing, made at its first call (learn.pipeline.deferred),
    so a run that calls nothing needs no key. Asked only when the key is missing: a run
    whose backend is ready pays nothing for the question, and a key or an endpoint that
    is wrong is said at once, as before (it is wrong for the next run too)."""
    from learn.models.preflight import check_backend_ready

    if unavailable is not None:
        if calls_ahead():
            raise unavailable
    else:
        ready = check_backend_ready(name, config)
        missing = name == "anthropic" and not os.environ.get("ANTHROPIC_API_KEY")
        if ready.ok or not missing or calls_ahead():
            return build_backend(name, record=record, cache_dir=cache_dir, config=config,
                                 ready=ready)
    from learn.pipeline.deferred import BackendNotReady, DeferredBackend

    def made_at_first_call() -> Any:
        if unavailable is not None:
            raise BackendNotReady(unavailable.format_message())
        try:
            return build_backend(name, record=record, cache_dir=cache_dir, config=config)
        except UsageProblem as exc:
            raise BackendNotReady(exc.format_message()) from None

    return DeferredBackend(name, made_at_first_call)


def _calls_ahead(scope: Scope, config: Any, options: Any) -> bool:
    """Whether the run will call the model before it judges: a session to mine, as the
    run reads them (`learn plan`'s plan: a program's session or a repeated prompt is not
    mined), or a Message Batch to collect. Naming and judging may still call it when
    mining does not (a verdict an earlier run did not get): those calls fail with the
    check's line, each stage says so, and the digest is still printed."""
    from learn.commands.plan import plan_as_a_run_reads
    from learn.store import open_store

    with open_store(local_only=True) as local:
        if local.batches.pending():
            return True
    try:
        plan, _, _ = plan_as_a_run_reads(scope, config,
                                         include_programmatic=options.include_programmatic)
    except ValueError:  # a window too small for any chunk: the run will say so
        return True
    # No session at all: nothing to give without the key, and its absence is the news (a
    # scheduled job's first night leaves the digest saying so).
    return bool(plan.to_mine) or not plan.sessions


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
@scope_options(configured=True)
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
@click.option("--embedder", type=click.Choice(["minilm", "tfidf"]), default="minilm", show_default=True,
              help="The local embedder that compares quotes: minilm (the bundled "
                   "sentence-embedding model) or tfidf (character n-grams, the fallback "
                   "when minilm cannot load).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the digest (or JSON with --json) to this file.")
@click.option("--batch", is_flag=True,
              help="Mine uncached sessions through Message Batches (anthropic; half the price, slower).")
@click.option("--no-batch", is_flag=True,
              help="Mine directly, however many sessions (also [mining] batch = \"never\").")
@click.option("--team", is_flag=True,
              help="Propose what several people shared for this repository (everything shared; [team] in the config).")
@click.option("--include-programmatic", is_flag=True,
              help="Also mine sessions a program started (SDK, scripted `claude -p`, plugins).")
@click.option("--exit-zero", is_flag=True,
              help="Exit 0 even when something failed, and say what failed on stdout, in the "
                   "digest (\"What failed\"). For Claude Code's /learn, which drops a command "
                   "whose shell line exits non-zero, digest and request with it.")
def command(scope: Scope, backend: str | None, model: str | None, offline: bool, dry_run: bool,
            yes: bool, show_all: bool, as_json: bool, quiet: bool, record: bool,
            cache_dir: Path | None, embedder: str, out: Path | None, team: bool,
            batch: bool, no_batch: bool, include_programmatic: bool, exit_zero: bool) -> None:
    """Mine your sessions and propose rules for CLAUDE.md / AGENTS.md.

    Reads the current project's sessions of the last 30 days (see --project,
    --all-projects, --since, --limit; [mining] since and limit in the config set
    the defaults), asks the model what you keep saying,
    verifies every quote, counts distinct sessions, and prints a digest.
    """
    if exit_zero and as_json:
        raise UsageProblem("--exit-zero says what failed in the digest; --json says it in "
                           "the JSON and keeps the exit code: choose one")
    try:
        code = run_command(scope, backend=backend, model=model, offline=offline,
                           dry_run=dry_run, yes=yes, show_all=show_all, as_json=as_json,
                           quiet=quiet, record=record, cache_dir=cache_dir, embedder=embedder,
                           out=out, team=team, batch=batch, no_batch=no_batch,
                           include_programmatic=include_programmatic, exit_zero=exit_zero)
    except click.ClickException as exc:
        from learn.mining.miner import RunStopped

        failed = not_run_digest(exc.format_message(), began=isinstance(exc, RunStopped))
        if out is not None and not isinstance(exc, OutRefused):
            _write_failure(out, failed)
        if not exit_zero:
            raise
        click.echo(failed)
        code = 0
    sys.exit(code)


def _write_failure(out: Path, text: str) -> None:
    """The short digest of a run that stopped, to `--out` (never a file check_out refuses:
    written through the same write_out); a failure to write it is said, not raised.

    Never over a digest: when `--out` already holds one (a file whose first line is not a
    stopped run's, learn.report.schedule.STOPPED_HEADS), the failure goes beside it, to
    `<stem>.failed<suffix>`, and stderr says where. The scheduled job writes each day to
    `digest-<date>.md`: a run that failed after a good one the same day (the job run again
    by hand, a second run after a wake) wrote its failure over that day's digest."""
    from learn.report.errors import ConfinementError
    from learn.report.out_file import write_out

    try:
        target = _failure_target(out)
        write_out(target, text)
    except (ConfinementError, OSError) as exc:
        click.echo(f"learn: --out: {exc}", err=True)
        return
    if target != out:
        click.echo(f"learn: --out: {out} holds a digest, left as it was; what failed is in "
                   f"{target}", err=True)


def _failure_target(out: Path) -> Path:
    """Where a stopped run's digest goes: `out`, unless `out` holds a digest (above)."""
    from learn.report.confine import read_regular
    from learn.report.schedule import STOPPED_HEADS

    held = read_regular(out)  # bounded, never blocking on a FIFO (ConfinementError)
    if not held or held.decode("utf-8", "replace").startswith(STOPPED_HEADS):
        return out
    # digest-<date>.md -> digest-<date>.failed.md (learn.report.schedule.FAILED_SUFFIX)
    return out.with_name(f"{out.stem}.failed{out.suffix}")


def not_run_digest(why: str, *, began: bool = False) -> str:
    """What `--exit-zero` prints on stdout when the run stopped before its digest (no
    backend, a usage problem, another run holding the lock): a digest of one failure,
    so /learn's model says it instead of Claude Code dropping the command."""
    from learn.redaction.redact import redact_message
    from learn.visible import visible

    line = visible(redact_message(why)).replace("\n", " ")
    # `began`: a key refused mid-run (learn.mining.miner.RunStopped) stopped a run that had
    # read sessions and mined some.
    head = ("learn run stopped before its digest: nothing was proposed." if began else
            "learn run could not run, so nothing was read or proposed.")
    return f"[learn-digest] {head}\n\n## What failed\n\n- {line}\n"


def run_command(scope: Scope, *, backend: str | None, model: str | None, offline: bool,
                dry_run: bool, yes: bool, show_all: bool, as_json: bool, quiet: bool,
                record: bool, cache_dir: Path | None, embedder: str, out: Path | None,
                team: bool = False, batch: bool = False, no_batch: bool = False,
                include_programmatic: bool = False, exit_zero: bool = False) -> int:
    """The run; its exit code (0 with `exit_zero` once something was said on stdout)."""
    code = _run(scope, backend=backend, model=model, offline=offline, dry_run=dry_run, yes=yes,
                show_all=show_all, as_json=as_json, quiet=quiet, record=record,
                cache_dir=cache_dir, embedder=embedder, out=out, team=team, batch=batch,
                no_batch=no_batch, include_programmatic=include_programmatic,
                exit_zero=exit_zero)
    return 0 if exit_zero else code


def _run(scope: Scope, *, backend: str | None, model: str | None, offline: bool,
         dry_run: bool, yes: bool, show_all: bool, as_json: bool, quiet: bool,
         record: bool, cache_dir: Path | None, embedder: str, out: Path | None,
         team: bool, batch: bool, no_batch: bool, include_programmatic: bool,
         exit_zero: bool) -> int:
    from learn.lock import LockedError, run_lock
    from learn.pipeline import RunOptions

    if batch and no_batch and not dry_run:
        raise UsageProblem("--batch and --no-batch contradict each other; choose one")
    if out is not None:
        _check_out(out)
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
    from learn.config_defaults import DEFAULT_BACKEND, defaults_apply

    if not (team or dry_run or model) and defaults_apply():
        # Nothing new since a run that left the store as it found it: that run's
        # result, from the store; no backend, no plan, no session read again, and
        # with nothing configured, not even the configuration's models built.
        from learn.pipeline.warm import config_key, unchanged

        name, _ = (None, None) if offline else _named(backend or DEFAULT_BACKEND)
        kept = unchanged(options, config_key(None), name or "offline")
        if kept is not None:
            return _unchanged(kept, quiet=quiet, as_json=as_json, out=out)
    from learn.config import ConfigError, load_config

    try:
        config = load_config()
    except ConfigError as exc:
        raise UsageProblem(f"invalid config: {exc}") from exc
    if model:
        from msgspec import structs

        config = structs.replace(config, models=structs.replace(
            config.models, mine=model, name=model, coverage=model, judge=model))
    if dry_run:
        from learn.commands.plan import print_plan

        print_plan(scope, config, as_json=as_json)
        return 0

    name, unavailable = (None, None) if offline else _named(backend or config.backend.name)
    if not team and (model or not defaults_apply()):
        from learn.pipeline.warm import config_key, unchanged

        kept = unchanged(options, config_key(config), name or "offline")
        if kept is not None:
            return _unchanged(kept, quiet=quiet, as_json=as_json, out=out)
    model_backend = None
    if name is not None:
        model_backend = _backend_for_run(
            name, record=record, cache_dir=cache_dir, config=config, unavailable=unavailable,
            calls_ahead=lambda: team or batch or _calls_ahead(scope, config, options))
        if batch and name != "anthropic":
            raise UsageProblem("--batch needs the anthropic backend (Message Batches are its API)")
        from learn.pipeline.deferred import DeferredBackend

        # Made at its first call: the plan found nothing to mine, so nothing to batch or
        # to ask about (the cheaper plan below counts a program's uncached sessions).
        planned = not isinstance(model_backend, DeferredBackend)
        may_batch = planned and not no_batch and config.mining.batch != "never"
        if not team and name == "anthropic" and not batch and may_batch:
            batch = _offer_batch(scope, config, yes)
            options = replace(options, batch=batch)
        if planned and not team and not yes and not batch and not _confirm(scope, config):
            click.echo("nothing mined (not confirmed)", err=True)
            return 0
    elif batch:
        raise UsageProblem("--batch needs a model (it is a way of calling one)")

    from learn.pipeline import run_pipeline

    bars = _Bars(enabled=not quiet and sys.stderr.isatty())
    try:
        # A team run writes only to the team's database: its own lock, so a team database
        # that stalls does not keep this person's own runs (the scheduled one) busy.
        with run_lock("team" if team else "run"), bars:
            if team:
                result = _team_result(scope, config, model_backend, embedder)
            else:
                result, _ = run_pipeline(
                    options, config, backend=model_backend, progress=bars,
                    notify=None if quiet else _say)
    except LockedError as exc:
        from learn.errors import EXIT_BUSY

        click.echo(f"learn: {exc}", err=True)
        if out is not None:
            _write_failure(out, not_run_digest(str(exc)))
        if exit_zero:
            click.echo(not_run_digest(str(exc)))
        return EXIT_BUSY
    return _report(result, as_json=as_json, out=out)


def _say(line: str) -> None:
    """A line of news from the pipeline, redacted: a batch notice quotes the API's error."""
    from learn.redaction.redact import redact_message

    click.echo(f"learn: {redact_message(line)}", err=True)


def _unchanged(result: Any, *, quiet: bool, as_json: bool, out: Path | None) -> int:
    if not quiet:
        click.echo(f"learn: nothing new since the run of {result.extra['unchanged_since']}: "
                   "its result, from the store (no session read again, no model called)", err=True)
    return _report(result, as_json=as_json, out=out)


def _report(result: Any, *, as_json: bool, out: Path | None) -> int:
    """Print the run's digest (or JSON), also to `out`; the exit code it earns."""
    if as_json:
        import json

        payload = result.to_json()
        if "unchanged_since" in result.extra:
            payload["unchanged_since"] = result.extra["unchanged_since"]
        text = inert_json(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        from learn.report.digest import render_digest_markdown

        text = render_digest_markdown(result)
    from learn.report.wrap import for_terminal

    click.echo(for_terminal(text, isatty=not as_json and sys.stdout.isatty()))
    if not as_json:
        _say_skipped(result)
    if out is not None:
        from learn.report.errors import ConfinementError
        from learn.report.out_file import write_out

        try:
            write_out(out, text + "\n")
        except (ConfinementError, OSError) as exc:
            click.echo(f"learn: --out: {exc}", err=True)
            return 1
    for line in collapse_failures(result.failures):
        click.echo(f"learn: {line}", err=True)
    if result.failed_stages:
        click.echo(f"learn: failed after retries: {', '.join(result.failed_stages)} "
                   "(what else the run found is reported above)", err=True)
    return 1 if result.failed_stages or result.usage.sessions_failed or result.coverage_failed else 0


def _say_skipped(result: Any) -> None:
    """What discovery left out, as `learn sessions` says it: a transcript it could not
    read was dropped without a word while the digest counted "3 of your last 3 sessions";
    and the lines of the sessions read that could not be read."""
    from learn.transcripts.files.skip_note import skipped_note

    note = skipped_note(result.extra.get("skipped") or {})
    if note:
        click.echo(click.style(f"Skipped: {note} (`learn sessions --json` lists each file "
                               "and why).", dim=True))
    # A malformed line is skipped and counted, its session's other lines read: said too, or
    # a run over a damaged transcript read as a whole one (crash audit 61 F3).
    lines, where = (result.extra.get("skipped_lines"),
                    result.extra.get("sessions_with_skipped_lines"))
    if isinstance(lines, int) and isinstance(where, int) and lines > 0:
        click.echo(click.style(
            f"Skipped: {lines} unreadable line{'s' if lines != 1 else ''} in {where} "
            f"session{'s' if where != 1 else ''}, the rest of each read (`learn sessions "
            "--json` counts them by session, `learn show ID` says why).", dim=True))


def _check_out(out: Path) -> None:
    """`--out` names a file of its own (learn.report.out_file), asked before the run."""
    from learn.report.errors import ConfinementError
    from learn.report.out_file import check_out

    try:
        check_out(out)
    except ConfinementError as exc:
        raise OutRefused(str(exc)) from exc


_SESSION_FAILURE = re.compile(r"^(?P<stage>\w+): session (?P<id>\S+): (?P<why>.*)$")


def collapse_failures(lines: Sequence[str]) -> list[str]:
    """One line per distinct reason: a backend that fails every call (a revoked login)
    said the same thing once per session, 19 lines in the measured home."""
    out: list[str] = []
    groups: dict[tuple[str, str], list[str]] = {}
    for line in lines:
        m = _SESSION_FAILURE.match(line)
        if m is None:
            out.append(line)
            continue
        key = (m["stage"], m["why"])
        if key not in groups:
            groups[key] = []
            out.append(line)  # the first of its kind keeps its place (and its session id)
        groups[key].append(m["id"])
    for (stage, why), ids in groups.items():
        if len(ids) > 1:
            first = f"{stage}: session {ids[0]}: {why}"
            out[out.index(first)] = f"{stage}: {len(ids)} sessions (first {ids[0]}): {why}"
    return out


def _team_result(scope: Scope, config: Any, model_backend: Any, embedder: str) -> Any:
    """`--team`: the repository's shared candidates across people (learn.reduce.team)."""
    from learn.projects import checkout_folder, repository_id_of
    from learn.reduce.team import run_team

    if not config.team.database_url:
        raise UsageProblem("--team needs [team] database_url in the config")
    root = checkout_folder(scope.project)  # the rules the repository holds are at its top
    remote = repository_id_of(root)
    if remote is None:
        raise UsageProblem(f"{root} has no git remote on a host: a team run groups by the "
                           "repository")
    from learn.store.pg_team import TeamAccessError

    try:
        return run_team(root, remote, config, backend=model_backend, embedder=embedder)
    except TeamAccessError as exc:
        raise UsageProblem(str(exc)) from exc


def _offer_batch(scope: Scope, config: Any, yes: bool) -> bool:
    """Above BATCH_ABOVE uncached sessions, batch them: `--yes` says so, a terminal is asked.

    Sessions already in a pending batch are not counted: the run collects them
    and must not offer (or announce) a batch for them again.
    """
    from learn.mining.batch import BATCH_ABOVE
    from learn.store import open_store

    plan = _plan(scope, config)
    with open_store(local_only=True) as local:
        table = local.batches
        in_flight = {i.cache_key for items in table.pending().values() for i in items}
    n = len(plan.to_mine)
    if in_flight:
        n = sum(1 for p in plan.to_mine if p.key not in in_flight)
    if n <= BATCH_ABOVE:
        return False
    if yes:
        click.echo(f"learn: {n} uncached sessions: mining them through a Message Batch at half the "
                   "price; this run waits for its results (interrupted, the next `learn run` "
                   "collects them; --no-batch mines directly)", err=True)
        return True
    if not sys.stdin.isatty():
        return False
    return click.confirm(f"{n} uncached sessions: send them as a Message Batch (half the price; "
                         "this run waits for the results, which can take hours)?", default=True)


def _confirm(scope: Scope, config: Any) -> bool:
    """Ask before mining many uncached sessions; refuse without a TTY (PlanRefused)."""
    from learn.mining.plan import confirm_plan

    return confirm_plan(_plan(scope, config), False, confirm_above=config.mining.confirm_above)


def _plan(scope: Scope, config: Any) -> Any:
    """What the run would mine (learn.mining.plan), through the session index: files
    found from the heads it keeps, and an unchanged file's cache key from the digest
    it keeps (size, mtime and inode as when it was read), not from hashing the file."""
    from learn.index.indexed import CachedHeads, same_file, stamp
    from learn.mining.indexed_cache import IndexedMineCache
    from learn.mining.plan import plan_mining
    from learn.store import open_store

    with open_store(local_only=True) as local:
        heads = CachedHeads(local.index)
        discovery = scope.scan(heads)
        files = discovery.files
        heads.save()
        rows = local.index.get_many([str(f.path) for f in files], views=False, texts=False)
    digests: dict[Path, str] = {}
    for f in files:
        row = rows.get(str(f.path))
        if row is not None and row.digest and same_file(row, stamp(f.path)):
            digests[f.path] = row.digest
    from learn.commands.plan import unreadable_skips

    return plan_mining(files, IndexedMineCache(digests), config.models.mine,
                       context_window=config.models.context_window,
                       unreadable=unreadable_skips(discovery))
