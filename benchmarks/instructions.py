"""A change measured in instructions: this tree's `learn` against another revision's,
each command counted by valgrind's callgrind.

    .venv/bin/python benchmarks/instructions.py [OUT_DIR] [--ref main]
        [--shapes spread,tree,long] [--sessions 1000] [--mb 300] [--measure show,first]

Seconds of CPU on the shared 2-core development machine move by a fifth between runs
of the same code (benchmarks/ab.py's scripts alternate the two codes run by run to
meet the same drift, and still need many runs to see a change of a few percent).
The instructions a process runs (callgrind's Ir) barely move: two runs of the same
`learn show` of the 6 MB session counted 1.8698 G and 1.8703 G. Both codes run with
PYTHONHASHSEED=0, at once, one per core; about 25x slower than without valgrind
(a `learn show` ~25 s, a first listing of 1,000 sessions ~3 minutes).

Instructions are not time. Memory traffic costs time and no instructions: pausing
the cyclic collector (learn.collector) took 0.99x the instructions of a first
listing and 0.96x its CPU. So this says whether a change does less work, and
benchmarks/listing_against.py and show_against.py what that is worth in seconds.

- show: `learn show ID`, piped, of speed.py's picks (the largest session, a median
  one; an observer's and a person's in the tree), each code with a store filled by
  one listing run without valgrind;
- first: `learn sessions --all-projects --json` on an empty store, in one process
  (LEARN_PARSE_WORKERS=1: a forked worker would be counted apart).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.ab import AB  # noqa: E402
from benchmarks.index import _text_option  # noqa: E402
from benchmarks.speed import _env, _learn, show_picks  # noqa: E402

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def _counted(env: dict[str, str], code: Path, args: list[str], log: Path) -> subprocess.Popen[bytes]:
    """`learn ARGS` of `code` under callgrind, started (the count lands in `log`)."""
    return subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={log}",
         sys.executable, "-m", "learn", *args],
        env={**env, "PYTHONHASHSEED": "0"}, cwd=code, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)


def _both(envs: dict[str, dict[str, str]], codes: dict[str, Path], args: list[str],
          work: Path) -> dict[str, int]:
    """Each code's instruction count for `learn ARGS`, the two run at once."""
    logs = {name: work / f"callgrind-{name}.log" for name in codes}
    runs = {name: _counted(envs[name], code, args, logs[name]) for name, code in codes.items()}
    out: dict[str, int] = {}
    for name, run in runs.items():
        if run.wait() != 0:
            raise SystemExit(f"learn {' '.join(args)} failed under valgrind ({name}); its "
                             f"valgrind log: {logs[name]}")
        found = _COLLECTED.search(logs[name].read_text(encoding="utf-8"))
        if found is None:
            raise SystemExit(f"no instruction count in {logs[name]}")
        out[name] = int(found.group(1))
    return out


def _line(label: str, got: dict[str, int]) -> str:
    return (f"  {label:34} ref {got['ref'] / 1e9:7.3f} G  here {got['here'] / 1e9:7.3f} G  "
            f"{got['here'] / got['ref']:.3f}x")


def against(home: Path, work: Path, ref_code: Path, measures: set[str]) -> None:
    codes = {"ref": ref_code, "here": ROOT}
    work.mkdir(parents=True, exist_ok=True)
    if "first" in measures:
        envs = {}
        for name, code in codes.items():
            data = work / f"first-{name}"
            shutil.rmtree(data, ignore_errors=True)
            envs[name] = {**_env(home, data), "PYTHONPATH": str(code), "LEARN_PARSE_WORKERS": "1"}
        got = _both(envs, codes, ["sessions", "--all-projects", "--json"], work)
        print(_line("first listing (one process)", got), flush=True)
    if "show" in measures:
        envs = {}
        listing = ""
        for name, code in codes.items():
            data = work / f"show-{name}"
            shutil.rmtree(data, ignore_errors=True)
            envs[name] = {**_env(home, data), "PYTHONPATH": str(code)}
            listing = _learn(envs[name], "sessions", "--all-projects", "--json", code=code)[2]
        for pick, row in show_picks(listing).items():
            got = _both(envs, codes, ["show", row["id"]], work)
            print(_line(f"`learn show` {pick} ({row['size_bytes'] / 1e3:.0f} kB)", got), flush=True)


def main(argv: list[str]) -> int:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: this benchmark counts instructions with its callgrind",
              file=sys.stderr)
        return 2
    args = list(argv)
    measures = set(_text_option(args, "--measure", "show,first").split(","))
    ab = AB.from_argv(args, repeat=1, out=Path(tempfile.gettempdir()) / "learn-instructions")
    for shape, home in ab.homes("instructions counted by callgrind, the two codes at once"):
        against(home, ab.out / f"work-instructions-{shape}-{ab.sessions}", ab.ref_code, measures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
