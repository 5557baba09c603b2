"""A script as the shell reads it before splitting words, for learn's check.

shlex splits words well but reads a script line by line wrongly in three ways, each a
way past the check (audit 2, r3, and its follow-up):
- a backslash-newline outside single quotes is a line continuation (POSIX 2.2.1,
  inside double quotes too): `git push \\<newline>  --force`, which agents write to
  wrap a long line and sh runs as one force push, read as `git push` and `--force`;
  `g\\<newline>it` as a word with a newline in it;
- a comment ends before its newline, which still ends the command: shlex's comment
  took the newline with it, and `cd app  # there<newline>git push -f` read as one
  command, `cd app git push -f`;
- a heredoc begins only at a `<<` outside quotes and outside arithmetic: `echo
  "a<<EOF"` and `echo $((1<<x))` began a heredoc body that ran to the end of the
  script, hiding every command after it.

`logical` gives the script with continuations joined, comments cut and heredoc bodies
(text, not commands) dropped; learn.guard.shell splits that into words, for the
line itself and for every script nested in it (`sh -c '...'`, `$( )`, `eval`).
"""

from __future__ import annotations

import re
from typing import Final

# `<<WORD`, `<<-WORD`, `<<'WORD'`, `<<"WORD"`; not `<<<` (a here-string: no body).
_HEREDOC: Final = re.compile(r"(?<!<)<<(-?)[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")
_WORD_START: Final = frozenset(" \t\r\n;&|()<>")  # a `#` after one begins a comment


def _continued(line: str) -> bool:
    """The line ends in an unescaped backslash (an odd run of them)."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _after_body(lines: list[str], i: int, word: str, tabs: bool, quoted: bool) -> int:
    """The index of the first line after a heredoc body that starts at `i`. In an
    unquoted heredoc a backslash-newline is a continuation there too."""
    while i < len(lines):
        line = lines[i]
        i += 1
        while not quoted and _continued(line) and i < len(lines):
            line = line[:-1] + lines[i]
            i += 1
        if (line.lstrip("\t") if tabs else line) == word:
            return i
    return i


def logical(text: str) -> str:
    """`text` with line continuations joined, comments cut and heredoc bodies dropped."""
    lines = text.split("\n")
    out: list[str] = []
    cur: list[str] = []  # the logical line read so far, a character an item
    heads: set[int] = set()  # where in `cur` a `<` outside quotes is
    quote = ""
    arithmetic = 0  # open `((`s: no heredoc begins inside arithmetic (`$((1<<x))`)
    escaped = -1  # len(cur) just after an escaped character went in
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        j, joined = 0, False
        while j < len(line):
            c, word_start = line[j], not cur or (cur[-1] in _WORD_START and escaped != len(cur))
            if quote == "'":
                quote = "" if c == "'" else quote
            elif c == "\\":
                if j + 1 == len(line):
                    joined = True  # the backslash and the newline both go
                    break
                cur.append(c)
                c = line[j + 1]
                j += 1
                escaped = len(cur) + 1  # `\ #`: that space is a word's, no comment follows
            elif quote == '"':
                quote = "" if c == '"' else quote
            elif c in "'\"":
                quote = c
            elif c == "#" and word_start:
                break  # a comment, to the end of the line (a backslash in it is its own)
            elif c == "(" and cur and cur[-1] == "(" and escaped != len(cur):
                arithmetic += 1  # `$((` or `((`: a `<<` in it shifts bits
            elif c == ")" and arithmetic and cur and cur[-1] == ")":
                arithmetic -= 1
            elif c == "<" and not arithmetic:
                heads.add(len(cur))
            cur.append(c)
            j += 1
        if joined:
            continue
        if quote:  # a newline inside quotes: the same word goes on
            cur.append("\n")
            continue
        done = "".join(cur)
        out.append(done)
        cur, found, heads = [], [m for m in _HEREDOC.finditer(done) if m.start() in heads], set()
        arithmetic = 0
        for m in found:
            i = _after_body(lines, i, m.group(3), m.group(1) == "-", bool(m.group(2)))
    if cur:
        out.append("".join(cur))
    return "\n".join(out)
