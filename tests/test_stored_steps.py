"""What a run keeps in the store (learn.pipeline.stored, learn.reduce.stored: the scan,
labels, learn.reduce's protocols, the run) and the surfaces' run hooks, on a real
database (a SQLite file and a PostgreSQL database)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from learn.embed.tfidf import TfidfEmbedder
from learn.pipeline.stored import record_scan, remember_labels, stored_candidates
from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage, Verdict
from learn.reduce.naming import NamingResult, NamingStats
from learn.reduce.stored import (
    CachedEmbedder,
    StoreLabelIndex,
    StoreShownState,
    StoreVerdictMemory,
    record_run,
)
from learn.store import open_store
from learn.store.runs import default_store_path, load_latest_run, record_decision


@dataclass(frozen=True)
class FakeSession:
    id: str
    path: Path | None


def _verdict(summary: str, key: str | None, accepted: bool = True) -> Verdict:
    return Verdict(accepted=accepted, summary=summary, category="tooling", scope="project",
                   confidence=0.8, rationale="r", canonical_key=key, model="m")


def _result() -> RunResult:
    p = Proposal(
        kind="directive", label="use-bun", text="use bun, not npm", sessions=2, count=3,
        last_seen="2026-01-03T00:00:00+00:00",
        quotes=(Quote("s1", "use bun, not npm", "2026-01-02T00:00:00+00:00", project="/p"),),
        intervening_commands=("npm i",), verdict=_verdict("Use bun.", "use-bun"),
    )
    q = Proposal(kind="request", label="write-changelog", text="update the changelog",
                 sessions=3, count=3, last_seen=None, quotes=(), status="restated",
                 verdict=_verdict("Update the changelog.", "write-changelog"))
    return RunResult(proposals=(p, q), funnel=Funnel(candidates=5, shown=2),
                     usage=RunUsage(model_calls=4, cost_usd=0.01), window_start="a",
                     window_end="b", projects=("/p",), extra={"naming": {"calls": 1}},
                     failed_stages=("name",), verification={"kept": 2, "paraphrase": 1})


def test_scan_labels_and_run_round_trip(tmp_path: Path, store_target: Path | str) -> None:
    transcript = tmp_path / "s1.jsonl"
    transcript.write_text('{"type": "user"}\n')
    cands = (MinedCandidate("directive", "use bun, not npm"),
             MinedCandidate("fix", "pin node", command="nvm use 20", source="miner"))
    sc = [SessionCandidates("s1", "claude", "/p", "2026-01-02T00:00:00+00:00", cands)]
    emb = TfidfEmbedder()
    db = store_target
    with open_store(db) as ls:
        record_scan(ls, [FakeSession("s1", transcript)], sc)  # type: ignore[list-item]
        record_scan(ls, [FakeSession("s1", transcript)], sc)  # type: ignore[list-item]
        scanned = ls.scans.scanned_sessions()["s1"]
        assert scanned.candidate_count == 2 and len(scanned.content_hash) == 64
        stored = ls.scans.candidates()
        assert [c.text for c in stored] == ["use bun, not npm", "pin node"]
        assert stored[1].payload is not None and stored[1].payload["command"] == "nvm use 20"

        cached = CachedEmbedder(emb, ls)
        assert (cached.name, cached.dim) == (emb.name, emb.dim)
        vecs = cached.embed([c.text for c in cands])
        np.testing.assert_array_equal(vecs, emb.embed([c.text for c in cands]))
        assert len(ls.labels.cached_vectors(emb.name, [])) == 0
        assert ls.ledger.sql("SELECT COUNT(*) AS n FROM embedding_cache") == [{"n": 2}]

        naming = NamingResult(
            labels=("use-bun", "pin-node-version"), stats=NamingStats(),
            examples=(("directive", "use-bun", vecs[0]), ("fix", "pin-node-version", vecs[1])),
        )
        remember_labels(ls, ls.runs.start_run({}), naming, sc, cached)
        assert [c.label for c in ls.scans.candidates()] == ["use-bun", "pin-node-version"]
        index = StoreLabelIndex(ls, cached.name)
        assert index.nearest(vecs[0], "directive", 3)[0][0] == "use-bun"
        assert index.nearest(vecs[0], "request", 3) == []
        assert index.labels("fix") == {"pin-node-version"}

        assert StoreShownState(ls).get("directive:use-bun") is None
        result = _result()
        record_run(ls, result)
        rec = StoreShownState(ls).get("directive:use-bun")
        assert rec is not None and rec.shown_at == "2026-01-03T00:00:00+00:00" and not rec.covered
        rec2 = StoreShownState(ls).get("request:write-changelog")
        assert rec2 is not None and rec2.covered and rec2.last_seen is None

    assert load_latest_run(None, path=db) == result
    assert load_latest_run(datetime.now(UTC) + timedelta(days=1), path=db) is None
    assert load_latest_run(datetime.now(UTC) - timedelta(days=1), path=db) == result
    assert load_latest_run(None, path=tmp_path / "absent.db") is None


def test_record_run_without_shown(store_target: Path | str) -> None:
    with open_store(store_target) as ls:
        record_run(ls, _result(), remember_shown=False)
        assert StoreShownState(ls).get("directive:use-bun") is None
        assert ls.runs.last_run() is not None


def test_hooks_use_the_database_url_when_configured(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEARN_DATABASE_URL", pg_url)
    record_decision("directive:use-bun", "accepted", "Use bun.", "/p/CLAUDE.md")
    assert not default_store_path().exists()  # nothing written to the local file
    with open_store() as ls:
        assert ls.backend == "postgresql"
        assert [d.key for d in ls.shown.decisions()] == ["directive:use-bun"]
        record_run(ls, _result())
    assert load_latest_run(None) == _result()


def test_hooks_use_the_default_store() -> None:
    record_decision("directive:use-bun", "accepted", "Use bun.", "/p/CLAUDE.md")
    assert default_store_path().is_file()
    with open_store() as ls:
        (d,) = ls.shown.decisions()
        assert (d.key, d.decision, d.target_file) == ("directive:use-bun", "accepted",
                                                      "/p/CLAUDE.md")
    assert load_latest_run(None) is None


def test_verdict_memory(store_target: Path | str) -> None:
    emb = TfidfEmbedder()
    v = emb.embed(["use bun, not npm", "use bun instead of npm please", "keep answers short"])
    with open_store(store_target) as ls:
        mem = StoreVerdictMemory(ls, emb.name)
        assert mem.get("directive:use-bun", "judge", 1) is None
        mem.record("directive:use-bun", "judge", 1, _verdict("Use bun.", "use-bun"), v[0])
        mem.record("directive:use-bun", "judge", 1, _verdict("Other.", "x"), v[0])  # no-op
        got = mem.get("directive:use-bun", "judge", 1)
        assert got == _verdict("Use bun.", "use-bun")
        mem.record("directive:be-brief", "judge", 1, _verdict("Be brief.", None), v[2])

        near = mem.nearest_verdict
        # by canonical key, any distance
        assert near(v[2], "use-bun", role="judge", prompt_version=1, max_distance=0.0) == got
        # by distance, within reach, same kind only
        assert near(v[1], None, role="judge", prompt_version=1, max_distance=0.9,
                    kind="directive") == got
        assert near(v[1], None, role="judge", prompt_version=1, max_distance=0.9,
                    kind="request") is None
        assert near(v[1], None, role="judge", prompt_version=1, max_distance=0.01) is None
        assert near(v[1], None, role="judge", prompt_version=2, max_distance=0.9) is None
        # a verdict without canonical_key keeps no evidence, so distance never finds it
        assert near(v[2], None, role="judge", prompt_version=1, max_distance=0.05) is None
        assert mem.get("directive:be-brief", "judge", 1) == _verdict("Be brief.", None)


def test_verdict_memory_joins_an_open_transaction(store_target: Path | str) -> None:
    emb = TfidfEmbedder()
    with open_store(store_target) as ls:
        mem = StoreVerdictMemory(ls, emb.name)
        with pytest.raises(RuntimeError), ls.transaction():
            mem.record("directive:a", "judge", 1, _verdict("A.", "a"), emb.embed(["a"])[0])
            raise RuntimeError("abort")
        assert mem.get("directive:a", "judge", 1) is None


def test_dismissed_item_is_held_back_until_said_again_after_the_dismissal(
    store_target: Path | str,
) -> None:
    from learn.reduce.suppress import is_held_back

    db = store_target
    with open_store(db) as store:
        record_run(store, _result())  # shows directive:use-bun (last occurrence 2026-01-03)
        state = StoreShownState(store)
        p = _result().proposals[0]
        assert is_held_back(p, state)
        said_again = Proposal(**{**{f: getattr(p, f) for f in p.__dataclass_fields__},
                                 "last_seen": "2026-01-05T00:00:00+00:00"})
        assert not is_held_back(said_again, state)  # plain suppression: said again since shown

        store.shown.record_decision(p.key, "dismissed", text=p.text, at="2026-01-10T00:00:00+00:00")
        assert is_held_back(said_again, state)  # dismissed after that occurrence: stays back
        later = Proposal(**{**{f: getattr(p, f) for f in p.__dataclass_fields__},
                            "last_seen": "2026-01-11T00:00:00+00:00"})
        assert not is_held_back(later, state)  # said again after the dismissal: back

        # A key dismissed without ever having been shown is held back too.
        store.shown.record_decision("fix:never-shown", "dismissed", at="2026-01-10T00:00:00+00:00")
        assert state.get("fix:never-shown") is not None


def test_proposals_never_judged_are_not_marked_shown_unless_the_run_was_offline(
    tmp_path: Path,
) -> None:
    judged, unjudged = _result().proposals
    unjudged = dataclasses.replace(unjudged, verdict=None)
    run = dataclasses.replace(_result(), proposals=(judged, unjudged))
    with open_store(tmp_path / "a.db") as ls:
        record_run(ls, run)
        assert StoreShownState(ls).get(judged.key) is not None
        # The judge failed on it: next run must judge and show it, not hold it back.
        assert StoreShownState(ls).get(unjudged.key) is None
    with open_store(tmp_path / "b.db") as ls:
        record_run(ls, dataclasses.replace(run, offline=True))  # no judge exists offline
        assert StoreShownState(ls).get(unjudged.key) is not None


def test_stored_candidates_come_back_as_the_model_found_them(tmp_path: Path) -> None:
    transcript = tmp_path / "s1.jsonl"
    transcript.write_text("{}\n")
    fix = MinedCandidate("fix", "pin node", command="nvm use 20", intervening_commands=("nvm i",))
    detected = MinedCandidate("directive", "leave generated files alone", source="denial")
    sc = [SessionCandidates("s1", "claude", "/p", None, (MinedCandidate("directive", "use bun here"),
                                                           fix, detected))]
    with open_store(tmp_path / "l.db") as ls:
        record_scan(ls, [FakeSession("s1", transcript)], sc)  # type: ignore[list-item]
        stored = stored_candidates(ls, ["s1", "s2"])
    # Detector finds are re-derived every run; only the model's are carried forward.
    assert stored == {"s1": (MinedCandidate("directive", "use bun here"), fix)}
