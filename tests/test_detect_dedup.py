"""dedup_key: content-derived, NUL-joined SHA-256."""

from __future__ import annotations

import hashlib

from learn.detect import dedup_key


def test_dedup_key_is_sha256_of_nul_joined_parts() -> None:
    expected = hashlib.sha256(b"s1\x00interrupt_rejection\x00use uv").hexdigest()
    assert dedup_key("s1", "interrupt_rejection", "use uv") == expected
    assert len(expected) == 64


def test_dedup_key_parts_are_not_ambiguous() -> None:
    assert dedup_key("ab", "c") != dedup_key("a", "bc")
    assert dedup_key("s", "k", "t") == dedup_key("s", "k", "t")
