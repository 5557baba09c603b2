"""Where learn's check keeps a project's rules and notes: `<data dir>/checks/`.

One data file per project (`<folder name>-<hash of its path>.json`), its hits log
beside it (learn.guard.rules.hits_path), and the install record learn keeps to
take the hook away again (learn.report.check_install).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from learn.paths import data_dir


def checks_dir(root: Path | None = None) -> Path:
    return (root if root is not None else data_dir()) / "checks"


def _file_stem(project: str) -> str:
    name = os.path.basename(project.rstrip("/")) or "root"
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in name)[:40]
    return f"{safe}-{hashlib.sha256(project.encode('utf-8')).hexdigest()[:12]}"


def rules_file(project: str, root: Path | None = None) -> Path:
    return checks_dir(root) / f"{_file_stem(project)}.json"


def record_file(project: str, root: Path | None = None) -> Path:
    return checks_dir(root) / f"{_file_stem(project)}.install.json"
