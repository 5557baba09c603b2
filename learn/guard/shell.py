"""A shell command line as the simple commands a shell would run, for learn's check.

A permission rule is a prefix match, so "never push with --force" cannot be one:
the agent writes `git push origin main --force`, `git -C app push -f`,
`cd app && git push -f`, `FOO=1 git push -f`, `bash -c 'git push -f'`. This module
takes the line apart as far as a reader must to see each program and its words:
POSIX quoting (shlex), the operators `&&` `||` `;` `|` `&` and newlines, subshells
and command substitution (`( )`, `$( )`, backticks, also inside double quotes),
`sh -c` / `bash -c` / `eval` strings, variable assignments and the wrappers that run
another program (`env`, `sudo`, `nohup`, `time`, `timeout`, `nice`, `command`,
`exec`, `xargs`), redirections, heredoc bodies (text, not commands) and comments.

It never runs anything and never expands variables: a word is what was written.
Standard library only, and no dataclasses (their import alone, `inspect` and all,
cost more than the rest of the check): it starts on every shell call the agent makes.
"""

from __future__ import annotations

import re
import shlex
from typing import NamedTuple

from learn.guard.lines import logical
from learn.guard.runners import commands_run_by

_OPS = frozenset(";&|()\n")
_REDIRECT = frozenset("<>&")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
MAX_DEPTH = 4  # `bash -c "sh -c '...'"` nests; a line nesting deeper is not an agent's
# Wrappers that run the program after them: how many words their options take.
# name -> (options that take a value, number of positional words before the program)
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "env": (frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}), 0),
    "sudo": (frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U", "-r", "-t"}), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "nohup": (frozenset(), 0),
    "time": (frozenset({"-f", "-o", "--format", "--output"}), 0),
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "--class", "--classdata"}), 0),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "stdbuf": (frozenset({"-i", "-o", "-e"}), 0),
    "xargs": (frozenset({"-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a", "--arg-file",
                         "--delimiter", "--max-args", "--max-procs", "--replace"}), 0),
}


class Simple(NamedTuple):
    """One simple command: its words after assignments and wrappers (argv[0] first)."""

    argv: tuple[str, ...]

    @property
    def program(self) -> str:
        return self.argv[0].rsplit("/", 1)[-1] if self.argv else ""


def _tokens(text: str) -> list[str]:
    lex = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>\n")
    lex.whitespace = " \t\r"
    lex.whitespace_split = True
    lex.commenters = ""  # cut before, where a comment ends (learn.guard.lines)
    try:
        return list(lex)
    except ValueError:
        # An unclosed quote: a shell would refuse it, but the check must not be the
        # one that lets it through. Read it as words, quotes dropped.
        return re.findall(r"[;&|()\n]+|[<>]+|[^\s;&|()<>]+", text.replace('"', " ").replace("'", " "))


SUBSTITUTED = "$SUBST"  # what a `$( )` leaves in its word: no rule's word can match it


def _substitutions(text: str) -> tuple[str, list[str]]:
    """`text` with every command substitution (`$( ... )`, balanced, and `` `...` ``;
    outside single quotes, inside double quotes too) replaced by SUBSTITUTED in its
    word, and the commands they held. A word built on a substitution (`git$(...)`) is
    then no program's name, and the words after it stay its arguments."""
    out: list[str] = []
    inner: list[str] = []
    single = double = False
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and not single and i + 1 < len(text):
            out.append(text[i:i + 2])
            i += 2
            continue
        if c == "'" and not double:
            single = not single
        elif c == '"' and not single:
            double = not double
        elif c == "`" and not single:
            end = text.find("`", i + 1)
            end = len(text) if end < 0 else end
            inner.append(text[i + 1:end])
            out.append(SUBSTITUTED)
            i = end + 1
            continue
        elif c == "$" and not single and text.startswith("$(", i):
            depth, j = 1, i + 2
            while j < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            inner.append(text[i + 2:j - 1] if depth == 0 else text[i + 2:])
            out.append(SUBSTITUTED)
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out), [x for x in inner if x.strip()]


def _unwrap(words: list[str], depth: int) -> tuple[list[str], list[str]]:
    """(the words of the program actually run, command texts found on the way)."""
    texts: list[str] = []
    while words:
        head = words[0]
        if head in _KEYWORDS:
            words = words[1:]
            continue
        if _ASSIGN.match(head):
            words = words[1:]
            continue
        name = head.rsplit("/", 1)[-1]
        if name in _WRAPPERS:
            valued, positional = _WRAPPERS[name]
            rest = words[1:]
            while rest and rest[0].startswith("-") and rest[0] != "-":
                opt = rest[0]
                rest = rest[2:] if opt in valued else rest[1:]
                if opt == "--":
                    break
            while rest and name == "env" and _ASSIGN.match(rest[0]):
                rest = rest[1:]
            rest = rest[positional:]
            if name == "env" and "-S" in words[1:3] and len(words) > 2:
                texts.append(words[words.index("-S") + 1])
            words = rest
            continue
        if name in _SHELLS and depth < MAX_DEPTH:
            for k, w in enumerate(words[1:], start=1):
                if w.startswith("-") and not w.startswith("--") and "c" in w[1:]:
                    if k + 1 < len(words):
                        texts.append(words[k + 1])
                    return [], texts
        if name == "eval" and depth < MAX_DEPTH:
            texts.append(" ".join(words[1:]))
            return [], texts
        runs = commands_run_by(name, words) if depth < MAX_DEPTH else None
        if runs:
            texts.extend(runs)
            # `find` is a command itself; watch, script and an alias are only a way in.
            return (words if name == "find" else []), texts
        return words, texts
    return [], texts


def simple_commands(line: str, *, depth: int = 0) -> list[Simple]:
    """Every simple command `line` would run, in order, nested ones included."""
    out: list[Simple] = []
    words: list[str] = []
    skip_next = False

    def flush() -> None:
        nonlocal words
        argv, texts = _unwrap(words, depth)
        if argv:
            out.append(Simple(tuple(argv)))
        nested.extend(texts)
        words = []

    text, nested = _substitutions(logical(line))
    for tok in _tokens(text):
        if skip_next:
            skip_next = False
            continue
        if tok and all(c in _OPS for c in tok):
            flush()
            continue
        if tok and all(c in _REDIRECT for c in tok):
            skip_next = True  # the file name after `>`, `<`, `>>`, `<<`, `>&`
            if words and words[-1].isdigit():
                words.pop()  # `2>`: the fd is not an argument
            continue
        words.append(tok)
    flush()
    if depth < MAX_DEPTH:
        for text in nested:
            out.extend(simple_commands(text, depth=depth + 1))
    return out
