"""Redaction's rules compile when a text first calls on them, and run only on a text
holding the words their pattern cannot match without.

A process that redacts a few texts (`learn show` of a short session) compiles a few
of ~100 rules; a gate is a substring test, ~100x cheaper than a regex scan, so a gate
must be exact: no text the pattern matches may lack every gate word (a match would
be missed and a secret printed).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from learn.lazy import compiled, is_compiled, lazy_pattern
from learn.redaction import scanner
from learn.redaction.redact import redact
from learn.redaction.secret_rules import CONTEXT_RULES, VENDOR_RULES
from tests.secrets_corpus import DECOYS, SECRETS

_ROOT = Path(__file__).resolve().parent.parent


def test_a_pattern_is_compiled_at_its_first_use_and_once() -> None:
    broken = lazy_pattern("(")  # not a regex: nothing complains until it is used
    with pytest.raises(re.error):
        broken.sub("", "text")
    pattern = lazy_pattern(r"a+", re.I)
    assert not is_compiled(pattern)
    assert pattern.sub("-", "bAAd") == "b-d"
    assert is_compiled(pattern)
    assert compiled(pattern) is compiled(pattern)
    assert compiled(pattern).flags & re.I


def test_importing_the_redaction_compiles_none_of_its_rules() -> None:
    program = (
        "from learn.redaction.redact import redact as _\n"
        "from learn.redaction.secret_rules import CONTEXT_RULES, VENDOR_RULES, LABELLED_PASSWORD_RE\n"
        "from learn.redaction import scanner\n"
        "rules = [p for _, p, _ in VENDOR_RULES + CONTEXT_RULES] + [LABELLED_PASSWORD_RE]\n"
        "from learn.lazy import is_compiled\n"
        "print(sum(is_compiled(p) for p in rules), scanner._patterns.cache_info().currsize)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], cwd=_ROOT, capture_output=True, text=True,
                          check=False, env={"PYTHONPATH": str(_ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "0"]


def _gate_open(gate: tuple[str, ...], text: str) -> bool:
    """As redaction reads a gate: a word with capitals as written, any other lower-cased."""
    lower = text.lower()
    return any(word in (text if word != word.lower() else lower) for word in gate)


def _gated() -> list[tuple[str, re.Pattern[str], tuple[str, ...]]]:
    rules = [(kind, compiled(p), gate) for kind, p, gate in VENDOR_RULES + CONTEXT_RULES]
    rules += [(kind, pattern, gate) for i, (kind, _, gate) in enumerate(scanner._sources())
              for pattern in scanner._patterns(i)]
    return rules


def test_every_rule_that_matches_a_planted_secret_or_a_decoy_has_its_gate_open() -> None:
    texts = [text for _, text, _ in SECRETS + DECOYS]
    for kind, pattern, gate in _gated():
        for text in texts:
            if pattern.search(text):
                assert _gate_open(gate, text), (kind, text)


# Texts near a Twilio key and a Discord bot token: their prefixes in every case, hex and
# base64 runs, dots, the words that hold "sk" and "ac" ("ask", "back").
_NEAR = ["SK", "sk", "Sk", "sK", "AC", "ac", "Ac", "aC", "ask ", "back ", "0123456789abcdef" * 2,
         "0123456789ABCDEF", "M", "N", "O", "abcdefghijklmnopqrstuvwxy", "abcdef", ".", " ", "_-", "x" * 27]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_NEAR), max_size=14).map("".join))
def test_twilio_and_discord_rules_run_on_every_text_they_match(text: str) -> None:
    for kind, pattern, gate in _gated():
        if kind in ("twilio-key", "twilio-api-key", "discord-bot-token") and pattern.search(text):
            assert _gate_open(gate, text), (kind, text)


@pytest.mark.parametrize("text", [
    "SK" + "0123456789abcdef" * 2,
    "key AC" + "0123456789abcdef" * 2 + " here",
    "M" + "a" * 23 + ".abcdef." + "b" * 27,
])
def test_a_twilio_key_and_a_discord_token_are_still_redacted(text: str) -> None:
    assert "[REDACTED:" in redact(text)


def test_a_module_level_pattern_is_its_compiled_self_once_used() -> None:
    # Calls through the lazy object cost more than through a compiled pattern: once
    # compiled, the module's name for it holds the compiled pattern.
    module: dict[str, object] = {}
    exec("from learn.lazy import lazy_pattern\nWORD = lazy_pattern(r'\\w+')\n"
         "def first(text):\n    return WORD.match(text).group()\n", module)
    lazy = module["WORD"]
    assert not isinstance(lazy, re.Pattern)
    assert module["first"]("hello there") == "hello"  # type: ignore[operator]
    assert isinstance(module["WORD"], re.Pattern)
    assert lazy.search("  x").group() == "x"  # type: ignore[attr-defined]  # a kept reference still works


def test_a_lazy_pattern_copies_and_pickles_as_the_pattern_it_stands_for() -> None:
    import copy
    import pickle

    lazy = lazy_pattern(r"(?i)b+")
    for other in (copy.copy(lazy), copy.deepcopy([lazy])[0], pickle.loads(pickle.dumps(lazy))):
        assert isinstance(other, re.Pattern)
        assert other.sub("-", "aBbc") == "a-c"
    assert not is_compiled(lazy)  # copying it was not a use
