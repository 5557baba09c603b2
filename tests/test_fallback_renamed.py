"""The run after a failed naming renames every pending proposal the fallback named.

A run whose naming calls all failed groups near-identical quotes under a fallback
label and, judged, records them pending under that label (`fix:pytest-q` in the
report). The next run names them properly; the fallback-named row must give way
to the model's name, or the point stays pending twice (or held back "shown
before" under the old name). The real CLI twice against the fake Messages server:
naming answers HTTP 500 in the first run (given up in seconds, not the budget),
works in the second.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fakes.anthropic_server import FakeAnthropicServer, RecordedRequest, items_in
from fakes.http_server import Reply

from evals.builder import ClaudeSession, session_id
from learn.models.retry import MAX_SAME_FAILURES
from learn.store import open_store

REPO = Path(__file__).resolve().parents[1]
SAID = "always run pytest -q before you push"
MODEL_LABEL = "run-pytest-quietly-before-push"


class Model(FakeAnthropicServer):
    naming_fails = True

    def default_reply(self, request: RecordedRequest) -> Reply:
        if request.tool_name == "assign_labels" and self.naming_fails:
            return self.error_reply(500, message="Internal server error")
        return super().default_reply(request)


def answer(request: RecordedRequest) -> dict[str, Any]:
    tool = request.tool_name
    items = items_in(request.user_text)
    if tool == "record_candidates":
        found = SAID in request.user_text
        return {"candidates": [{"kind": "directive", "text": SAID}] if found else []}
    if tool == "assign_labels":
        return {"labels": [{"id": i, "label": MODEL_LABEL} for i, _, _ in items]}
    if tool == "check_coverage":
        return {"verdicts": [{"id": i, "verdict": "new"} for i, _, _ in items]}
    return {"verdicts": [{"id": i, "accepted": True, "category": "testing", "scope": "project",
                          "confidence": 0.9, "summary": "Run pytest -q before you push.",
                          "rationale": "said in two sessions"} for i, _, _ in items]}


def test_the_next_good_run_renames_what_the_fallback_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "code" / "app"
    project.mkdir(parents=True)
    for k, then in enumerate(("and fix the flaky test", "the release is today")):
        s = ClaudeSession(session_id(f"rename-{k}"), str(project), datetime(2026, 11, 3 + k, 9, tzinfo=UTC))
        s.user(f"{SAID}, {then}")
        s.assistant("ok")
        s.write(home / ".claude")
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text("[backend]\nretry_seconds = 3\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(home), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(config),
               PYTHONPATH=str(REPO), ANTHROPIC_API_KEY="k")

    def run(fake: Model) -> tuple[int, dict[str, Any]]:
        done = subprocess.run([sys.executable, "-m", "learn", "run", "--since", "2026-01-01",
                               "--yes", "--quiet", "--json"], cwd=project,
                              env={**env, "ANTHROPIC_BASE_URL": fake.base_url},
                              capture_output=True, text=True, timeout=300)
        return done.returncode, json.loads(done.stdout)

    with Model(responder=answer) as fake:
        code, failed = run(fake)
        naming = [r for r in fake.requests if r.tool_name == "assign_labels"]
        assert code == 1 and "name" in failed["failed_stages"]
        [first] = failed["proposals"]
        old = f"{first['kind']}:{first['label']}"
        assert first["label"] != MODEL_LABEL and first["sessions"] == 2
        # A few tries, not a retry storm (the budget is 3 s here to keep the test short;
        # giving up on the same failure before a long budget ends is test_models_retry's).
        assert 1 <= len(naming) <= MAX_SAME_FAILURES, len(naming)
        fake.naming_fails = False
        code, good = run(fake)
        assert code == 0, good.get("failures")
    assert [f"{p['kind']}:{p['label']}" for p in good["proposals"]] == [f"directive:{MODEL_LABEL}"]
    with open_store(tmp_path / "data" / "learn.db") as store:
        rows = {r.key: r for r in store.proposals.rows()}
    assert rows[f"directive:{MODEL_LABEL}"].state == "pending"
    assert rows[old].state == "superseded" and rows[old].superseded_by == f"directive:{MODEL_LABEL}"


def test_only_fallback_named_rows_are_renamed_to_the_holder_of_most_of_their_quotes() -> None:
    from learn.records.proposal import Proposal, Quote
    from learn.reduce.renames import fallback_renames

    def p(label: str, *quotes: tuple[str, str]) -> Proposal:
        qs = tuple(Quote(session_id=s, text=t, at=None) for s, t in quotes)
        return Proposal(kind="directive", label=label, text=qs[0].text, sessions=len(qs),
                        count=len(qs), last_seen=None, quotes=qs)

    model = {"use-bun", "no-mocks", "keep-docs-short"}
    now = [p("use-bun", ("s1", "Use bun"), ("s2", "use  bun")), p("no-mocks", ("s3", "no mocks"))]
    pending = [("/a", p("use-bun-x", ("s1", "use bun"), ("s2", "use bun"), ("s3", "no mocks"))),
               ("/a", p("keep-docs-short", ("s1", "use bun"))),  # a model's: stays
               ("/b", p("fallback-alone", ("s9", "something else")))]  # not grouped now: stays
    assert fallback_renames(pending, now, model_made=lambda kind, label: label in model) == [
        ("/a", "directive:use-bun-x", "directive:use-bun")]
