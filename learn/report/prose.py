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
  (an e-mail address, a@b.com) starts no import and stays, and so does one in a
  plain code span (`@types/node`), where Claude Code evaluates no import;
- no HTML elements (`<details>` folds text away from the person reading the
  rendered file, `<img src=…>` fetches a URL when it is shown) and no images or
  links that go anywhere but http(s) (`[docs](javascript:…)`): the tag or the
  link goes, its words stay;
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
# A code span of single backticks with something in it: Claude Code evaluates no
# `@` import there. A doubled backtick is not taken as one (CommonMark's spans
# of longer runs are where a span could be read differently).
_PLAIN_SPAN = re.compile(r"(?<!`)`[^`\n]+`(?!`)")
# HTML elements a rendered Markdown view acts on; a TypeScript `Map<string, T>`
# outside a code span names none of them and stays.
_HTML_TAG = re.compile(
    r"</?(?:a|abbr|audio|b|base|big|blockquote|body|br|button|center|code|del|details|"
    r"dialog|div|em|embed|font|form|h[1-6]|head|hr|html|i|iframe|img|input|ins|kbd|li|"
    r"link|mark|math|meta|noscript|object|ol|option|p|picture|pre|q|s|script|select|"
    r"small|source|span|strike|strong|style|sub|summary|sup|svg|table|td|template|"
    r"textarea|th|tr|u|ul|video)\b[^<>]*>", re.IGNORECASE)
# `![alt](url)` shows its alt text; `[text](url)` keeps its link only to http(s).
_TARGET = r"\((?:[^()\n]|\([^()\n]*\))*\)"  # one level of parentheses inside, as CommonMark allows
_IMAGE = re.compile(r"!\[([^\]\n]*)\]" + _TARGET)
_LINK = re.compile(r"\[([^\]\n]*)\](?!\(\s*https?://)" + _TARGET, re.IGNORECASE)
_AUTOLINK = re.compile(r"<(?!https?://)[A-Za-z][\w+.-]*:[^<>\s]*>")
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


def _markup_out(text: str) -> str:
    """`text` (no code span in it) without imports, HTML elements, images or
    links to anywhere but http(s)."""
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(" ", _HTML_TAG.sub(" ", text))
    return _IMPORT.sub("", text)


def _outside_spans(line: str) -> str:
    out: list[str] = []
    at = 0
    for span in _PLAIN_SPAN.finditer(line):
        out.append(_markup_out(line[at:span.start()]))
        out.append(span.group())
        at = span.end()
    out.append(_markup_out(line[at:]))
    return "".join(out)


def _line(line: str) -> str:
    if _SHELL_LINE.match(line):
        return ""
    line = _BANG_SPAN.sub("", _INLINE_FENCE.sub("", line))
    return _clauses(_outside_spans(line))


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
