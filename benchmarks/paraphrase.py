"""How well each embedder clusters paraphrased developer directives.

Usage: .venv/bin/python benchmarks/paraphrase.py [--sweep]

Clusters benchmarks/data/paraphrases.json with AgglomerativeClustering(metric="cosine",
linkage="average", distance_threshold=t) at the recommended threshold of each embedder
(learn.embed.CLUSTER_THRESHOLD), and prints ARI, V-measure and the decoy pairs that merged.
The baseline measured in the same run is a word-unigram bag (what you get for free); the
ratios say how much each embedder buys over it. --sweep also prints the best threshold in
0.30-1.00, which is optimistic: it is tuned on the very sentences it is scored on.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from learn.embed import CLUSTER_THRESHOLD
from learn.embed.minilm import MiniLMEmbedder
from learn.embed.tfidf import TfidfEmbedder, normalise

ROOT = Path(__file__).resolve().parent


def load() -> tuple[list[str], list[str], list[tuple[str, str]]]:
    data = json.loads((ROOT / "data" / "paraphrases.json").read_text())
    texts: list[str] = []
    labels: list[str] = []
    for label, phrasings in data["groups"].items():
        for text in phrasings:
            texts.append(text)
            labels.append(label)
    for label, text in data["decoys"].items():
        texts.append(text)
        labels.append(label)
    pairs = [(a, b) for a, b in data["must_not_merge"]]
    return texts, labels, pairs


def word_bag(texts: list[str]) -> npt.NDArray[np.float32]:
    vocab: dict[str, int] = {}
    rows = [normalise(t) for t in texts]
    for words in rows:
        for w in words:
            vocab.setdefault(w, len(vocab))
    out = np.zeros((len(texts), len(vocab)), dtype=np.float32)
    for i, words in enumerate(rows):
        for w in words:
            out[i, vocab[w]] = 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    normed: npt.NDArray[np.float32] = out / np.clip(norms, 1e-12, None)
    return normed


def cluster(vectors: npt.NDArray[np.float32], threshold: float) -> npt.NDArray[np.int64]:
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=threshold
    )
    labels: npt.NDArray[np.int64] = model.fit_predict(vectors)
    return labels


def score(
    vectors: npt.NDArray[np.float32],
    truth: list[str],
    texts: list[str],
    pairs: list[tuple[str, str]],
    threshold: float,
) -> dict[str, Any]:
    from sklearn.metrics import adjusted_rand_score, v_measure_score

    pred = cluster(vectors, threshold)
    index = {t: i for i, t in enumerate(texts)}
    merged = [(a, b) for a, b in pairs if pred[index[a]] == pred[index[b]]]
    return {
        "threshold": threshold,
        "ari": float(adjusted_rand_score(truth, pred)),
        "v": float(v_measure_score(truth, pred)),
        "clusters": len(set(pred.tolist())),
        "decoy_merges": merged,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sweep", action="store_true")
    args = parser.parse_args()
    texts, truth, pairs = load()
    print(f"{len(texts)} sentences, {len(set(truth))} true groups, {len(pairs)} must-not-merge pairs")

    spaces: list[tuple[str, npt.NDArray[np.float32], float]] = []
    spaces.append(("baseline word-bag", word_bag(texts), 0.85))
    for embedder in (TfidfEmbedder(), MiniLMEmbedder()):
        t0 = time.perf_counter()
        vecs = embedder.embed(texts)
        took = time.perf_counter() - t0
        print(f"{embedder.name}: embedded in {took * 1000:.0f} ms")
        spaces.append((embedder.name, vecs, CLUSTER_THRESHOLD[embedder.name]))

    base = score(spaces[0][1], truth, texts, pairs, spaces[0][2])
    groups_only = [i for i, label in enumerate(truth) if not label.startswith("decoy-")]
    g_truth = [truth[i] for i in groups_only]
    g_texts = [texts[i] for i in groups_only]
    g_base = score(spaces[0][1][groups_only], g_truth, g_texts, [], spaces[0][2])
    for name, vecs, t in spaces:
        r = score(vecs, truth, texts, pairs, t)
        g = score(vecs[groups_only], g_truth, g_texts, [], t)
        print(
            f"{name:22s} t={t:.2f}  ARI {r['ari']:.3f} ({r['ari'] / base['ari']:.2f}x baseline)  "
            f"V {r['v']:.3f}  clusters {r['clusters']}  decoy merges {len(r['decoy_merges'])}  |  "
            f"groups only: ARI {g['ari']:.3f} ({g['ari'] / g_base['ari']:.2f}x) V {g['v']:.3f}"
        )
        for a, b in r["decoy_merges"]:
            print(f"    merged: {a!r} ~ {b!r}")
        if args.sweep:
            best = max(
                (score(vecs, truth, texts, pairs, round(x, 2)) for x in np.arange(0.30, 1.0, 0.01)),
                key=lambda s: s["ari"],
            )
            print(
                f"    sweep best t={best['threshold']:.2f}: ARI {best['ari']:.3f} V {best['v']:.3f} "
                f"clusters {best['clusters']} decoy merges {len(best['decoy_merges'])}"
            )


if __name__ == "__main__":
    main()
