"""RENDER_VERSION moves whenever what the miner is sent of a transcript does.

A cached mining answer is keyed by the file's bytes and the render version: a reader
that sends a session differently under the same version keeps serving the answer to
the old text (the upgrade audit of 2026-12: Codex 0.171's prompts, read for the first
time, never reached the miner for a rollout mined before). Each fixture's rendered
text is fingerprinted under the version that rendered it (tests/render_fingerprints.py).
"""

from __future__ import annotations

import json

from render_fingerprints import STORED, fingerprints

from learn.render_version import RENDER_VERSION


def test_a_fixture_renders_as_it_did_unless_the_render_version_moved() -> None:
    stored = json.loads(STORED.read_text())
    now = fingerprints()
    changed = sorted(p for p, digest in stored["files"].items() if p in now and now[p] != digest)
    if stored["render_version"] == RENDER_VERSION:
        assert not changed, (
            f"{len(changed)} fixture(s) render differently under RENDER_VERSION "
            f"{RENDER_VERSION} ({', '.join(changed[:5])}): bump RENDER_VERSION "
            "(learn/render_version.py) so cached answers to the old text are not reused, "
            "then run `.venv/bin/python tests/render_fingerprints.py --write`")
    else:
        assert stored["render_version"] < RENDER_VERSION, "the render version went back"


def test_the_fingerprints_cover_the_readers_fixtures() -> None:
    files = json.loads(STORED.read_text())["files"]
    for reader in ("codex_0171/", "claude_21332/", "shapes/"):
        assert any(p.startswith(reader) for p in files), reader
