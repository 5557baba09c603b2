"""The protocol-string helpers shared by the session view and the detectors."""

from __future__ import annotations

import re

import pytest

from learn.transcripts.claude.literals import (
    AGENT_INJECTION_PATTERNS,
    AGENT_INJECTION_RE,
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


@pytest.mark.parametrize("lead", ["", "  ", "\n\t", "\u00a0", "\u3000", " x"])
@pytest.mark.parametrize("body", [
    "<teammate-message from=a>hi", "<scheduled-task>", "# Augment Agent", "[Role Reminder] x",
    "Another Claude session sent a message:", "A peer session sent a message while you were working:",
    "The lint plugin sent a message:", "The " + "x" * 61 + " plugin sent a message:",
    "<agent-message from=a>", "<agent-messages>", "<cross-session-message\nfrom=b>",
    "<command-name>/pr</command-name>", "[Request interrupted by user]", "Another", "", "The",
])
def test_the_one_injection_pattern_matches_as_its_alternatives_do(lead: str, body: str) -> None:
    # AGENT_INJECTION_RE skips the leading whitespace once for all its alternatives.
    each = any(re.match(p, lead + body) for p in AGENT_INJECTION_PATTERNS)
    assert (AGENT_INJECTION_RE.match(lead + body) is not None) is each
    assert all(p.startswith(r"\A\s*") and not p.removeprefix(r"\A\s*")[:1].isspace()
               for p in AGENT_INJECTION_PATTERNS)
