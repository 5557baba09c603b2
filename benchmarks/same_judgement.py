"""Is the judgement across sessions byte for byte what another revision gives?

    .venv/bin/python benchmarks/same_judgement.py [OUT_DIR] [--ref main] [--sessions 250]
                                                  [--shows 12]

A change to HOW sessions are compared (indexes instead of pairs, keys instead of
texts) must not change WHAT is judged. This exports REF (`git archive`), builds
each shape of benchmarks/homes.py at --sessions sessions, and runs the same
commands with REF's code and this tree's (the same interpreter and packages,
fresh data and cache directories each), then compares:

- `learn sessions --all-projects --json`, with and without
  `--include-programmatic`: the same bytes;
- the session index rows each wrote: per file, the same summary and the same
  redacted turns (the version and the turns' keys differ by design);
- `learn show --json` of --shows sessions of each home (the largest, then an
  even spread by size, observer sessions of the big tree among them): the same
  bytes.

Prints one line per comparison and exits 1 on any difference.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.homes import SHAPES, build  # noqa: E402
from benchmarks.index import _option, _text_option  # noqa: E402
from benchmarks.outdir import out_dir  # noqa: E402


def _export(ref: str, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "learn"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _env(code: Path, home: Path, data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEARN_", "ANTHROPIC_"))}
    env.update(PYTHONPATH=str(code), PYTHONDONTWRITEBYTECODE="1",
               CLAUDE_CONFIG_DIR=str(home / ".claude"), CODEX_HOME=str(home / ".codex"),
               LEARN_DATA_DIR=str(data / "data"), LEARN_CACHE_DIR=str(data / "cache"),
               LEARN_CONFIG_DIR=str(data / "config"))
    return env


def _learn(code: Path, home: Path, data: Path, *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "learn", *args], env=_env(code, home, data),
                         capture_output=True, text=True, timeout=3600, cwd=code)
    if out.returncode != 0:
        raise SystemExit(f"learn {' '.join(args)} ({code}): {out.stderr[-2000:]}")
    return out.stdout


def _rows(data: Path) -> dict[str, tuple[str, str | None]]:
    import apsw

    conn = apsw.Connection(str(data / "data" / "learn.db"), flags=apsw.SQLITE_OPEN_READONLY)
    return {p: (s, t) for p, s, t in conn.execute("SELECT path, summary, prompts FROM session_index")}


def _picks(listing: str, count: int) -> list[str]:
    rows = sorted(json.loads(listing)["sessions"], key=lambda r: r["size_bytes"])
    if not rows:
        return []
    step = max(1, len(rows) // max(1, count - 1))
    ids = [rows[-1]["id"], *(r["id"] for r in rows[::step])]
    return list(dict.fromkeys(ids))[:count]


def compare(ref_code: Path, home: Path, work: Path, shows: int) -> bool:
    same = True
    listings: dict[str, str] = {}
    for args in (("sessions", "--all-projects", "--json"),
                 ("sessions", "--all-projects", "--json", "--include-programmatic")):
        got = {}
        for name, code in (("ref", ref_code), ("here", ROOT)):
            data = work / f"data-{name}"
            shutil.rmtree(data, ignore_errors=True)
            got[name] = _learn(code, home, data, *args)
        ok = got["ref"] == got["here"]
        same &= ok
        listings.setdefault("plain", got["here"])
        print(f"  {' '.join(args):58} {'same' if ok else 'DIFFERENT'} ({len(got['here'])} bytes)")
    ref_rows, here_rows = _rows(work / "data-ref"), _rows(work / "data-here")
    differ = sorted(p for p in ref_rows.keys() | here_rows.keys() if ref_rows.get(p) != here_rows.get(p))
    same &= not differ
    print(f"  index rows (summary, redacted turns) of {len(here_rows)} files: "
          f"{'same' if not differ else f'{len(differ)} DIFFERENT, e.g. {differ[:3]}'}")
    for sid in _picks(listings["plain"], shows):
        shown = {name: _learn(code, home, work / f"data-{name}", "show", "--json", sid)
                 for name, code in (("ref", ref_code), ("here", ROOT))}
        ok = shown["ref"] == shown["here"]
        same &= ok
        print(f"  learn show --json {sid[:8]}: {'same' if ok else 'DIFFERENT'}")
    return same


def main(argv: list[str]) -> int:
    args = list(argv)
    sessions = _option(args, "--sessions", 250)
    shows = _option(args, "--shows", 12)
    ref = _text_option(args, "--ref", "main")
    out = out_dir(args, Path(tempfile.mkdtemp(prefix="same-judgement-")))
    ref_code = _export(ref, out / "ref")
    same = True
    for shape in SHAPES:
        home = out / f"home-{shape}-{sessions}"
        build(home, shape, sessions, mb=max(30, sessions * 300 // 1000))
        print(f"{shape}, {sessions} sessions: {ref} against this tree")
        same &= compare(ref_code, home, out / f"work-{shape}", shows)
    print("the same judgement" if same else "DIFFERENT judgements")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
