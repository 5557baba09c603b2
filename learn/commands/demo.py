"""`learn demo`: the whole pipeline on the bundled demo corpus, with no key.

The corpus (eight sessions in three projects, written for the purpose) is built
into a temporary HOME, and the model's answers come from recorded fixtures in
cache/ (the replay backend), so the demo is free, offline and deterministic.
Those answers are fixtures that stand in for a model, not a model's live output;
`learn eval --live` measures a real one.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import click


@click.command("demo")
@click.option("--json", "as_json", is_flag=True, help="Print the run's JSON instead of the digest.")
@click.option("--keep", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Build the demo corpus here and keep it (to look at the transcripts).")
@click.option("--offline", is_flag=True, help="No model answers at all: detectors only.")
def command(as_json: bool, keep: Path | None, offline: bool) -> None:
    """Run learn end to end on the bundled demo corpus (recorded model answers)."""
    from learn._repo import repo_root

    root = repo_root()
    from evals.corpora.demo import build
    from evals.run import isolated_home
    from learn.config import load_config
    from learn.models.replay import ReplayBackend
    from learn.pipeline import RunOptions, run_pipeline
    from learn.report.digest import render_digest_markdown

    with tempfile.TemporaryDirectory(prefix="learn-demo-") as tmp:
        base = keep if keep is not None else Path(tmp)
        build(base)
        with isolated_home(base):
            config = load_config()
            backend = None if offline else ReplayBackend(root / "cache")
            options = RunOptions(all_projects=True, since=None, show_all=True, offline=offline)
            result, _ = run_pipeline(options, config, backend=backend)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(render_digest_markdown(result))
        click.echo(
            "\n(demo: the model answers above are recorded fixtures from cache/, "
            "not a live model; see README \"Measuring quality\")",
            err=True,
        )
    sys.exit(1 if result.usage.sessions_failed else 0)
