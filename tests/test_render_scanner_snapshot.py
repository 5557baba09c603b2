"""The maintained rule set comes from a snapshot only while it is exactly the library's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from learn.render import scanner

ROOT = Path(__file__).resolve().parent.parent


def _shape(detectors: tuple[scanner._Detector, ...]) -> list[tuple[str, list[tuple[str, int]], tuple[str, ...]]]:
    return [(kind, [(p.pattern, int(p.flags)) for p in patterns], gate)
            for kind, patterns, gate in detectors]


def test_the_snapshot_file_is_what_the_installed_library_generates() -> None:
    text = (ROOT / "learn" / "render" / "scanner_snapshot.py").read_text()
    assert text == scanner.snapshot_source(), (
        "detect-secrets changed: regenerate learn/render/scanner_snapshot.py (see its docstring)")


def test_the_detectors_used_are_the_librarys_own() -> None:
    scanner._detectors.cache_clear()
    try:
        used = scanner._detectors()
    finally:
        scanner._detectors.cache_clear()
    live = scanner.live_detectors()
    assert len(live) > 20
    assert _shape(used) == _shape(live)


def test_a_release_the_snapshot_was_not_taken_from_is_read_live(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scanner, "installed_version", lambda: "0.0-other")
    calls: list[int] = []
    real = scanner.live_detectors
    monkeypatch.setattr(scanner, "live_detectors", lambda: calls.append(1) or real())
    scanner._detectors.cache_clear()
    try:
        assert _shape(scanner._detectors()) == _shape(real())
    finally:
        scanner._detectors.cache_clear()
    assert calls == [1]


def test_redacting_does_not_import_the_library() -> None:
    # Its import (requests, urllib3) cost ~0.1 s of CPU in every `learn show`.
    code = ("import sys\nfrom learn.render.redact import redact\n"
            "out = redact('token ghp_' + 'a1B2' * 9 + ' at https://u:hunter2pw@db.example')\n"
            "assert 'REDACTED' in out, out\n"
            "print(sorted(m for m in sys.modules if m.startswith(('detect_secrets', 'requests'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True)
    assert out.stdout.strip() == "[]"
