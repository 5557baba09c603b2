"""learn's own tables through the Store's parts: runs, sessions, candidates, labels, proposals, decisions, vector cache."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from learn.embed.tfidf import TfidfEmbedder
from learn.store import Store, open_store
from learn.store.label_tables import text_hash
from learn.store.scan_tables import CandidateRow, ScannedSession


@pytest.fixture
def store(store_target: Path | str) -> Iterator[Store]:
    with open_store(store_target) as s:
        yield s


def test_runs_keep_the_result_json(store: Store) -> None:
    rid = store.runs.start_run({"days": 7, "project": "/p"})
    assert store.runs.last_run() is None  # unfinished runs have nothing to re-render
    result = {"proposals": [{"label": "use-bun"}], "funnel": {"shown": 1}}
    store.runs.finish_run(rid, usage={"model_calls": 3}, result=result)
    run = store.runs.last_run()
    assert run is not None
    assert (run.id, run.args, run.usage, run.result) == (rid, {"days": 7, "project": "/p"},
                                                         {"model_calls": 3}, result)
    assert run.finished_at is not None
    with pytest.raises(KeyError):
        store.runs.finish_run(999, usage=None, result=None)


def test_sessions_scanned_upsert(store: Store) -> None:
    s = ScannedSession("s1", "claude", "/p", "/x.jsonl", "h1", "2026-01-01", 2, "now")
    store.scans.record_session(s)
    store.scans.record_session(ScannedSession("s1", "claude", "/p", "/x.jsonl", "h2", "2026-01-02", 3,
                                         "later"))
    got = store.scans.scanned_sessions()
    assert list(got) == ["s1"] and got["s1"].content_hash == "h2" and got["s1"].candidate_count == 3


def test_candidates_keep_their_labels_across_rescans(store: Store) -> None:
    rows = [CandidateRow("s1", "directive", "use bun"),
            CandidateRow("s1", "directive", "no mocks", payload={"rationale": "r"})]
    assert store.scans.replace_session_candidates("s1", rows) == 2
    stored = {c.text: c for c in store.scans.candidates()}
    rid = store.runs.start_run({})
    assert store.scans.set_labels({stored["use bun"].id: "use-bun"}, run_id=rid) == 1
    # the rescan drops "no mocks", keeps "use bun" (and its label), adds one
    assert store.scans.replace_session_candidates(
        "s1", [CandidateRow("s1", "directive", "use bun"), CandidateRow("s1", "fix", "pin node")]
    ) == 1
    after = {c.text: c for c in store.scans.candidates(session_ids=["s1"])}
    assert set(after) == {"use bun", "pin node"}
    assert after["use bun"].id == stored["use bun"].id
    assert (after["use bun"].label, after["use bun"].label_run) == ("use-bun", rid)
    assert store.scans.known_labels_by_text("directive") == {text_hash("use bun"): "use-bun"}
    assert [c.text for c in store.scans.candidates(kind="fix")] == ["pin node"]
    assert store.scans.candidates(session_ids=[]) == []
    with pytest.raises(ValueError):
        store.scans.replace_session_candidates("s2", rows)


def test_nearest_labels_filters_by_kind_and_space(store: Store) -> None:
    emb = TfidfEmbedder()
    names = {"use-bun-not-npm": "use bun instead of npm for packages",
             "real-db-in-tests": "do not mock the database in tests",
             "ask-before-delete": "ask before deleting files"}
    vecs = emb.embed(list(names.values()))
    for (label, text), v in zip(names.items(), vecs, strict=True):
        store.labels.put_label(label, "directive", v, space=emb.name, text=text)
    store.labels.put_label("use-bun-not-npm", "fix", vecs[0], space=emb.name)
    q = emb.embed(["please install packages with bun, never npm"])[0]
    hits = store.labels.nearest_labels(q, "directive", 2, space=emb.name)
    assert hits[0][0] == "use-bun-not-npm"
    assert len(hits) == 2 and hits[0][1] < hits[1][1]
    assert [label for label, _ in store.labels.nearest_labels(q, "fix", 5, space=emb.name)] == [
        "use-bun-not-npm"]
    assert store.labels.nearest_labels(q, "directive", 3, space="other-space") == []
    # another example of a label makes it findable by that wording too; each label
    # is reported once, at the distance of its nearest example
    store.labels.put_label("ask-before-delete", "directive", q, space=emb.name)
    store.labels.put_label("ask-before-delete", "directive", q, space=emb.name)  # stored once
    top = store.labels.nearest_labels(q, "directive", 3, space=emb.name)
    assert top[0][0] == "ask-before-delete" and top[0][1] == pytest.approx(0.0, abs=1e-5)
    assert sorted(label for label, _ in top) == sorted(names)
    assert store.ledger.sql("SELECT COUNT(*) AS n FROM label_examples") == [{"n": 5}]
    assert ("ask-before-delete", "directive") in store.labels.labels()


def test_proposals_remember_when_and_what_was_shown(store: Store) -> None:
    assert store.shown.shown("directive:use-bun") is None
    store.shown.mark_shown("directive:use-bun", last_occurrence="2026-01-05", text="Use bun",
                      verdict={"accepted": True}, at="2026-01-06")
    store.shown.mark_shown("directive:use-bun", last_occurrence="2026-02-01", covered=True,
                      text="Use bun", at="2026-02-02")
    sp = store.shown.shown("directive:use-bun")
    assert sp is not None
    assert (sp.first_shown_at, sp.last_shown_at, sp.last_occurrence, sp.covered_when_shown,
            sp.shown_count, sp.verdict) == ("2026-01-06", "2026-02-02", "2026-02-01", True, 2, None)
    assert list(store.shown.shown_all()) == ["directive:use-bun"]


def test_decisions(store: Store) -> None:
    store.shown.record_decision("directive:use-bun", "accepted", text="Use bun",
                           target_file="/p/CLAUDE.md", at="t1")
    store.shown.record_decision("directive:x", "dismissed", at="t2")
    assert [d.decision for d in store.shown.decisions()] == ["accepted", "dismissed"]
    assert store.shown.decisions("directive:use-bun")[0].target_file == "/p/CLAUDE.md"
    with pytest.raises(ValueError):
        store.shown.record_decision("k", "maybe", at="t")  # type: ignore[arg-type]


class CountingEmbedder:
    name = "counting@1"
    dim = 4

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls.append(list(texts))
        out = np.array([[len(t), 1.0, 0.0, 0.0] for t in texts], dtype=np.float32)
        result: npt.NDArray[np.float32] = out / np.linalg.norm(out, axis=1, keepdims=True)
        return result


def test_embedding_cache_reuses_vectors(store: Store) -> None:
    emb = CountingEmbedder()
    first = store.labels.embed_cached(emb, ["a", "bb", "a"])
    second = store.labels.embed_cached(emb, ["bb", "ccc"])
    assert emb.calls == [["a", "bb", "a"], ["ccc"]]
    np.testing.assert_allclose(first[1], second[0])
    np.testing.assert_allclose(first[0], first[2])
    got = store.labels.cached_vectors("counting@1", [text_hash("a"), text_hash("zzz")])
    assert list(got) == [text_hash("a")] and got[text_hash("a")].dtype == np.float32
    assert store.labels.cached_vectors("other@1", [text_hash("a")]) == {}
    assert store.labels.put_vectors("counting@1", {text_hash("a"): np.zeros(4, np.float32)}) == 1
    np.testing.assert_array_equal(store.labels.cached_vectors("counting@1", [text_hash("a")])[
        text_hash("a")], np.zeros(4))


def test_tables_join_an_open_transaction(store: Store) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        store.runs.start_run({})
        store.shown.record_decision("k", "accepted", at="t")
        raise RuntimeError("abort")
    assert store.runs.last_run(finished=False) is None
    assert store.shown.decisions() == []


def test_one_store_reaches_every_part_and_local_only_opens_only_this_machines(
    tmp_path: Path,
) -> None:
    from learn.store import ReadOnlyStoreError, StoreError
    from learn.store.mine_batches import BatchItem

    db = tmp_path / "learn.db"
    with open_store(db) as store:
        rid = store.runs.start_run({})
        store.batches.record([BatchItem("b1", "c1", "s1", "k1", 0)])
        assert store.index.count() == 0
    with open_store(db, readonly=True) as store:
        assert store.runs.count() == 1 and store.runs.get_run(rid) is not None
        with pytest.raises(ReadOnlyStoreError):
            store.runs.start_run({})
    with open_store(db, local_only=True) as local:
        assert list(local.batches.pending()) == ["b1"]
        with pytest.raises(StoreError, match="local_only"):
            local.runs.count()
    closed = open_store(db, local_only=True)
    index = closed.index
    closed.close()
    import apsw

    with pytest.raises(apsw.ConnectionClosedError):  # the index's connection went with it
        index.count()
