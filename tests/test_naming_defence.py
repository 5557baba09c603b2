"""A namer that splits one point or lumps two inside one call is overruled where the
quotes' own vectors and the pre-clusters say so, and counts stay distinct sessions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from _reduce_helpers import ScriptedBackend, directive, items_of, session

from learn.embed.tfidf import TfidfEmbedder
from learn.models.base import ModelRequest
from learn.reduce.counting import count_points, flatten_candidates, occurrences
from learn.reduce.naming import name_candidates
from learn.reduce.regroup import evidence_for

MODEL = "claude-sonnet-4-5"

# Words shared by no two quotes, so the wording penalty adds nothing: only the
# vectors below decide what is near.
PLAN = ["plan the approach first", "outline steps beforehand", "sketch design ahead",
        "describe method upfront"]
TABS = ["tabs for indentation", "hard tabulators everywhere"]


class FixedEmbedder:
    """Vectors chosen per text: one point's quotes `spread` apart (cosine distance),
    points orthogonal. Named like MiniLM, so naming uses MiniLM's thresholds."""

    name = "minilm-fixture@1"

    def __init__(self, points: Sequence[Sequence[str]], spread: float = 0.3) -> None:
        self.rows: dict[str, npt.NDArray[np.float32]] = {}
        dim = len(points) + sum(len(p) for p in points)
        # Quotes of a point share an axis and each has one of its own: cosine
        # 1 / (1 + k^2) between two of them.
        k = float(np.sqrt(1.0 / (1.0 - spread) - 1.0))
        extra = len(points)
        for axis, texts in enumerate(points):
            for text in texts:
                vec = np.zeros(dim, dtype=np.float32)
                vec[axis], vec[extra] = 1.0, k
                extra += 1
                self.rows[text] = vec / np.linalg.norm(vec)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.stack([self.rows[t] for t in texts])


def namer(labels: Mapping[str, str], again: Mapping[str, str] | None = None) -> ScriptedBackend:
    """Answers `labels[text]`; a call that holds only texts of `again` gets `again[text]`."""

    def answer(request: ModelRequest) -> dict[str, Any]:
        items = items_of(request.user)
        table = again if again and all(text in again for _, _, text in items) else labels
        return {"labels": [{"id": i, "label": table[text]} for i, _, text in items]}

    return ScriptedBackend(answer)


def points_of(sessions: Sequence[Any], labels: Sequence[str]) -> dict[str, tuple[int, int]]:
    """label -> (distinct sessions, quotes)."""
    return {p.label: (p.sessions, p.count)
            for p in count_points(occurrences(sessions, list(labels)))}


def test_a_point_the_namer_split_inside_one_call_is_rejoined_with_its_distinct_sessions() -> None:
    sessions = [session("s1", None, directive(PLAN[0]), directive(PLAN[1])),
                session("s2", None, directive(PLAN[2])),
                session("s3", None, directive(PLAN[3]), directive(TABS[0])),
                session("s4", None, directive(TABS[1]))]
    # One call sees all four plan quotes and words the last apart, from its own words.
    labels = {**dict.fromkeys(PLAN, "plan-before-coding"), PLAN[3]: "describe-method-upfront",
              **dict.fromkeys(TABS, "tabs-not-spaces")}
    backend = namer(labels)
    result = name_candidates(flatten_candidates(sessions), embedder=FixedEmbedder([PLAN, TABS]),
                             backend=backend, model=MODEL)

    points = points_of(sessions, result.labels)
    # s1 said it twice: three sessions, four quotes; the other point untouched.
    assert points["plan-before-coding"] == (3, 4)
    assert points["tabs-not-spaces"] == (2, 2)
    assert "describe-method-upfront" not in points
    assert len(backend.requests) == 1 and result.stats.labels_rejoined == 1


def test_a_one_off_look_alike_the_namer_kept_apart_stays_apart() -> None:
    # The same shape, but the lone quote sits 0.6 from the point (a look-alike, as
    # "run the tests before committing" sits 0.61 from "run ruff before committing").
    embedder = FixedEmbedder([PLAN], spread=0.6)
    sessions = [session(f"s{i}", None, directive(t)) for i, t in enumerate(PLAN)]
    labels = {**dict.fromkeys(PLAN, "plan-before-coding"), PLAN[3]: "describe-method-upfront"}
    result = name_candidates(flatten_candidates(sessions), embedder=embedder, backend=namer(labels),
                             model=MODEL)

    assert result.stats.labels_rejoined == 0
    assert points_of(sessions, result.labels)["describe-method-upfront"] == (1, 1)


def test_a_point_lumped_with_a_far_one_is_asked_again_alone_and_counted_apart() -> None:
    sessions = [session("s1", None, directive(PLAN[0]), directive(TABS[0])),
                session("s2", None, directive(PLAN[1])),
                session("s3", None, directive(PLAN[2]), directive(TABS[1]))]
    # The first answer lumps the tabs quotes under the plan point; asked again,
    # each alone, the namer names them for what they say.
    backend = namer(dict.fromkeys(PLAN + TABS, "plan-before-coding"),
                    again=dict.fromkeys(TABS, "tabs-not-spaces"))
    result = name_candidates(flatten_candidates(sessions), embedder=FixedEmbedder([PLAN[:3], TABS]),
                             backend=backend, model=MODEL, max_batch=5)

    points = points_of(sessions, result.labels)
    assert points["plan-before-coding"] == (3, 3)
    assert points["tabs-not-spaces"] == (2, 2)
    asked_again = [sorted(t for _, _, t in items_of(r.user)) for r in backend.requests[1:]]
    assert asked_again == [sorted(TABS)] and result.stats.lumps_asked == 2


def test_a_namer_that_lumps_again_when_asked_again_has_the_last_word() -> None:
    sessions = [session(f"s{i}", None, directive(t)) for i, t in enumerate(PLAN[:3] + TABS[:1])]
    backend = namer(dict.fromkeys(PLAN + TABS, "plan-before-coding"))
    result = name_candidates(flatten_candidates(sessions), embedder=FixedEmbedder([PLAN[:3], TABS[:1]]),
                             backend=backend, model=MODEL)

    assert result.stats.lumps_asked == 1 and len(backend.requests) == 2
    assert set(result.labels) == {"plan-before-coding"}


def test_paraphrases_the_namer_grouped_are_not_asked_again() -> None:
    # 0.78 apart, like the farthest paraphrase of one point in the eval corpora:
    # unrelated-looking to the vectors, one point to the namer, and the namer is trusted.
    sessions = [session(f"s{i}", None, directive(t)) for i, t in enumerate(PLAN)]
    backend = namer(dict.fromkeys(PLAN, "plan-before-coding"))
    result = name_candidates(flatten_candidates(sessions), embedder=FixedEmbedder([PLAN], spread=0.78),
                             backend=backend, model=MODEL)

    assert len(backend.requests) == 1 and result.stats.lumps_asked == 0
    assert points_of(sessions, result.labels) == {"plan-before-coding": (4, 4)}


def test_character_ngrams_never_take_a_label_apart() -> None:
    # Their paraphrases sit as far apart as unrelated quotes (0.95-1.0 measured):
    # nothing there tells a lump from a point worded two ways.
    evidence = evidence_for(TfidfEmbedder())
    assert evidence.apart is None and evidence.stray is None
    assert evidence.rejoin < evidence_for(FixedEmbedder([PLAN])).rejoin
