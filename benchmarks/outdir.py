"""The output folder a benchmark script is given: the one shape they all share.

Each script takes its options out of its arguments, then the folder left, if
any. A word that looks like an option is refused rather than taken for a
folder: `listing_parts.py --help` once built a 343 MB home in a folder named
`--help`.
"""

from __future__ import annotations

import sys
from pathlib import Path


def out_dir(args: list[str], default: Path) -> Path:
    """The output folder left in `args` once the options are taken out, else `default`.

    A word that looks like an option is refused rather than taken for a folder:
    `listing_parts.py --help` once built a 343 MB home in a folder named `--help`.
    `-h`/`--help` print the script's docstring, its usage.
    """
    for arg in args:
        if arg in ("-h", "--help"):
            print((sys.modules["__main__"].__doc__ or "").strip())
            raise SystemExit(0)
        if arg.startswith("-"):
            raise SystemExit(f"unknown option {arg!r}: the usage is at the top of the script")
    if len(args) > 1:
        raise SystemExit(f"one output folder at most, got {args!r}")
    return Path(args[0]) if args else default
