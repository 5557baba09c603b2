"""What both clients' writers share: deterministic uuids and times, the JSONL
writer (file mtime = the session's last activity), a corpus root made fresh."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any


def stable_uuid(*parts: str) -> str:
    return str(uuid.UUID(bytes=hashlib.sha256("\0".join(parts).encode()).digest()[:16], version=4))


def stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def fresh_root(root: Path) -> None:
    """Empty `root` for a rebuild, refusing any non-empty directory that is not a
    corpus learn built (one without gold.json): a wrong path must not be wiped."""
    if root.exists() and any(root.iterdir()):
        if not (root / "gold.json").exists():
            raise ValueError(f"{root} is not empty and is not a corpus learn built; refusing to replace it")
        shutil.rmtree(root)


def encode_cwd(cwd: str) -> str:
    """Claude Code's project directory name: every non-alphanumeric becomes '-'."""
    return "".join(c if c.isalnum() else "-" for c in cwd)


def write_jsonl(path: Path, lines: list[dict[str, Any]], mtime: datetime) -> None:
    text = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    when = mtime.timestamp()
    os.utime(path, (when, when))


def session_id(name: str) -> str:
    """A stable uuid-shaped session id from a readable name."""
    return stable_uuid("session", name)
