"""Passwords handed to a command on its stdin: piped in (`echo pw | sudo -S …`,
`printf 'pw\\n' | sudo --stdin …`) or as a here-string (`sudo -S <<< 'pw' …`).

The pipe took `echo pw` into `sudo -S`, `chpasswd`, `passwd --stdin`, `docker login
--password-stdin` and `gh secret set`, and the here-string `sudo -S <<< pw`, but
`printf 'pw\\n' | sudo -S`, `echo "two words" | sudo -S` and `sudo --stdin` went
through in clear; the two rules spelled `sudo -S` each their own way. Here one
pattern (SUDO_STDIN) says when sudo reads its password from stdin, and one function
says what the value is, so both forms keep to the same reading. The reader may be
named by its path (`echo pw | /usr/bin/sudo -S`). A variable (`"$PW"`,
`$(cat pw)`) is no value (`secret_fields.is_variable_ref`), nor is a printf format
whose value is an argument (`printf '%s\\n' "$PW"`).

Each rule is (words one of which the lower-cased text must contain, pattern,
replacement), in the shape of `redact._GATED_RULES`, which runs them.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import Final

from learn.lazy import lazy_pattern
from learn.redaction.secret_values import is_placeholder, marker

# `sudo` reading its password from stdin: `-S` (alone or in a cluster, `-kS`, `-Su bob`)
# or `--stdin`, after sudo's own options only: in `sudo pacman -S vim` the `-S` is
# pacman's. The options that take a value (sudo(8): `-u bob`, `-ubob`, `--user bob`,
# `--user=bob`, `-p 'Pass: '`) are read with their value, so that the value is not
# taken for the command: `echo pw | sudo --user bob -S id` and `sudo --prompt 'x y'
# --stdin` kept their password when only `--name=value` was read. In a cluster a letter
# that takes a value takes the rest of the word (getopt), so `-uS` is the user `S`, not
# stdin, and `sudo -uS id` reads no password. The options read are bounded (eight), and
# so is each value (128 characters), so that no `sudo` reads to its line's end (what
# made `echo` quadratic, _MAX_PIPED_WORDS): 1 MB lines of `sudo -u sudo …`, `-k -k …`,
# one long value or an open quote take under 0.2 s each
# (tests/test_render_redact_stdin_users.py).
_SUDO_VALUED_LETTERS: Final = "aCcDghpRrTtUu"
_SUDO_FLAG_LETTERS: Final = "".join(c for c in string.ascii_letters if c not in _SUDO_VALUED_LETTERS)
_SUDO_VALUED_NAMES: Final = (
    r"(?:user|group|host|prompt|other-user|close-from|chdir|role|type|command-timeout|chroot"
    r"|auth-type|login-class)(?![\w-])"
)
_MAX_SUDO_OPTIONS: Final = 8
_MAX_SUDO_VALUE_CHARS: Final = 128
_SUDO_WORD_CHAR: Final = r"[^\s|;&<>()`]"
# One value: quoted either way or bare (a bare one starts with no `-`: that is an option).
_SUDO_VALUE: Final = (
    rf"(?:'[^'\n]{{0,{_MAX_SUDO_VALUE_CHARS}}}'"
    rf'|"(?:[^"\\\n]|\\.){{0,{_MAX_SUDO_VALUE_CHARS}}}"'
    rf"|[^\s'\"|;&<>()`-]{_SUDO_WORD_CHAR}{{0,{_MAX_SUDO_VALUE_CHARS}}}(?!{_SUDO_WORD_CHAR}))"
)
_SUDO_OPTION: Final = (
    rf"-[{_SUDO_FLAG_LETTERS}]*[{_SUDO_VALUED_LETTERS}](?:{_SUDO_WORD_CHAR}{{1,{_MAX_SUDO_VALUE_CHARS}}}"
    rf"(?!{_SUDO_WORD_CHAR})|[ \t]+{_SUDO_VALUE})"
    rf"|-[{_SUDO_FLAG_LETTERS}]+(?![\w-])"
    rf"|--{_SUDO_VALUED_NAMES}(?:=|[ \t]+){_SUDO_VALUE}"
    rf"|--(?!{_SUDO_VALUED_NAMES})[a-z][a-z-]*(?:={_SUDO_WORD_CHAR}{{0,{_MAX_SUDO_VALUE_CHARS}}})?(?!{_SUDO_WORD_CHAR})"
)
SUDO_STDIN: Final = (
    rf"\bsudo(?:[ \t]+(?:{_SUDO_OPTION})){{0,{_MAX_SUDO_OPTIONS}}}?"
    rf"[ \t]+(?:-[{_SUDO_FLAG_LETTERS.replace('S', '')}]*S[A-Za-z0-9]*|--stdin)\b"
)
# One word of a shell command: quoted either way (an escaped `\"` inside) or bare.
_ARG: Final = r"""'[^'\n]*'|"(?:[^"\\\n]|\\.)*"|[^\s'"|;&<>()`]+"""
_ARG_RE: Final = lazy_pattern(_ARG)
# A command named by its path (`/usr/bin/sudo`, `./bin/chpasswd`): the directories.
_DIRS: Final = r"(?:[\w.~-]*/)*"
# What reads a password from its stdin (`chpasswd` reads `user:password`).
_READER: Final = (
    r"(?:(?:" + _DIRS + r"sudo[ \t]+)?" + _DIRS + r"(?P<chpasswd>chpasswd)\b|(?:" + _DIRS + r"sudo[ \t]+)?"
    + _DIRS + r"passwd[ \t]+--stdin\b|" + _DIRS + SUDO_STDIN.removeprefix(r"\b")
    + r"|[^\n|;&]*[ \t]--password-stdin\b|gh[ \t]+secret[ \t]+set\b)"
)
# The words `echo`/`printf` is given: a password is one word or a passphrase of a few.
# Bounded, so each try reads at most this many words: unbounded, `sudo echo echo …`
# (no `|`) had every `echo` read all the words after it, time quadratic in the text
# (34 s at 100 KB); bounded, each word is read by at most this many tries.
_MAX_PIPED_WORDS: Final = 8
_PIPED_RE: Final = lazy_pattern(
    r"\b(?P<cmd>echo|printf)(?:[ \t]+-[neE]+)*(?:[ \t]+--)?"
    r"(?P<args>(?:[ \t]+(?:" + _ARG + r")){1," + str(_MAX_PIPED_WORDS) + r"})"
    r"[ \t]*\|[ \t]*(?=" + _READER + ")"
)
# How far after `sudo -S` its `<<<` may be (`sudo -S apt install x <<< 'pw'`): bounded
# for the same reason, `sudo -S sudo -S …` on one line read to its end from every `sudo`.
_MAX_HERE_GAP: Final = 256
_HERE_STRING_RE: Final = lazy_pattern(
    SUDO_STDIN + r"[^\n|;&]{0," + str(_MAX_HERE_GAP) + r"}?<<<[ \t]*(?P<arg>'[^'\n]+'|\"[^\"\n]+\"|[^\s'\";|&)]+)"
)
# The end of the line a value is typed with (`printf 'pw\n'`, `echo -e "pw\r\n"`): kept.
_TYPED_END_RE: Final = lazy_pattern(r"(?:\\r)?(?:\\n)+\Z")
# `chpasswd`'s `user:` before the password: kept.
_USER_RE: Final = lazy_pattern(r"\A[A-Za-z0-9_.-]+:")


def _value_span(arg: str, user_first: bool) -> tuple[int, int] | None:
    """Where the password is inside one shell word: its quotes, a typed line end and a
    `user:` left out; None when it is a variable, a format or empty."""
    start, end = (1, len(arg) - 1) if arg[:1] in "'\"" and len(arg) >= 2 else (0, len(arg))
    end = start + (typed.start() if (typed := _TYPED_END_RE.search(arg[start:end])) else end - start)
    if user_first and (user := _USER_RE.match(arg[start:end])):
        start += user.end()
    value = arg[start:end]
    if not value or is_placeholder(value):
        return None
    return start, end


def _piped(m: re.Match[str]) -> str:
    args = list(_ARG_RE.finditer(m.group("args")))
    if m.group("cmd") == "printf":
        # `printf '%s\n' pw`: the argument is the value; `printf 'pw\n'`: the format is.
        args = args[1:2] if len(args) > 1 and "%" in args[0].group(0) else args[:1]
    if not args:
        return m.group(0)
    offset = m.start("args") - m.start()
    whole = m.group(0)
    if len(args) > 1:  # `echo correct horse battery | sudo -S`: the words are the value
        if any(is_placeholder(a.group(0)) for a in args):
            return m.group(0)
        start, end = offset + args[0].start(), offset + args[-1].end()
        return whole[:start] + marker("password") + whole[end:]
    span = _value_span(args[0].group(0), user_first=m.group("chpasswd") is not None)
    if span is None:
        return m.group(0)
    start, end = (offset + args[0].start() + i for i in span)
    return whole[:start] + marker("password") + whole[end:]


def _here_string(m: re.Match[str]) -> str:
    span = _value_span(m.group("arg"), user_first=False)
    if span is None:
        return m.group(0)
    start, end = (m.start("arg") - m.start() + i for i in span)
    whole = m.group(0)
    return whole[:start] + marker("password") + whole[end:]


STDIN_RULES: Final[tuple[tuple[tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], str]], ...]] = (
    (("passwd", "sudo", "--password-stdin", "gh secret"), _PIPED_RE, _piped),
    (("<<<",), _HERE_STRING_RE, _here_string),
)
