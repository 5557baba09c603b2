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


def _merged_pair_by_pair(uniques: list[Unique], vectors: np.ndarray, near: float = 0.15) -> list[str]:
    """The labels the merge gave when it went over every pair of labels (the code before
    it found the pairs at once), for one family of directives: the reference."""
    from learn.reduce.contrast import SAME_WORDS_APART, Contrast, contrast_between

    members = [u for u in uniques if u.label]
    by_label: dict[str, list[int]] = {}
    for pos, u in enumerate(members):
        by_label.setdefault(u.label or "", []).append(pos)
    labels = sorted(by_label)
    texts = [u.text for u in members]
    rows = [u.vector_row for u in members]
    dist = 1.0 - vectors[rows] @ vectors[rows].T + contrast_between(texts, texts, DEFAULT_CONTRAST)
    flipped = contrast_between(texts, texts, Contrast(negation=1e-6)) >= SAME_WORDS_APART
    parent = {label: label for label in labels}

    def find(x: str) -> str:
        while parent[x] != x:
            x = parent[x]
        return x

    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            block = np.ix_(by_label[a], by_label[b])
            if bool(flipped[block].any()):
                continue
            wa, na = label_words(a)
            wb, nb = label_words(b)
            if (bool(wa) and wa == wb and na == nb) or float(dist[block].min()) <= near:
                ra, rb = find(a), find(b)
                if ra != rb:
                    keep = min(ra, rb, key=lambda x: (-len(by_label[x]), x))
                    parent[rb if keep == ra else ra] = keep
    return [find(u.label or "") for u in members]


def test_the_pairs_found_at_once_merge_as_every_pair_of_labels_did() -> None:
    # 300 random worlds: labels from a small vocabulary (same words in other orders,
    # decorations, negations), member texts with flipped negations, vectors in clumps so
    # near-duplicates happen. The merge must give every member the label the pair-by-pair
    # loop gave it.
    rng = np.random.default_rng(7)
    words = ["bun", "npm", "ruff", "commit", "tests", "mock", "database", "small", "docs"]
    for _ in range(300):
        n = int(rng.integers(2, 30))
        rows = []
        for _ in range(n):
            picked = rng.choice(words, size=int(rng.integers(1, 3)), replace=False)
            neg = "dont-" if rng.random() < 0.2 else ""
            deco = "-always" if rng.random() < 0.2 else ""
            label = neg + "-".join(rng.permutation(picked)) + deco
            text = ("don't " if rng.random() < 0.25 else "") + " ".join(picked) + " here"
            rows.append((text, label))
        uniques, _ = _uniques(rows)
        centres = rng.normal(size=(4, 8))
        vectors = centres[rng.integers(0, 4, size=n)] + rng.normal(scale=0.05, size=(n, 8))
        vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
        want = _merged_pair_by_pair(uniques, vectors)
        merge_drifted_labels(uniques, vectors, DEFAULT_CONTRAST)
        assert [u.label for u in uniques] == want, rows
