"""What the miner is sent of each transcript fixture, as one sha256 per file, under the
render version that sent it: `tests/test_render_version.py` fails when a fixture renders
differently while RENDER_VERSION stayed, the mistake that kept every cached answer of a
finished Codex rollout through a round that changed what its sessions send (upgrade
audit, 2026-12).

    .venv/bin/python tests/render_fingerprints.py --write   # after bumping RENDER_VERSION
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
STORED = ROOT / "fixtures" / "render_fingerprints.json"


def fingerprints() -> dict[str, str]:
    """fixture path (relative to tests/fixtures) -> sha256 of its rendered blocks."""
    from learn.render.render import render_blocks
    from learn.transcripts.parser import parse
    from learn.transcripts.view.session import build_session

    out: dict[str, str] = {}
    base = ROOT / "fixtures"
    for path in sorted(base.rglob("*.jsonl")):
        try:
            blocks = render_blocks(build_session(parse(path)), ())
        except Exception:  # a fixture of a malformed file: nothing to fingerprint
            continue
        h = hashlib.sha256()
        for block in blocks:
            h.update(block.encode("utf-8", "surrogatepass") + b"\x1e")
        out[path.relative_to(base).as_posix()] = h.hexdigest()
    return out


def main(argv: list[str]) -> int:
    from learn.render_version import RENDER_VERSION

    if argv != ["--write"]:
        print(__doc__)
        return 2
    STORED.write_text(json.dumps({"render_version": RENDER_VERSION, "files": fingerprints()},
                                 indent=1, sort_keys=True) + "\n")
    print(f"wrote {STORED}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT.parent))
    raise SystemExit(main(sys.argv[1:]))
