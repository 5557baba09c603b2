"""Labels with their example vectors, the name cache and the embeddings cache.

Every method goes through FeedbackStore's write path over `self.store`, so it
joins the caller's open transaction() or commits on its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from learn.isotime import now_iso as _now
from learn.store import vectors
from learn.store.connection import Connection, placeholders

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from learn.embed.base import Embedder
    from learn.store.feedback import FeedbackStore

LABEL_PURPOSE = "label"



def text_hash(text: str) -> str:
    """sha256 of the text as typed: the key of cached vectors and stable candidate identity."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _example_labels(conn: Connection, ids: Sequence[int]) -> dict[int, str]:
    """label_examples id -> label name, in one query per 500 ids (one round trip, not
    one per hit: on PostgreSQL each round trip is ~0.05 ms more than on SQLite).
    Model-made labels only: one a fallback stored before 0015 is never offered."""
    out: dict[int, str] = {}
    for start in range(0, len(ids), 500):
        chunk = [int(i) for i in ids[start : start + 500]]
        rows = conn.execute(
            "SELECT x.id, l.label FROM label_examples x JOIN labels l ON l.id = x.label_id "
            f"WHERE l.source = 'model' AND x.id IN ({placeholders(len(chunk))})",
            chunk,
        ).fetchall()
        out.update({int(r[0]): str(r[1]) for r in rows})
    return out


def _usable(blob: object, dim: int | None) -> npt.NDArray[np.float32] | None:
    """The cached vector in `blob`, or None when it cannot be one of `dim` dimensions
    (not bytes, a length other than 4 * dim, a NaN or an infinity)."""
    import numpy as np

    if not isinstance(blob, bytes | bytearray | memoryview):
        return None
    raw = bytes(blob)
    if dim is not None and len(raw) != 4 * dim:
        return None
    if len(raw) % 4:
        return None
    vector = vectors.from_blob(raw)
    if not bool(np.all(np.isfinite(vector))):
        return None
    return vector


class LabelTables:
    """labels, label_examples, name_cache and embedding_cache over an open FeedbackStore."""

    def __init__(self, store: FeedbackStore) -> None:
        self.store = store

    # -- name cache ----------------------------------------------------------------

    def named_labels(self, prompt_version: int) -> dict[tuple[str, str], str]:
        """(kind, text_hash) -> the label a model gave that exact text under this
        naming prompt version (the name cache, migration 0008)."""
        rows = self.store.sql(
            "SELECT kind, text_hash, label FROM name_cache WHERE prompt_version = $1", (prompt_version,)
        )
        return {(r["kind"], r["text_hash"]): r["label"] for r in rows}

    def put_named_labels(self, named: Sequence[tuple[str, str, str]], prompt_version: int) -> int:
        """Cache (kind, text, label) model answers under `prompt_version`."""
        return self.store.executemany(
            "INSERT INTO name_cache (kind, text_hash, prompt_version, label) VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (kind, text_hash, prompt_version) DO UPDATE SET label = excluded.label",
            [(kind, text_hash(text), prompt_version, label) for kind, text, label in named],
        )

    # -- labels ------------------------------------------------------------------

    def put_label(self, label: str, kind: str, vector: Any, *, space: str, text: str = "") -> int:
        """Record that an occurrence with `vector` (in `space`) was named `label`.

        Labels are unique per (label, kind); each distinct vector becomes one more
        example of it (the same vector twice is stored once), so a label is found
        by whichever of its wordings a new candidate resembles. Returns the label id.
        Only model-made labels are put (naming never remembers a fallback one), so
        a label a fallback stored before migration 0015 becomes the model's here.
        """

        def run(conn: Connection) -> int:
            (lid,) = conn.execute(
                "INSERT INTO labels (label, kind, text, created_at) VALUES ($1, $2, $3, $4) "
                "ON CONFLICT(label, kind) DO UPDATE SET text = CASE WHEN excluded.text != '' "
                "THEN excluded.text ELSE labels.text END, source = 'model' RETURNING id",
                (label, kind, text, _now()),
            ).fetchone()
            blob = vectors.to_blob(vector)
            row = conn.execute(
                "INSERT INTO label_examples (label_id, space, vector_hash) VALUES ($1, $2, $3) "
                "ON CONFLICT(label_id, space, vector_hash) DO NOTHING RETURNING id",
                (int(lid), space, hashlib.sha256(blob).hexdigest()),
            ).fetchone()
            if row is not None:
                dim = len(blob) // 4
                table = vectors.ensure_table(conn, LABEL_PURPOSE, space, dim, metadata=("kind",))
                vectors.upsert(conn, table, int(row[0]), vector, dim, kind=kind)
            return int(lid)

        return self.store._write(run)

    def labels(self, kind: str | None = None) -> list[tuple[str, str]]:
        """(label, kind) of every known (model-made) label."""
        where, params = ("WHERE source = 'model' AND kind = $1", (kind,)) if kind else (
            "WHERE source = 'model'", ())
        return [
            (r["label"], r["kind"])
            for r in self.store.sql(f"SELECT label, kind FROM labels {where} ORDER BY id", params)
        ]

    def nearest_labels(
        self, vector: Any, kind: str, k: int = 5, *, space: str
    ) -> list[tuple[str, float]]:
        """Up to k distinct labels of `kind` nearest `vector` in `space`, as (label, cosine
        distance of its nearest example), nearest first."""
        if k <= 0:
            return []
        with self.store._use(write=False) as conn:
            found = vectors.find_table(conn, LABEL_PURPOSE, space)
            if found is None:
                return []
            table, dim = found
            (total,) = conn.execute(
                "SELECT COUNT(*) FROM label_examples x JOIN labels l ON l.id = x.label_id "
                # Every example, fallback ones too: they take places among the
                # nearest hits, so widening must be able to look past them.
                "WHERE x.space = $1 AND l.kind = $2",
                (space, kind),
            ).fetchone()
            # Ask for more examples than labels (one label may hold many of the nearest
            # examples), widening until k distinct labels or every example is seen.
            want = min(int(total), max(4 * k, 32))
            best: dict[str, float] = {}
            while True:
                best.clear()
                hits = vectors.knn(conn, table, vector, min(want, vectors.MAX_K), dim, kind=kind)
                names = _example_labels(conn, [xid for xid, _ in hits])
                for xid, dist in hits:
                    name = names.get(xid)
                    if name is not None and name not in best:
                        best[name] = dist
                if len(best) >= k or want >= min(int(total), vectors.MAX_K):
                    break
                want *= 4
            return sorted(best.items(), key=lambda item: (item[1], item[0]))[:k]

    # -- embeddings cache ----------------------------------------------------------

    def cached_vectors(self, space: str, hashes: Iterable[str], *,
                       dim: int | None = None) -> dict[str, npt.NDArray[np.float32]]:
        """text_hash -> vector for the hashes cached in `space` (missing ones are absent).

        With `dim`, a cached blob that is not `dim` float32s, or holds a value that is
        not finite, is absent too: a miss, which embed_cached embeds again and writes
        over. The cache of a shared database is any member's to write, and one such
        blob for a teammate's quote crashed every member's team run until someone
        deleted it ("could not broadcast input array from shape (3,)", "The
        condensed distance matrix must contain only finite values"; team audit F2).
        """
        wanted = list(dict.fromkeys(hashes))
        out: dict[str, npt.NDArray[np.float32]] = {}
        # SQLite caps bound parameters; 500 per query stays far below every build's limit.
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            rows = self.store.sql(
                f"SELECT text_hash, vector FROM embedding_cache WHERE space = $1 "
                f"AND text_hash IN ({placeholders(len(chunk), 2)})",
                (space, *chunk),
            )
            for r in rows:
                vector = _usable(r["vector"], dim)
                if vector is not None:
                    out[r["text_hash"]] = vector
        return out

    def put_vectors(self, space: str, items: Mapping[str, Any]) -> int:
        """Cache vectors by text_hash in `space`; returns rows written."""
        return self.store.executemany(
            "INSERT INTO embedding_cache (space, text_hash, vector) VALUES ($1, $2, $3) "
            "ON CONFLICT(space, text_hash) DO UPDATE SET vector = excluded.vector",
            [(space, h, vectors.to_blob(v)) for h, v in items.items()],
        )

    def embed_cached(self, embedder: Embedder, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """embedder.embed(texts), reusing and filling the cache (vectors keyed on
        (embedder.name, sha256(text)))."""
        import numpy as np

        hashes = [text_hash(t) for t in texts]
        have = self.cached_vectors(embedder.name, hashes, dim=int(embedder.dim))
        todo = [i for i, h in enumerate(hashes) if h not in have]
        out = np.zeros((len(texts), int(embedder.dim)), dtype=np.float32)
        if todo:
            fresh = embedder.embed([texts[i] for i in todo])
            self.put_vectors(embedder.name, {hashes[i]: fresh[j] for j, i in enumerate(todo)})
            for j, i in enumerate(todo):
                have[hashes[i]] = fresh[j]
        for i, h in enumerate(hashes):
            out[i] = have[h]
        return out
