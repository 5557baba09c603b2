"""`learn batches`: the Message Batches this machine submitted and not yet collected.

Read and ask only: collecting a batch needs the sessions it mined (to verify
each quote against what was typed), so the next `learn run` collects it.
"""

from __future__ import annotations

import sys

import click


@click.command(name="batches")
def command() -> None:
    """List pending Message Batches and how far each has got."""
    from learn.commands.run import build_backend
    from learn.config import load_config
    from learn.models.base import ModelError
    from learn.models.batches import batch_client, status
    from learn.store.mine_batches import open_batch_table

    with open_batch_table() as table:
        pending = table.pending()
    if not pending:
        click.echo("no pending batches")
        return
    client = batch_client(build_backend("anthropic", record=False, cache_dir=None,
                                        config=load_config()))
    for batch_id, items in pending.items():
        sessions = len({i.cache_key for i in items})
        try:
            st = status(client, batch_id)
        except ModelError as exc:
            click.echo(f"{batch_id}: {sessions} sessions, {len(items)} requests: {exc}")
            continue
        state = "ended" if st.ended else "in progress"
        counts = ", ".join(f"{k} {v}" for k, v in st.counts.items() if v)
        click.echo(f"{batch_id}: {sessions} sessions, {len(items)} requests, {state} ({counts})")
    click.echo("`learn run` collects ended batches (and waits for the others).")
    sys.exit(0)
