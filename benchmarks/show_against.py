"""`learn show` with this tree's code against another revision's, run by run.

    .venv/bin/python benchmarks/show_against.py [OUT_DIR] [--ref main]
        [--shapes tree,spread,long] [--sessions 1000] [--mb 300] [--repeat 7] [--config]

benchmarks/speed.py gives `learn show`'s CPU against a target in seconds; on a
shared machine whose speed drifts (speed.py's orjson baseline of one home took
0.65-1.19 s CPU across runs within two hours on the 2-core development box) a
figure in seconds moves as much as a change does. This measures a change as a
ratio: REF's code (`git archive`) and this tree's, each with a store of its own
filled by one `learn sessions`, show the same sessions (speed.py's picks: the
largest, a median one, in the tree an observer's and a person's; the largest
again in a pseudo-terminal of 100 columns) alternately, --repeat times each, so
both meet the same drift. Prints the median CPU of each and this tree's over REF's.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.ab import AB  # noqa: E402
from benchmarks.speed import _env, _learn, _learn_in_terminal, show_picks  # noqa: E402


def against(home: Path, work: Path, ref_code: Path, repeat: int) -> None:
    codes = {"ref": ref_code, "here": ROOT}
    envs = {}
    for name, code in codes.items():
        data = work / f"data-{name}"
        shutil.rmtree(data, ignore_errors=True)
        envs[name] = {**_env(home, data), "PYTHONPATH": str(code)}
        listing = _learn(envs[name], "sessions", "--all-projects", "--json", code=code)[2]
    picks = show_picks(listing)
    runs = [(name, row, False) for name, row in picks.items()]
    runs.append(("largest-terminal", picks["largest"], True))
    for label, row, terminal in runs:
        cpu: dict[str, list[float]] = {"ref": [], "here": []}
        for _ in range(max(1, repeat)):
            for name, code in codes.items():
                run = _learn_in_terminal if terminal else _learn
                cpu[name].append(run(envs[name], "show", row["id"], code=code)[0])
        ref, here = statistics.median(cpu["ref"]), statistics.median(cpu["here"])
        print(f"  `learn show` {label:16} ({row['size_bytes'] / 1e3:5.0f} kB)  ref {ref:.3f} s "
              f"({min(cpu['ref']):.3f}-{max(cpu['ref']):.3f})  here {here:.3f} s "
              f"({min(cpu['here']):.3f}-{max(cpu['here']):.3f})  {here / ref:.2f}x")


def main(argv: list[str]) -> int:
    ab = AB.from_argv(argv, repeat=7, out=Path(tempfile.gettempdir()) / "learn-show-against")
    for shape, home in ab.homes():
        against(home, ab.out / f"work-against-{shape}-{ab.sessions}", ab.ref_code, ab.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
