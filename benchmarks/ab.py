"""What the run-by-run comparisons share (show_against.py, listing_against.py): their
options, REF's code exported (`git archive`) and both codes compiled, and the homes.

    [OUT_DIR] [--ref main] [--shapes spread,tree,long] [--sessions 1000] [--mb 300]
    [--repeat N] [--config]

`--config`: both codes run with a config file such as a person keeps (speed.py's
`PERSON_CONFIG`, `take_config_flag`).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks.homes import SHAPES
from benchmarks.index import _option, _text_option
from benchmarks.outdir import out_dir
from benchmarks.same_judgement import _export
from benchmarks.speed import _home, take_config_flag

ROOT = Path(__file__).resolve().parent.parent


def compiled(code: Path) -> None:
    """Bytecode for `code`'s learn, as pip installs it (each run then starts the same)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "learn")], check=True,
                   capture_output=True)


@dataclass(frozen=True)
class AB:
    ref: str
    ref_code: Path
    shapes: list[str]
    sessions: int
    mb: int
    repeat: int
    out: Path

    @classmethod
    def from_argv(cls, argv: list[str], *, repeat: int, out: Path) -> AB:
        args = list(argv)
        ref = _text_option(args, "--ref", "main")
        shapes = _text_option(args, "--shapes", ",".join(SHAPES)).split(",")
        sessions = _option(args, "--sessions", 1000)
        mb = _option(args, "--mb", 300)
        times = _option(args, "--repeat", repeat)
        take_config_flag(args)
        where = out_dir(args, out)
        ref_code = _export(ref, where / f"ref-{ref}")
        compiled(ref_code)
        compiled(ROOT)
        return cls(ref, ref_code, shapes, sessions, mb, times, where)

    def homes(self, how: str | None = None) -> Iterator[tuple[str, Path]]:
        """Each shape's home (built once under the output folder), its header printed
        (`how` the figures are taken)."""
        how = how or f"CPU median of {self.repeat} alternating runs"
        for shape in self.shapes:
            home = _home(self.out, shape, self.sessions, self.mb)
            print(f"{shape}, {self.sessions} sessions: {self.ref} (ref) against this tree "
                  f"(here), {how}", flush=True)
            yield shape, home
