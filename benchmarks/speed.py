"""What `learn` costs against the work, in every shape of home, as sessions double.

    .venv/bin/python benchmarks/speed.py [OUT_DIR] [--shapes spread,tree,long]
        [--sizes 250,500,1000,2000] [--mb 300] [--repeat 3]
        [--measure first,warm,changed,run,show] [--results short] [--config]

Homes are benchmarks/homes.py's (built once under OUT_DIR, ~--mb MB per 1,000
sessions): `spread` (a person's sessions over 24 projects, a tenth Codex),
`tree` (one big tree: four in five sessions a memory plugin's headless
observers in one folder, each quoting the person's latest request) and `long`
(`spread` plus one 6 MB session of ~1,500 typed turns). `--results full` builds
them with each tool result's `toolUseResult` as Claude Code writes it (the tool's
whole outcome again: homes.py), in folders of their own; the targets are read on
the default homes.

Every figure is what a user runs: `learn ...` as a subprocess with compiled
bytecode (as pip installs it), timed by the CPU it and its children used
(RUSAGE_CHILDREN: this 2-core box is shared, and its neighbours stretch wall
time, not CPU). Each is repeated --repeat times; the median is printed with
the range, and wall time beside it. The baseline is measured in the same run
on the same files: orjson.loads of every line of every transcript in the home
(sessions, subagents, asides), CPU of one core, best of --repeat.

1. first: `learn sessions --all-projects --json` on an empty store, as a ratio
   to orjson (CPU of all processes; it parses over the cores, so wall is lower);
   beside it, the same CPU against orjson run over as many processes at once
   (on the 2-core development VM two processes at once can each take more CPU
   for the same work than one alone: the baseline's own ratio shows how much), and
   the listing in one process (LEARN_PARSE_WORKERS=1), run alternately with it.
2. warm: `learn sessions --all-projects` again, nothing changed; and `changed`: the
   same with one session changed since (a median one's mtime moved, as when a person
   goes on with it): that file is read again and the sessions are judged together again,
   the rest comes from the index.
3. run: `learn run --all-projects --yes --json` with nothing new, against a
   fake Messages server on 127.0.0.1 (tests/fakes; it answers as a model would:
   the directives it finds quoted, a label each, all new, all accepted). Two runs
   first fill the caches and leave a store a run leaves as it finds it.
4. show: `learn show ID` of the largest session, a median one, and in the big
   tree an observer's and a person's session, its output piped; and the largest
   again in a pseudo-terminal of 100 columns, as a person reads it (styled, wrapped).

`--config`: every command with a config file such as a person keeps (a backend, the
models, a window: `PERSON_CONFIG`), in work folders of their own; without it, none.

Then, per figure, the growth factor per doubling of sessions (time at 2N / at N).
Targets (issue 32): first <= 3x orjson in every shape at 1,000 sessions and
<= 2.2x per doubling; warm <= 0.3 s; run <= 1 s CPU; show <= 0.3 s. The last lines
say of each whether it was met, missed (by how many of its figures), or not measured
by this run's `--measure` and `--sizes`; the exit status is 1 when one was missed.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.corpus import _DIRECTIVES  # noqa: E402
from benchmarks.homes import HOMES_VERSION, PLUGIN_DIR, SHAPES, build  # noqa: E402
from benchmarks.outdir import out_dir  # noqa: E402
from benchmarks.timing import (  # noqa: E402
    best_of_interleaved,
    cpu_with_children,
    orjson_lines,
    orjson_lines_at_once,
)
from learn.transcripts.pool import cores  # noqa: E402

Timed = tuple[float, float, str]  # CPU s (process and children), wall s, stdout


# A config file as a person keeps one (`--config`): learn reads it in every command.
PERSON_CONFIG = """[backend]
name = "anthropic"

[models]
mine = "claude-haiku-4-5"
judge = "claude-sonnet-4-6"

[mining]
since = "60d"
concurrency = 4

[thresholds]
directive = 2
"""
# Set by `take_config_flag`: the text written to each work folder's config file.
_config: list[str] = []


def take_config_flag(args: list[str]) -> bool:
    """Take `--config` out of `args` and, when it was there, run every command from here on
    with `PERSON_CONFIG` (`_env` writes it into each work folder, which `first` empties
    before each run). The one switch for speed.py and the run-by-run comparisons (ab.py)."""
    if "--config" not in args:
        return False
    args.remove("--config")
    if not _config:
        _config.append(PERSON_CONFIG)
    return True


def _env(home: Path, data: Path, **extra: str) -> dict[str, str]:
    if _config:
        (data / "config").mkdir(parents=True, exist_ok=True)
        (data / "config" / "config.toml").write_text(_config[0])
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LEARN_", "ANTHROPIC_", "PYTHONDONTWRITEBYTECODE"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), LEARN_DATA_DIR=str(data / "data"),
               LEARN_CACHE_DIR=str(data / "cache"), LEARN_CONFIG_DIR=str(data / "config"),
               PYTHONPATH=str(ROOT), **extra)
    return env


def _learn(env: dict[str, str], *args: str, code: Path = ROOT) -> Timed:
    """`learn ARGS` with the learn of `code` (its folder is the working directory, which
    `python -m` puts first on the path), timed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                         text=True, timeout=3600, cwd=code)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"learn {' '.join(args)} failed ({out.returncode}): {out.stderr[-2000:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return cpu, wall, out.stdout


# The terminal `learn show` prints to when a person runs it: styled, wrapped at its width.
TERMINAL_COLUMNS = 100


def _learn_in_terminal(env: dict[str, str], *args: str, code: Path = ROOT) -> Timed:
    """`learn ...` with a pseudo-terminal of TERMINAL_COLUMNS for its stdout, as a person
    runs it: rich then styles what it prints (ANSI codes) and wraps at the terminal's
    width, work a piped run does not do."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, TERMINAL_COLUMNS, 0, 0))
    tty_env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    tty_env["TERM"] = "xterm-256color"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "learn", *args], env=tty_env, cwd=code,
                            stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    chunks: list[bytes] = []
    while True:  # drained as it comes, or the child blocks on a full terminal
        try:
            data = os.read(master, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    err = proc.stderr.read() if proc.stderr is not None else b""
    code = proc.wait(timeout=3600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    os.close(master)
    if code != 0:
        raise SystemExit(f"learn {' '.join(args)} failed ({code}): {err[-2000:]!r}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return cpu, wall, b"".join(chunks).decode("utf-8", "replace")


class Figure:
    """One measure repeated: CPU and wall of each run."""

    def __init__(self, runs: list[Timed]) -> None:
        self.cpu = [r[0] for r in runs]
        self.wall = [r[1] for r in runs]
        self.out = runs[-1][2]

    @property
    def median(self) -> float:
        return statistics.median(self.cpu)

    def line(self, base: float | None = None) -> str:
        ratio = f"  {self.median / base:5.2f}x orjson ({min(self.cpu) / base:.2f}-{max(self.cpu) / base:.2f})" \
            if base else ""
        return (f"{self.median:7.3f} s CPU ({min(self.cpu):.3f}-{max(self.cpu):.3f}){ratio}"
                f"  | wall {statistics.median(self.wall):6.3f} s")


def _repeat(fn: Callable[[], Timed], repeat: int) -> Figure:
    return Figure([fn() for _ in range(max(1, repeat))])


# ---------------------------------------------------------------- the model, faked


_ITEM = re.compile(r"^(\d+)\. \[([^\]]*)\] (.*)$", re.M)


def _answer(tool: str, user: str) -> dict[str, Any]:
    """What a model would answer the four steps, for the homes' text."""
    text = " ".join(user.split()).casefold()
    items = [(int(m.group(1)), m.group(3)) for m in _ITEM.finditer(user.partition("ITEMS:\n")[2])]
    if tool == "record_candidates":
        return {"candidates": [{"kind": "directive", "text": d, "rationale": "said as a rule"}
                               for d in _DIRECTIVES if d in text]}
    if tool == "assign_labels":
        return {"labels": [{"id": i, "label": "-".join(re.findall(r"[a-z]+", t.casefold())[:4])
                            or "other"} for i, t in items]}
    if tool == "check_coverage":
        return {"verdicts": [{"id": i, "verdict": "new"} for i, _ in items]}
    return {"verdicts": [{"id": i, "accepted": True, "category": "workflow", "scope": "user",
                          "confidence": 0.9, "summary": t[:100], "rationale": "said often"}
                         for i, t in items]}


# ---------------------------------------------------------------- the measures


def orjson_base(home: Path, repeat: int) -> tuple[float, float]:
    paths = sorted(home.rglob("*.jsonl"))
    base = best_of_interleaved({"orjson": lambda: orjson_lines(paths)}, repeat)["orjson"][0]
    return base, sum(p.stat().st_size for p in paths) / 1e6


def orjson_bases(home: Path, repeat: int) -> tuple[float, float, float]:
    """(orjson in one process, orjson over the listing's processes at once, MB), CPU,
    best of `repeat`, the two alternating."""
    paths = sorted(home.rglob("*.jsonl"))
    best = best_of_interleaved({"one": lambda: orjson_lines(paths),
                                "cores": lambda: orjson_lines_at_once(paths, cores())},
                               repeat, clock=cpu_with_children)
    return best["one"][0], best["cores"][0], sum(p.stat().st_size for p in paths) / 1e6


def first(home: Path, work: Path, repeat: int) -> tuple[Figure, Figure]:
    """The first listing as a user runs it (a worker per core), and in one process
    (LEARN_PARSE_WORKERS=1), alternately."""
    runs: dict[str, list[Timed]] = {"cores": [], "one": []}
    for _ in range(max(1, repeat)):
        for how, runs_of in runs.items():
            shutil.rmtree(work, ignore_errors=True)
            extra = {"LEARN_PARSE_WORKERS": "1"} if how == "one" else {}
            runs_of.append(_learn(_env(home, work, **extra), "sessions", "--all-projects", "--json"))
    return Figure(runs["cores"]), Figure(runs["one"])


def warm(home: Path, work: Path, repeat: int) -> Figure:
    env = _env(home, work)
    _learn(env, "sessions", "--all-projects")  # the index filled, the judgement kept
    return _repeat(lambda: _learn(env, "sessions", "--all-projects"), repeat)


def changed(home: Path, work: Path, repeat: int) -> Figure:
    """The listing again after one session changed (see the module docstring)."""
    env = _env(home, work)
    listing = _learn(env, "sessions", "--all-projects", "--json")[2]  # the index filled
    rows = sorted(json.loads(listing)["sessions"], key=lambda r: r["size_bytes"])
    path = Path(rows[len(rows) // 2]["path"])

    def once() -> Timed:
        os.utime(path)  # its mtime now: the index's stamp no longer holds, it is read again
        return _learn(env, "sessions", "--all-projects")

    return _repeat(once, repeat)


def warm_run(home: Path, work: Path, repeat: int) -> tuple[Figure, list[float]]:
    from fakes.anthropic_server import FakeAnthropicServer
    from fakes.ratelimits import FakeAccountLimits

    # The homes' sessions are dated early 2026: all of them are in the window.
    args = ("run", "--all-projects", "--since", "2000-01-01", "--yes", "--json", "--quiet")
    # An account whose limits (advertised in each reply's headers) never hold the runs
    # back: learn's own pacing assumes the lowest tier (50 requests a minute) until told.
    roomy = FakeAccountLimits(requests=1e6, input_tokens=1e12, output_tokens=1e9)
    with FakeAnthropicServer(responder=lambda req: _answer(req.tool_name or "", req.user_text),
                             limits=roomy) as fake:
        env = _env(home, work, ANTHROPIC_API_KEY="benchmark", ANTHROPIC_BASE_URL=fake.base_url)
        # Mined directly (the fake serves no Message Batches).
        setup = [_learn(env, *args, "--no-batch")[0], _learn(env, *args, "--no-batch")[0]]
        calls = len(fake.requests)
        figure = _repeat(lambda: _learn(env, *args), repeat)
        if len(fake.requests) != calls:
            raise SystemExit(f"a run with nothing new called the model {len(fake.requests) - calls} times")
    return figure, setup


def show_picks(listing: str) -> dict[str, dict[str, Any]]:
    """The sessions `learn show` is measured on, from `learn sessions --json`: the largest,
    a median one, and in the big tree an observer's and a person's."""
    rows = sorted(json.loads(listing)["sessions"], key=lambda r: r["size_bytes"])
    picks = {"largest": rows[-1], "median": rows[len(rows) // 2]}
    observers = [r for r in rows if r["project"] == PLUGIN_DIR]
    people = [r for r in rows if r["project"] != PLUGIN_DIR]
    if observers:
        picks["observer"] = observers[len(observers) // 2]
        picks["person"] = people[len(people) // 2]
    return picks


def shows(home: Path, work: Path, repeat: int) -> dict[str, Figure]:
    env = _env(home, work)
    picks = show_picks(_learn(env, "sessions", "--all-projects", "--json")[2])
    out = {f"{name} ({r['size_bytes'] / 1e3:.0f} kB)": _repeat(lambda r=r: _learn(env, "show", r["id"]),
                                                                 repeat)
           for name, r in picks.items()}
    # Piped above; a person reads the largest in a terminal, styled and wrapped.
    big = picks["largest"]
    out[f"largest-terminal ({big['size_bytes'] / 1e3:.0f} kB)"] = _repeat(
        lambda: _learn_in_terminal(env, "show", big["id"]), repeat)
    return out


# ---------------------------------------------------------------- the report


def _named(stem: str, results: str) -> str:
    """A home's or work folder's name: the default homes' as before, others marked."""
    return stem if results == "short" else f"{stem}-{results}"


def _home(out: Path, shape: str, sessions: int, mb: int, results: str = "short") -> Path:
    home = out / _named(f"home-{shape}-{sessions}", results)
    marker = home / ".built"
    want = json.dumps([HOMES_VERSION, shape, sessions, mb] + ([results] if results != "short" else []))
    if not marker.is_file() or marker.read_text() != want:
        build(home, shape, sessions, mb, results=results)
        marker.write_text(want)
    return home


def _growth(values: dict[int, float]) -> str:
    sizes = sorted(values)
    steps = [values[b] / values[a] for a, b in pairwise(sizes)
             if b == 2 * a and values[a] > 0]
    return " ".join(f"{s:.2f}x" for s in steps) or "-"


# Issue 32's targets, each read from the figures that measure it.
TARGETS: Final = {
    "first": "first <= 3x orjson at 1,000 sessions",
    "doubling": "first <= 2.2x per doubling",
    "warm": "warm sessions <= 0.3 s at 1,000",
    "run": "run <= 1 s CPU at 1,000",
    "show": "show <= 0.3 s up to 1,000",
}


def verdict(held: Mapping[str, Sequence[bool]]) -> tuple[bool, list[str]]:
    """Whether no target measured was missed, and a line per target: met, NOT met (how
    many of its figures were within it), or not measured. `held`: each target's checks,
    one per figure that read it. A run that measured none of a target's figures (a
    `--measure` or `--sizes` that leaves it out) says so, never that it was met."""
    lines = []
    for key, text in TARGETS.items():
        checks = held.get(key, ())
        if not checks:
            state = "not measured"
        elif all(checks):
            state = "met"
        else:
            state = f"NOT met ({sum(checks)} of {len(checks)} figures within it)"
        lines.append(f"  {text}: {state}")
    return all(all(c) for c in held.values()), lines


def main(argv: list[str]) -> int:
    from benchmarks.index import _option, _text_option

    args = list(argv)
    repeat = _option(args, "--repeat", 3)
    mb = _option(args, "--mb", 300)
    shapes = _text_option(args, "--shapes", ",".join(SHAPES)).split(",")
    sizes = [int(s) for s in _text_option(args, "--sizes", "250,500,1000,2000").split(",")]
    measures = set(_text_option(args, "--measure", "first,warm,changed,run,show").split(","))
    results = _text_option(args, "--results", "short")
    config = take_config_flag(args)
    out = out_dir(args, Path(__file__).parent / "out" / "speed")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "learn")], check=True,
                   capture_output=True)
    held: dict[str, list[bool]] = {key: [] for key in TARGETS}
    growth: dict[tuple[str, str], dict[int, float]] = {}
    for shape in shapes:
        for n in sizes:
            home = _home(out, shape, n, mb, results)
            work = out / _named(f"work-{shape}-{n}" + ("-config" if config else ""), results)
            base, at_once, megabytes = orjson_bases(home, repeat)
            print(f"\n{shape}, {n} sessions, {megabytes:.0f} MB: orjson.loads of every line "
                  f"{base:.3f} s CPU (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores);"
                  f" over {cores()} processes at once {at_once:.3f} s CPU ({at_once / base:.2f}x)")
            if "first" in measures:
                fig, one = first(home, work, repeat)
                growth.setdefault((shape, "first"), {})[n] = fig.median
                print(f"  first `learn sessions --all-projects --json`  {fig.line(base)}")
                print(f"    against orjson over {cores()} processes at once: "
                      f"{fig.median / at_once:.2f}x; in one process (LEARN_PARSE_WORKERS=1): "
                      f"{one.line(base)}")
                if n == 1000:
                    held["first"].append(fig.median / base <= 3.0)
            if "warm" in measures:
                fig = warm(home, work, repeat)
                growth.setdefault((shape, "warm"), {})[n] = fig.median
                print(f"  warm `learn sessions --all-projects`           {fig.line()}")
                if n == 1000:
                    held["warm"].append(fig.median <= 0.3)
            if "changed" in measures:
                fig = changed(home, work, repeat)
                growth.setdefault((shape, "changed"), {})[n] = fig.median
                print(f"  `learn sessions --all-projects`, one changed   {fig.line()}")
            if "run" in measures:
                fig, setup = warm_run(home, work, repeat)
                growth.setdefault((shape, "run"), {})[n] = fig.median
                print(f"  `learn run --all-projects` with nothing new    {fig.line()}"
                      f"  (first runs: {setup[0]:.1f} s, {setup[1]:.1f} s CPU)")
                if n == 1000:
                    held["run"].append(fig.median <= 1.0)
            if "show" in measures:
                for name, fig in shows(home, work, repeat).items():
                    growth.setdefault((shape, f"show {name.split()[0]}"), {})[n] = fig.median
                    print(f"  `learn show` {name:31}   {fig.line()}")
                    if n <= 1000:
                        held["show"].append(fig.median <= 0.3)
    print("\ngrowth per doubling of sessions (time at 2N / at N):")
    for (shape, what), values in growth.items():
        steps = _growth(values)
        print(f"  {shape:7} {what:18} {steps}")
        if what == "first":
            held["doubling"] += [float(s[:-1]) <= 2.2 for s in steps.split() if s != "-"]
    ok, lines = verdict(held)
    print("\ntargets (issue 32)" + ("" if ok else ": NOT all met") + ":")
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
