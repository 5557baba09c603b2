"""What a month of a heavy user's sessions costs to learn from: computed, not guessed.

    .venv/bin/python benchmarks/month_cost.py [OUT_DIR] [--sessions 300] [--mb 40]

A heavy month is taken as 300 sessions (ten a day) shaped like real disks
(benchmarks/corpus.py: most small, a few of several MB, tool output up to a
megabyte, a tenth Codex; smaller sessions copied under new ids up to the count,
as benchmarks/index.py does). On it this runs the command a person runs,
`learn plan --json` (every stage priced: learn.mining.plan, learn.reduce.price),
and prints the first run's cost with every call direct and with the mining
calls sent as a Message Batch (learn.models.batches.BATCH_PRICE of the price;
naming and judging are always direct), and what a later run costs when only a
day of new sessions arrives. Both are upper bounds: prompt caching (every call
after the first reads the fixed prompt at a tenth of the price) is not counted.
The README's cost figures come from this script.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.index import _corpus, _option  # noqa: E402
from benchmarks.outdir import out_dir  # noqa: E402
from learn.models.batches import BATCH_PRICE  # noqa: E402


def plan(home: Path, state: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(home), LEARN_DATA_DIR=str(state / "data"),
               LEARN_CACHE_DIR=str(state / "cache"), LEARN_CONFIG_DIR=str(state / "config"),
               PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "learn", "plan", "--all-projects", "--since",
                           "2000-01-01", "--json"], env=env, cwd=home, capture_output=True,
                          text=True, timeout=3600, check=True)
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def costs(p: dict[str, Any]) -> tuple[float, float, float]:
    """(mining, the later stages, mining as a batch)."""
    later = sum(s["est_cost_usd"] for s in p["stages"])
    return p["est_cost_usd"], later, p["est_cost_usd"] * BATCH_PRICE


def main(argv: list[str]) -> None:
    args = list(argv)
    sessions = _option(args, "--sessions", 300)
    mb = _option(args, "--mb", 40)
    root = out_dir(args, Path(tempfile.mkdtemp(prefix="learn-month-")))
    home = root / "home"
    _corpus(home, sessions, mb)
    p = plan(home, root / "state")
    mining, later, batched = costs(p)
    n = len(p["to_mine"])
    raw = sum(s["bytes"] for s in p["to_mine"]) / 1e6
    sent = sum(s["rendered_chars"] for s in p["to_mine"])
    print(f"a heavy month: {p['sessions']} sessions ({n} with something to mine), "
          f"{raw:.0f} MB of transcript, {sent:,} chars sent to the model")
    print(f"  mining   {p['calls']:5d} calls  ${mining:8.2f}  ({p['model']})")
    for s in p["stages"]:
        print(f"  {s['step']:<8} {s['calls']:5d} calls  ${s['est_cost_usd']:8.2f}  ({s['model']})")
    direct = mining + later
    with_batch = batched + later
    print(f"first run, every call direct:        ${direct:7.2f}")
    print(f"first run, mining as a Message Batch: ${with_batch:7.2f}  "
          f"({with_batch / direct:.2f}x direct)")
    # A later run mines only the day's new sessions and names and judges what they
    # add: the month's figures scaled to a day's share of its sessions.
    day = max(1, sessions // 30)
    share = day / max(1, n)
    daily = (mining + later) * share
    calls = round(p["calls"] * share) + sum(1 for s in p["stages"] if s["calls"])
    print(f"a later daily run ({day} new sessions): ~{calls} calls, ~${daily:.2f} "
          f"(~${daily * 30:.2f} over the month)")


if __name__ == "__main__":
    main(sys.argv[1:])
