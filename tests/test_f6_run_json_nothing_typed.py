"""`learn run --json` accounts for every session read, as the digest's totals do.

The digest says "nothing typed to count: 4 (3 only a repeated prompt, 1 none typed)"
beside the sessions read by the model, from cache and failed
(tests/test_f4_warm_run_needs_no_key.py); the JSON had only `usage`, whose mined, cached
and failed added up to 4 of the 8 sessions read, and nothing said what the other 4
were. It carries `nothing_typed` (`repeated`, `none`) and `in_batch` now; a run's JSON
from before them still loads (`nothing_typed` null: not recorded).

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import json
from pathlib import Path

from fakes.anthropic_server import FakeAnthropicServer
from test_f4_warm_run_needs_no_key import _env, _learn, _uv_miner, codex_home

from learn.records.proposal import Funnel, RunResult, RunUsage
from learn.report.digest import render_digest_markdown
from learn.store.run_json import result_from_full_json, result_to_full_json


def _run(sessions_seen: int = 8, **extra: object) -> RunResult:
    return RunResult((), Funnel(), RunUsage(sessions_seen=sessions_seen, sessions_cached=4),
                     extra=dict(extra))


def test_the_run_json_says_what_the_sessions_not_counted_were(tmp_path: Path) -> None:
    project = codex_home(tmp_path)
    args = ["run", "--since", "2026-01-01", "--yes", "--quiet", "--json"]
    with FakeAnthropicServer(responder=_uv_miner) as fake:
        first = json.loads(_learn(args, _env(tmp_path, fake), project).stdout)
        warm = json.loads(_learn(args, _env(tmp_path, fake), project).stdout)
    # The stored run, read back (`learn digest --json` is the same JSON).
    stored = json.loads(_learn(["digest", "--json"], _env(tmp_path), project).stdout)
    for data in (first, warm, stored):
        assert data["nothing_typed"] == {"repeated": 3, "none": 1}
        assert data["in_batch"] == 0
        u = data["usage"]
        assert (u["sessions_mined"] + u["sessions_cached"] + u["sessions_failed"]
                + sum(data["nothing_typed"].values()) + data["in_batch"]) == u["sessions_seen"] == 8
    assert warm["usage"]["sessions_cached"] == 4


def test_the_breakdown_reads_back_from_the_json_and_the_stored_run() -> None:
    run = _run(nothing_typed={"repeated": 3, "none": 1}, in_batch=0)
    data = run.to_json()
    assert (data["nothing_typed"], data["in_batch"]) == ({"repeated": 3, "none": 1}, 0)
    tail = "; nothing typed to count: 4 (3 only a repeated prompt, 1 none typed)."
    for back in (RunResult.from_json(data), result_from_full_json(result_to_full_json(run))):
        assert back.to_json()["nothing_typed"] == {"repeated": 3, "none": 1}
        assert tail in render_digest_markdown(back)


def test_a_run_stored_before_the_breakdown_still_loads_and_says_null() -> None:
    old = _run(sessions_seen=6).to_json()
    for name in ("nothing_typed", "in_batch"):
        del old[name]
    back = RunResult.from_json(old)
    assert back.to_json()["nothing_typed"] is None and back.to_json()["in_batch"] == 0
    # What the digest could say of it before: how many, not why.
    assert "; nothing typed to count: 2." in render_digest_markdown(back)
    full = result_to_full_json(_run(sessions_seen=6))
    assert result_from_full_json(full).to_json()["nothing_typed"] is None


def test_a_malformed_breakdown_is_read_as_counts_or_nothing() -> None:
    assert _run(nothing_typed={"repeated": "3", "none": -1}).to_json()["nothing_typed"] == {
        "repeated": 0, "none": 0}
    assert _run(nothing_typed=[3, 1]).to_json()["nothing_typed"] is None
    assert RunResult.from_json({"nothing_typed": "3"}).to_json()["nothing_typed"] is None
