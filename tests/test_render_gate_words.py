"""One pass (an Aho-Corasick automaton) finds exactly the words a substring test per word finds."""

from __future__ import annotations

import random

from learn.redaction.gate_words import WordFinder
from learn.redaction.redact import _ALL_GATE_WORDS, _gate_words_in


def _naive(words: list[str], text: str) -> set[str]:
    return {w for w in words if w and w in text}


def test_overlapping_nested_and_prefix_words_are_all_found() -> None:
    words = ["pass", "passw", "password", "sword", "wor", "ss", "a", "sk-", "k-ant", "sk-ant-", "*", "(?"]
    find = WordFinder(words)
    for text in ["password", "passwor", "paswordsk-ant-x", "ssk-anx", "x*y(?z", "", "sswor", "pa ss"]:
        assert find(text) == _naive(words, text), text


def test_random_texts_match_the_substring_test() -> None:
    rng = random.Random(7)
    alphabet = "abc:-_ "
    for _ in range(300):
        words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4))) for _ in range(12)]
        find = WordFinder(words)
        for _ in range(10):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
            assert find(text) == _naive(words, text), (words, text)


def test_non_ascii_and_lone_surrogates_find_the_same_words() -> None:
    # A lone surrogate (decoded from a JSON escape) cannot be encoded as UTF-8: the
    # search must still find the words around it, and none across it.
    words = ["pass", "密码", "ü", "ab", "b\u00e9"]
    find = WordFinder(words)
    for text in ["pass\ud800ab", "pa\udfffss", "\ud83d密码\ude00", "übé pass", "\udc00", "ab\ud800\udc00"]:
        assert find(text) == _naive(words, text), text


def test_redactions_gate_words_are_those_the_text_holds() -> None:
    words = sorted(_ALL_GATE_WORDS)
    texts = ["Password: hunter2 at https://u:p@h", "export AWS_SECRET_ACCESS_KEY=abc", "密码：x",
             "curl -u me:pw http://x", "AKIA AIza eyJ ghp_ xoxb- sk-ant- $2b$", "nothing here", ""]
    for text in texts:
        lower = text.lower()
        expected = {w for w in words if (w in text if w != w.lower() else w in lower)}
        assert _gate_words_in(text) == expected, text
