"""`learn sessions` with this tree's code against another revision's, run by run.

    .venv/bin/python benchmarks/listing_against.py [OUT_DIR] [--ref main]
        [--shapes spread,tree,long] [--sessions 1000] [--mb 300] [--repeat 5] [--config]

benchmarks/speed.py states the listings against targets in seconds and in
orjson's time; on a shared machine whose speed drifts (speed.py's orjson
baseline of one home took 0.65-1.19 s CPU across runs within two hours on the
2-core development box) a change is measured better as a ratio to the code
before it, each run beside the other. On each home of benchmarks/homes.py,
alternately with REF's code (`git archive`) and this tree's, --repeat times:

- first: `learn sessions --all-projects --json` on an empty store (CPU of the
  process and its workers);
- warm: the same command again, nothing changed.

Prints the median CPU of each, this tree's over REF's, and the first listing
over orjson.loads of every line of the home (best of 3, measured in this run).
The two codes' listings must be the same bytes (exit 1 otherwise):
benchmarks/same_judgement.py compares more (index rows, `learn show`).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.ab import AB  # noqa: E402
from benchmarks.speed import _env, _learn, orjson_base  # noqa: E402

_LISTING = ("sessions", "--all-projects", "--json")


def against(home: Path, work: Path, ref_code: Path, repeat: int) -> bool:
    """Print the first and warm listings' CPU, REF's and this tree's; False when their
    listings differ."""
    codes = {"ref": ref_code, "here": ROOT}
    cpu: dict[tuple[str, str], list[float]] = {(m, n): [] for m in ("first", "warm") for n in codes}
    listed: dict[str, str] = {}
    for _ in range(max(1, repeat)):
        for name, code in codes.items():
            data = work / f"data-{name}"
            shutil.rmtree(data, ignore_errors=True)
            env = {**_env(home, data), "PYTHONPATH": str(code)}
            first = _learn(env, *_LISTING, code=code)
            warm = _learn(env, *_LISTING, code=code)
            cpu["first", name].append(first[0])
            cpu["warm", name].append(warm[0])
            listed[name] = first[2]
    shutil.rmtree(work, ignore_errors=True)
    base, megabytes = orjson_base(home, 3)
    for measure in ("first", "warm"):
        ref, here = (statistics.median(cpu[measure, n]) for n in codes)
        spans = {n: f"{min(cpu[measure, n]):.3f}-{max(cpu[measure, n]):.3f}" for n in codes}
        orjson = f"  (here {here / base:.2f}x orjson, ref {ref / base:.2f}x)" \
            if measure == "first" else ""
        print(f"  {measure:5} listing  ref {ref:.3f} s ({spans['ref']})  here {here:.3f} s "
              f"({spans['here']})  {here / ref:.2f}x{orjson}")
    print(f"  orjson.loads of every line ({megabytes:.0f} MB): {base:.3f} s CPU")
    same = listed["ref"] == listed["here"]
    print("  listings: " + ("the same bytes" if same else "DIFFERENT"))
    return same


def main(argv: list[str]) -> int:
    ab = AB.from_argv(argv, repeat=5, out=Path(tempfile.gettempdir()) / "learn-listing-against")
    ok = True
    for shape, home in ab.homes():
        ok = against(home, ab.out / f"work-listing-{shape}-{ab.sessions}", ab.ref_code,
                     ab.repeat) and ok
    return 0 if ok else 1

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
