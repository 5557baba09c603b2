"""`learn batches`: the Message Batches this machine submitted and not yet collected.

Lists each pending batch and how far it has got. `--collect` collects them
now: it waits for those still in progress (polling as `learn run` does),
verifies every answer against the sessions it mined and caches it, so the
next `learn run` reads them without a call. Sessions whose items errored,
expired or were canceled are left to the next run, which mines them directly.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from learn.config import Config
    from learn.models.base import Backend


@click.command(name="batches")
@click.option("--collect", is_flag=True,
              help="Collect pending batches now (waits for those in progress) into the mining cache.")
def command(collect: bool) -> None:
    """List pending Message Batches and how far each has got; --collect collects them."""
    from learn.commands.run import build_backend
    from learn.config import load_config
    from learn.models.base import ModelError
    from learn.models.batches import batch_backend, status
    from learn.redaction.redact import redact_message
    from learn.store import open_store

    with open_store(local_only=True) as local:
        table = local.batches
        pending = table.pending()
    if not pending:
        click.echo("no pending batches")
        return
    config = load_config()
    backend = build_backend("anthropic", record=False, cache_dir=None, config=config)
    if collect:
        sys.exit(_collect(backend, config))
    api = batch_backend(backend)
    for batch_id, items in pending.items():
        sessions = len({i.cache_key for i in items})
        try:
            st = status(api, batch_id)
        except ModelError as exc:
            # The API's error, redacted: an error can quote what the request carried.
            click.echo(f"{batch_id}: {sessions} sessions, {len(items)} requests: "
                       f"{redact_message(str(exc))}")
            continue
        state = "ended" if st.ended else "in progress"
        counts = ", ".join(f"{k} {v}" for k, v in st.counts.items() if v)
        click.echo(f"{batch_id}: {sessions} sessions, {len(items)} requests, {state} ({counts})")
    click.echo("`learn batches --collect` collects them now; the next `learn run` also does "
               "(it waits for those in progress).")
    sys.exit(0)


def _collect(backend: Backend, config: Config) -> int:
    """Collect every pending batch over all projects' sessions; 1 when a call still failed."""
    from learn.lock import LockedError, run_lock
    from learn.pipeline import RunOptions, run_pipeline
    from learn.redaction.redact import redact_message

    options = RunOptions(all_projects=True, collect_only=True)
    try:
        with run_lock():
            result, _ = run_pipeline(options, config, backend=backend,
                                     notify=lambda line: click.echo(
                                         f"learn: {redact_message(line)}", err=True))
    except LockedError as exc:
        from learn.errors import EXIT_BUSY

        click.echo(f"learn: {exc}", err=True)
        return EXIT_BUSY
    collected = result.extra.get("collected") or []
    retry = int(result.extra.get("retry_sessions") or 0)
    click.echo(f"collected {len(collected)} batch(es): {result.usage.sessions_mined} sessions "
               f"mined and cached (${result.usage.cost_usd:.4f} at the batch price)"
               + (f"; {retry} session(s) whose items failed are mined directly by the next "
                  "`learn run`" if retry else ""))
    for line in result.failures:  # not through judge_and_store, which redacts a run's
        click.echo(f"learn: {redact_message(line)}", err=True)
    return 1 if result.failed_stages else 0
