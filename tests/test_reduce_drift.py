"""Labels one point got in two wordings are merged; opposites never are."""

from __future__ import annotations

import numpy as np

from learn.reduce.cluster import DEFAULT_CONTRAST
from learn.reduce.drift import label_words, merge_drifted_labels
from learn.reduce.fallback import Unique


def _uniques(rows: list[tuple[str, str]]) -> tuple[list[Unique], np.ndarray]:
    out = []
    for i, (text, label) in enumerate(rows):
        u = Unique("directive", text.lower(), text, [i], vector_row=i)
        u.label, u.from_model = label, True
        out.append(u)
    # Orthogonal vectors: only the label wording can merge these.
    return out, np.eye(len(rows), dtype=np.float32)


def test_a_reworded_label_is_folded_into_the_one_with_more_members() -> None:
    uniques, vectors = _uniques([("use bun please", "use-bun-not-npm"), ("bun only", "use-bun-not-npm"),
                                 ("bun for scripts", "not-npm-bun-always")])
    assert merge_drifted_labels(uniques, vectors, DEFAULT_CONTRAST) == 1
    assert {u.label for u in uniques} == {"use-bun-not-npm"}


def test_labels_of_opposite_polarity_or_other_words_stay_apart() -> None:
    uniques, vectors = _uniques([("add comments to the code", "add-comments"),
                                 ("no comments in the code", "no-comments"),
                                 ("keep the commits small", "small-commits"),
                                 ("keep the commit messages short", "short-commit-messages")])
    assert merge_drifted_labels(uniques, vectors, DEFAULT_CONTRAST) == 0
    assert label_words("add-comments")[1] is False and label_words("dont-add-comments")[1] is True


def test_near_duplicate_members_merge_their_labels_unless_the_negation_flips() -> None:
    texts = [("run ruff before you commit", "run-ruff-first"), ("run ruff before you commit!", "lint-gate"),
             ("add comments to the code", "add-comments"), ("don't add comments to the code", "comment-policy")]
    uniques, _ = _uniques(texts)
    same = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]], dtype=np.float32)
    assert merge_drifted_labels(uniques, same, DEFAULT_CONTRAST) == 1
    labels = [u.label for u in uniques]
    assert labels[0] == labels[1] and labels[2] != labels[3]


def test_a_directive_reported_as_a_request_follows_its_siblings_drifted_label() -> None:
    uniques, vectors = _uniques([("no mocks for the database", "database-test-real"),
                                 ("use a real database in tests", "database-test-real"),
                                 ("nothing mocked in the db tests", "real-test-database")])
    uniques[2].kind = "request"  # the miner's wrong kind: counting folds one label across both
    assert merge_drifted_labels(uniques, vectors, DEFAULT_CONTRAST) == 1
    assert {u.label for u in uniques} == {"database-test-real"}


def test_other_kinds_never_share_a_drifted_label() -> None:
    uniques, vectors = _uniques([("run the tests first", "run-tests-first"),
                                 ("tests first, then commit", "run-tests-first"),
                                 ("pytest -x", "first-tests-run")])
    uniques[2].kind = "fix"
    assert merge_drifted_labels(uniques, vectors, DEFAULT_CONTRAST) == 0
    assert uniques[2].label == "first-tests-run"
