"""Typed-turn fidelity over the whole fixture corpus: recall and precision, printed.

Recall: of the turns each case says the person typed, how many the view shows. Precision: of
the turns the view shows as typed, how many the person typed. Both are read through
`learn show --json` (tests/fixtures/fidelity/corpus.py), so this scores what a user sees; the
sessions' counts in `learn sessions --json` must agree with it (one count), and where a case
says who started a session (interactive / programmatic), both must say so too.
Run: python benchmarks/fidelity.py
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fixtures.fidelity import corpus


def main() -> int:
    expected_total = shown_total = hits = 0
    sessions = listing_agrees = origins = origins_right = 0
    rows: list[tuple[str, int, int, int]] = []
    for case in corpus.cases():
        with tempfile.TemporaryDirectory() as tmp:
            exp_n = shown_n = hit_n = 0
            listed: dict[str, dict[str, object]] = {}
            for exp, view in corpus.shown(case, Path(tmp)):
                listed = listed or corpus.listed_by_path(case, Path(tmp))
                row = listed.get(exp.file)
                sessions += 1
                listing_agrees += (row["human_turns"] if row else 0) == len(view["human_turns_detail"])
                if exp.origin is not None:
                    origins += 1
                    origins_right += view["origin"] == exp.origin and bool(row) and \
                        row["origin"] == exp.origin
                turns = corpus.typed_turns(view)
                # Multiset overlap: the same text typed twice in two sessions counts twice.
                overlap = Counter(turns) & Counter(exp.typed)
                leaked = sum(1 for t in turns for m in exp.not_typed if m in t)
                exp_n += len(exp.typed)
                shown_n += len(turns) + leaked
                hit_n += sum(overlap.values())
        rows.append((case, exp_n, shown_n, hit_n))
        expected_total += exp_n
        shown_total += shown_n
        hits += hit_n
    print(f"{'case':<32} {'typed':>6} {'shown':>6} {'right':>6}")
    for case, exp_n, shown_n, hit_n in rows:
        flag = "" if exp_n == hit_n == shown_n else "  <-"
        print(f"{case:<32} {exp_n:>6} {shown_n:>6} {hit_n:>6}{flag}")
    recall = hits / expected_total if expected_total else 1.0
    precision = hits / shown_total if shown_total else 1.0
    print(f"\ntyped-turn recall {recall:.3f}  precision {precision:.3f}  "
          f"({len(rows)} cases, {expected_total} typed turns)")
    print(f"learn sessions agrees with learn show on {listing_agrees}/{sessions} sessions; "
          f"origin right on {origins_right}/{origins}")
    ok = recall == precision == 1.0 and listing_agrees == sessions and origins_right == origins
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
