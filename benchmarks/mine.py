"""Mining throughput: mine() over the parse benchmark corpus, against parsing alone.

    .venv/bin/python benchmarks/mine.py [CORPUS_DIR] [--mb 50] [--repeat 3]

Generates the corpus (benchmarks/corpus.py, seed 1417) into CORPUS_DIR when it
holds no transcripts. The baseline, measured in the same run, parses every file
and walks its events; the mine row does the same and then runs every detector.
Both materialize every event, so the difference is what the detectors cost.
Best of --repeat runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import generate
from benchmarks.outdir import out_dir
from benchmarks.timing import best_of
from learn.detect import mine
from learn.transcripts.parser import parse


def _option(args: list[str], name: str, default: int) -> int:
    if name in args:
        k = args.index(name)
        value = int(args[k + 1])
        del args[k : k + 2]
        return value
    return default


def main(argv: list[str]) -> int:
    args = list(argv)
    repeat = _option(args, "--repeat", 3)
    mb = _option(args, "--mb", 50)
    root = out_dir(args, Path(__file__).parent / "out" / f"corpus-{mb}mb")
    files = sorted(p for p in root.rglob("*.jsonl") if p.is_file())
    if not files:
        files = sorted(generate(root, total_mb=mb, seed=1417))
    size = sum(p.stat().st_size for p in files)

    def baseline() -> int:
        n = 0
        for path in files:
            for _event in parse(path).events:
                n += 1
        return n

    def mined() -> int:
        n = 0
        for path in files:
            events = list(parse(path).events)
            for _signal in mine(events):
                n += 1
        return n

    parsed = [list(parse(path).events) for path in files]

    def mine_only() -> int:
        n = 0
        for events in parsed:
            for _signal in mine(events):
                n += 1
        return n

    base_s, events = best_of(baseline, repeat)
    mine_s, signals = best_of(mined, repeat)
    only_s, _ = best_of(mine_only, repeat)
    megabytes = size / 1e6
    print(f"corpus: {len(files)} files, {megabytes:.1f} MB, {events} events, {signals} signals")
    print(f"parse+iterate (baseline): {base_s:7.3f} s  {megabytes / base_s:7.1f} MB/s")
    print(
        f"parse+mine:               {mine_s:7.3f} s  {megabytes / mine_s:7.1f} MB/s  "
        f"{signals / mine_s:9.0f} signals/s  ratio to baseline {mine_s / base_s:.2f}x"
    )
    print(
        f"mine only (pre-parsed):   {only_s:7.3f} s  {megabytes / only_s:7.1f} MB/s  "
        f"{signals / only_s:9.0f} signals/s  {events / only_s:9.0f} events/s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
