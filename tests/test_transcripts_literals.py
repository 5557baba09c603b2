"""The protocol-string helpers shared by the session view and the detectors."""

from __future__ import annotations

from learn.transcripts.claude.literals import (
    DENIAL_PREFIX,
    USER_SAID_MARKER,
    USER_SAID_TRAILER,
    denial_reason,
    embedded_reason,
    is_bare_interrupt,
)


def test_embedded_reason_needs_no_banner_but_denial_reason_does() -> None:
    body = f"{USER_SAID_MARKER}use bun\n\n{USER_SAID_TRAILER} may contain a correction"
    assert embedded_reason("Your questions ... " + body) == "use bun"
    assert denial_reason("Your questions ... " + body) is None
    assert denial_reason(DENIAL_PREFIX + " (eg.) " + body) == "use bun"
    assert embedded_reason("no marker here") is None


def test_bare_interrupt_is_the_marker_alone() -> None:
    assert is_bare_interrupt("  [Request interrupted by user for tool use]\n")
    assert is_bare_interrupt("[Request Interrupted by user]")
    assert not is_bare_interrupt("[Request interrupted by user] and use bun")
    assert not is_bare_interrupt("he said [Request interrupted by user]")
