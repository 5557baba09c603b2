"""A team run over a few hundred shared candidates on a real PostgreSQL: its known-label
lookups are pgvector KNN queries in the database (never a Python scan of every label),
each distinct text is embedded once however many people said it, and the labels it
learns are written in one transaction. The model is the gold oracle behind the fake
Messages server on 127.0.0.1 (what benchmarks/team_run.py runs at 50 x 200)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer

from evals.gold import Gold
from evals.oracle import responder
from learn.config import Config
from learn.models.anthropic_backend import AnthropicBackend
from learn.reduce.team import run_team
from learn.store import FeedbackStore, open_store
from learn.store.label_tables import LabelTables
from learn.store.team import SharedCandidate

REMOTE = "https://github.com/team/app.git"
RULES = 12
WORDINGS = 3


def _rows(author: dict[str, str] | None = None) -> list[SharedCandidate]:
    """8 people x 12 sessions x 3 candidates = 288 rows over 36 distinct texts (each
    person's author id their role in `author`)."""
    author = author or {f"p{p}": f"p{p}" for p in range(8)}
    texts = [f"wording {w} of rule {r}: keep it the same way"
             for r in range(RULES) for w in range(WORDINGS)]
    rows = []
    for p in range(8):
        for s in range(12):
            for j in range(3):
                rows.append(SharedCandidate(
                    author=author[f"p{p}"], session_hash=f"p{p}-s{s}", kind="directive",
                    label=None,
                    quote=texts[(p * 7 + s * 3 + j * 11) % len(texts)],
                    occurred_at=f"2026-01-{1 + s:02d}T00:00:00+00:00", project_remote=REMOTE))
    return rows


def _gold() -> Gold:
    gold = Gold(corpus="team-scale")
    for r in range(RULES):
        gold.group(f"rule-{r}", "directive", f"Keep rule {r} the same way.")
        for w in range(WORDINGS):
            gold.said("s", f"wording {w} of rule {r}: keep it the same way", f"rule-{r}")
    return gold


def test_team_run_looks_labels_up_by_pgvector_knn_and_embeds_each_text_once(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from _team_db import team_members

    import learn.store.pg_vectors as pg_vectors
    from learn.reduce.stored import CachedEmbedder

    made = team_members(pg_url, *(f"p{p}" for p in range(8)))
    rows = _rows({name: role for name, (role, _) in made.items()})
    assert len(rows) == 288
    for _, (role, url) in made.items():  # each person through their own role
        with open_store(url) as store:
            store.team.share([r for r in rows if r.author == role])

    knn_calls: list[str] = []
    real_knn = pg_vectors.knn

    def counting_knn(conn: Any, table: str, *args: Any, **kw: Any) -> Any:
        knn_calls.append(table)
        return real_knn(conn, table, *args, **kw)

    def no_scan(self: LabelTables, kind: str | None = None) -> list[tuple[str, str]]:
        raise AssertionError("a team run read every label into Python")

    embedded: list[int] = []
    real_embed = CachedEmbedder.embed

    def counting_embed(self: CachedEmbedder, texts: Any) -> Any:
        embedded.append(len(texts))
        return real_embed(self, texts)

    monkeypatch.setattr(pg_vectors, "knn", counting_knn)
    monkeypatch.setattr(LabelTables, "labels", no_scan)
    monkeypatch.setattr(CachedEmbedder, "embed", counting_embed)

    answer = responder(_gold())
    config = Config()
    config.team.database_url = made["p0"][1]  # a member runs the team run
    with FakeAnthropicServer(responder=lambda req: answer(req.body)) as fake:
        first = run_team(tmp_path, REMOTE, config,
                         backend=AnthropicBackend(api_key="k", base_url=fake.base_url),
                         embedder="tfidf")
        assert first.proposals, "the oracle's rules are said by several people"
        assert {p.label for p in first.proposals} <= {f"rule-{r}" for r in range(RULES)}
        assert all(p.people >= 2 for p in first.proposals)
        # Naming embedded the 36 distinct texts, not the 288 rows.
        assert embedded and embedded[0] == RULES * WORDINGS

        with FeedbackStore.open(pg_url) as store:
            after_first = store.sql("SELECT COUNT(*) AS n FROM label_examples")[0]["n"]
        knn_calls.clear()
        second = run_team(tmp_path, REMOTE, config,
                          backend=AnthropicBackend(api_key="k", base_url=fake.base_url),
                          embedder="tfidf")

    # The second run found the first run's labels by KNN in the label vector table.
    label_tables = [t for t in knn_calls if t.startswith("vec_label_")]
    assert label_tables, knn_calls
    assert {p.label for p in second.proposals} == {p.label for p in first.proposals}
    with FeedbackStore.open(pg_url) as store:
        after_second = store.sql("SELECT COUNT(*) AS n FROM label_examples")[0]["n"]
    # At most one example per distinct text (not per row), and none added again.
    assert 0 < after_first <= len({r.quote for r in rows}) < len(rows)
    assert after_second == after_first
