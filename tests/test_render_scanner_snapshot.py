"""The maintained rule set comes from a snapshot only while it is exactly the library's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from learn.redaction import scanner

ROOT = Path(__file__).resolve().parent.parent


def _shape(detectors: tuple[scanner._Detector, ...]) -> list[tuple[str, list[tuple[str, int]], tuple[str, ...]]]:
    return [(kind, [(p.pattern, int(p.flags)) for p in patterns], gate)
            for kind, patterns, gate in detectors]


def test_the_snapshot_file_is_what_the_installed_library_generates() -> None:
    text = (ROOT / "learn" / "redaction" / "scanner_snapshot.py").read_text()
    assert text == scanner.snapshot_source(), (
        "detect-secrets changed: regenerate learn/redaction/scanner_snapshot.py (see its docstring)")


def test_the_detectors_used_are_the_librarys_own() -> None:
    scanner._forget()
    try:
        used = scanner._detectors()
    finally:
        scanner._forget()
    live = scanner.live_detectors()
    assert len(live) > 20
    assert _shape(used) == _shape(live)


def test_a_release_the_snapshot_was_not_taken_from_is_read_live(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scanner, "installed_version", lambda: "0.0-other")
    calls: list[int] = []
    real = scanner.live_detectors
    monkeypatch.setattr(scanner, "live_detectors", lambda: calls.append(1) or real())
    scanner._forget()
    try:
        assert _shape(scanner._detectors()) == _shape(real())
    finally:
        scanner._forget()
    assert calls == [1]


def test_redacting_does_not_import_the_library() -> None:
    # Its import (requests, urllib3) cost ~0.1 s of CPU in every `learn show`.
    code = ("import sys\nfrom learn.redaction.redact import redact\n"
            "out = redact('token ghp_' + 'a1B2' * 9 + ' at https://u:hunter2pw@db.example')\n"
            "assert 'REDACTED' in out, out\n"
            "print(sorted(m for m in sys.modules if m.startswith(('detect_secrets', 'requests'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_a_text_compiles_only_the_detectors_its_words_call_on() -> None:
    # Compiling all 45 patterns was ~7 ms of every `learn show` (issue 32).
    from learn.redaction.redact import redact

    scanner._forget()
    try:
        out = redact("my token is ghp_" + "a1B2" * 9)
        compiled = scanner._patterns.cache_info().currsize
        assert "ghp_" not in out
        github = next(i for i, (kind, _, _) in enumerate(scanner._sources()) if kind == "github-token")
        assert scanner._patterns(github) and scanner._patterns.cache_info().currsize == compiled
        assert 0 < compiled < len(scanner._sources()) // 2
        assert len(scanner._detectors()) == len(scanner._sources())  # all of them, when asked for
        assert scanner._patterns.cache_info().currsize == len(scanner._sources())
    finally:
        scanner._forget()


def test_a_pattern_counted_first_matches_only_with_its_character_twice() -> None:
    # scanner._TWICE skips a pattern on a text holding its character fewer than twice:
    # exact only while no match of the pattern holds it fewer times. Each listed pattern
    # is a detector's, and a token it takes loses its match with either dot gone.
    import re

    patterns = {p.pattern: p for _, ps, _ in scanner._detectors() for p in ps}
    token = "MTAxMjM0NTY3ODkwMTIzNDU2Nzg5.GhIjKl.abcdefghijklmnopqrstuvwxyz1"
    for source, char in scanner._TWICE.items():
        assert source in patterns
        assert len(re.sub(r"\[[^]]*\]", "", source).split("\\" + char)) - 1 >= 2
        assert patterns[source].search(token)
        for at in (i for i, c in enumerate(token) if c == char):
            assert not patterns[source].search(token[:at] + "_" + token[at + 1:])
    assert scanner.scanner_spans(f"tok {token}", frozenset({"."}))
    assert not scanner.scanner_spans(f"tok {token.replace('.', '-', 1)}", frozenset({"."}))
