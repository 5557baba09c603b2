"""Model-written text made plain prose before it goes into an instruction file.

A rule line, a command's description and body, a Codex justification: each is
text a model wrote (the judge's summary, the command writer's instruction), and
each lands in a file the agent reads as its instructions. A model's answer is
shaped by the transcripts it read, and a transcript may hold anything. So
whatever the model said, what is written is prose:

- no code fences, and nothing inside one (a fenced block is a script);
- no `!` lines, and no `!` before a code span (`!`cmd`` in a command file is
  run by Claude Code when the command is typed);
- no shell lines (`$ cmd`, `#!…`) and no clause carrying shell substitution,
  chaining or redirection outside a code span (`$(…)`, `${…}`, `$HOME`, `&&`,
  `> file`, `| sh`): "Use bun; echo PWNED-$((6*7)) > $HOME/pwned #" is written
  as "Use bun";
- no HTML comments and no markers of learn's own sections (they would move
  where learn's section ends, or hide text from the person reading the file);
- no `@path` imports (Claude Code pulls the named file into every session: a
  rule saying `@~/.ssh/id_rsa` would send the key to the model). Claude Code
  reads any `@` that starts a word as one, a bare name included (its own docs'
  example is `@README`), so every such `@` goes, `@alice` too; one inside a word
  (an e-mail address, a@b.com) starts no import and stays;
- no control characters, and none of the invisible ones that reorder or hide
  text (bidi overrides and isolates, zero-width characters: Trojan Source), so
  the diff the person confirms shows what the agent will read.
Inline code spans (`pnpm vitest run`) stay: they are how a rule names a command.
"""

from __future__ import annotations

import re

_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_COMMENT_ENDS = re.compile(r"<!--|-->")
_LEARN_MARKERS = re.compile(r"learn:(?:begin|end)\b|<!--\s*learn\b", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")
_INLINE_FENCE = re.compile(r"`{3,}|~{3,}")
_BANG_SPAN = re.compile(r"!+(?=`)")
_SHELL_LINE = re.compile(r"^\s*(?:\$\s|#!|!|sudo\s|>\s*\$)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
# Outside code spans: substitution, variables (but a command file's $ARGUMENTS
# and $1..$9), chaining, redirection into a path, piping into a shell.
_SHELL_ACTIVE = re.compile(
    r"\$\(|\$\{|\$(?!ARGUMENTS\b)[A-Za-z_]\w*|&&|\|\||`"
    r"|\d?>{1,2}&?\s*(?:[~/$&]|\.{1,2}/|[\w.-]+\.\w+\b)|\|\s*(?:ba|z|da|k)?sh\b"
    r"|\b(?:eval|exec)\s")
_CLAUSE = re.compile(r"(;\s*|(?<=[.!?])\s+)")
# An `@` that starts a word, before anything: after whitespace, at the start of a
# line, after punctuation (`(@~/.ssh/id_rsa)`) or another `@`.
_IMPORT = re.compile(r"(?<!\w)@(?=\S)")
# C0 and C1 controls; the bidi marks, embeddings, overrides and isolates; the
# zero-width space, joiners and word joiner; the byte-order mark.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e"
                      r"\u2060-\u2064\u2066-\u2069\ufeff]")


def _outside_code(text: str) -> str:
    return _CODE_SPAN.sub(" ", text)


def _clauses(line: str) -> str:
    parts = _CLAUSE.split(line)
    kept: list[str] = []
    for i in range(0, len(parts), 2):
        clause = parts[i]
        sep = parts[i + 1] if i + 1 < len(parts) else ""
        if not clause.strip():
            continue
        if _SHELL_ACTIVE.search(_outside_code(clause)):
            continue
        kept.append(clause + sep)
    out = "".join(kept).strip()
    return out.rstrip(";").rstrip()


def _line(line: str) -> str:
    if _SHELL_LINE.match(line):
        return ""
    line = _BANG_SPAN.sub("", _INLINE_FENCE.sub("", line))
    line = _IMPORT.sub("", line)
    return _clauses(line)


def plain_prose(text: str, *, one_line: bool = True) -> str:
    """`text` as prose only (see the module doc); '' when nothing prose is left.

    One line (a rule, a description) by default; `one_line=False` keeps the line
    breaks of a command body."""
    text = _CONTROL.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _COMMENT_ENDS.sub(" ", _COMMENT.sub(" ", text))
    text = _LEARN_MARKERS.sub(" ", text)
    lines: list[str] = []
    fenced = False
    for raw in text.split("\n"):
        if _FENCE.match(raw):
            fenced = not fenced
            continue
        if fenced:
            continue
        kept = _line(raw)
        if kept or (not raw.strip() and lines and lines[-1]):
            lines.append(kept)  # a blank line of the text stays; a removed line leaves none
    while lines and not lines[-1]:
        lines.pop()
    if one_line:
        return re.sub(r"\s+", " ", " ".join(lines)).strip()
    return "\n".join(re.sub(r"[ \t]+", " ", x).rstrip() for x in lines).strip()


def is_prose(text: str) -> bool:
    """Whether `text` has words left once made prose (a rule must say something)."""
    return len(re.findall(r"\w+", plain_prose(text))) >= 2
