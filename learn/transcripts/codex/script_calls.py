"""The tool calls a Codex code-mode script makes, read from its text alone.

A scanner, not a regex over the text: a patch is a string literal whose text may name
`tools.exec_command({cmd: "..."})` itself (a patch to a reader of these scripts), and a
comment may too; neither runs anything. A name counts as its literal only when it is
declared once, bound to a whole literal and never assigned or bound again
(learn.transcripts.codex.code_mode says what is read of the calls found).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final, NamedTuple

from learn.lazy import lazy_pattern

__all__ = ["PATCH_TOOL", "ScriptCall", "script_calls"]

# The key a patch is read under, as outside code mode (a custom `apply_patch` call's input
# is the patch: `{"input": "*** Begin Patch ..."}`), and the tool's own name.
PATCH_TOOL: Final = "apply_patch"


# --- The script's tokens -------------------------------------------------------------
#
# A scanner, not a regex over the text: a patch is a string literal whose text may name
# `tools.exec_command({cmd: "..."})` itself (a patch to a reader of these scripts), and a
# comment may too; neither runs anything.


class _Token(NamedTuple):
    kind: str  # "str" (a string or template literal), "name", "punct", "other"
    text: str  # a literal's value ("" when not one value: an interpolated template)
    exact: bool  # a literal with one value, known from the script alone
    newline: bool  # a line ends between this token and the one before


_TOKEN_RE: Final = lazy_pattern(r"""
    (?P<space>[ \t\r\n\u2028\u2029\f\v\ufeff\xa0]+)
  | (?P<comment>//[^\n]*|/\*[\s\S]*?(?:\*/|\Z))
  | (?P<str>"(?:[^"\\\n]|\\[\s\S])*"|'(?:[^'\\\n]|\\[\s\S])*')
  | (?P<name>[A-Za-z_$][\w$]*)
  | (?P<number>\d[\w.]*|\.\d[\w.]*)
  | (?P<punct>>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|==|!=|<=|>=|\+\+|--
        |[-+*/%&|^]=|&&|\|\||\?\?|\?\.|\*\*|<<|>>|[{}()\[\];,.<>+\-*/%&|^!~?:=@#])
""", re.X)
# What may come before a `/` that opens a regular expression rather than divides.
_VALUE_END: Final = frozenset({")", "]", "}"})
_KEYWORDS_BEFORE_VALUE: Final = frozenset({
    "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case",
    "do", "else", "yield", "await"})
_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v",
                   "0": "\0"}
_ESCAPE_RE: Final = lazy_pattern(
    r"\\(?:u\{([0-9A-Fa-f]{1,6})\}|u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|(\r\n|[\s\S]))")


def _unescape(body: str) -> str:
    """A JavaScript string literal's value from its text between the quotes."""
    def one(m: re.Match[str]) -> str:
        code = m.group(1) or m.group(2) or m.group(3)
        if code is not None:
            return chr(min(int(code, 16), 0x10FFFF))
        ch = m.group(4)
        if ch in ("\n", "\r\n", "\r", "\u2028", "\u2029"):
            return ""  # a line continuation
        return _ESCAPES.get(ch, ch)

    return _ESCAPE_RE.sub(one, body) if "\\" in body else body


def _template(s: str, start: int) -> tuple[int, str | None]:
    """The end of the template literal opening at `start`, and its value (None when it
    interpolates: `${...}` is worked out when the script runs)."""
    i, n = start + 1, len(s)
    interpolated = False
    while i < n:
        ch = s[i]
        if ch == "\\":
            i += 2
        elif ch == "`":
            return i + 1, None if interpolated else _unescape(s[start + 1:i].replace("\r\n", "\n"))
        elif ch == "$" and s.startswith("${", i):
            interpolated = True
            i = _expression_end(s, i + 2)
        else:
            i += 1
    return n, None


def _expression_end(s: str, i: int) -> int:
    """Past the `}` closing a template's `${` expression starting at `i`."""
    depth, n = 1, len(s)
    while i < n:
        ch = s[i]
        if ch in "\"'":
            m = _TOKEN_RE.match(s, i)
            i = m.end() if m is not None and m.lastgroup == "str" else i + 1
        elif ch == "`":
            i, _ = _template(s, i)
        elif ch == "{":
            depth, i = depth + 1, i + 1
        elif ch == "}":
            depth, i = depth - 1, i + 1
            if depth == 0:
                return i
        else:
            i += 1
    return n


_REGEX_BODY_RE: Final = lazy_pattern(r"/(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[A-Za-z]*")


def _tokens(s: str) -> Iterator[_Token]:
    i, n = 0, len(s)
    newline = False
    last: _Token | None = None
    while i < n:
        ch = s[i]
        if ch == "`":
            i, value = _template(s, i)
            last = _Token("str", value or "", value is not None, newline)
        elif ch == "/" and not s.startswith(("//", "/*"), i) and (
                last is None or (last.kind == "punct" and last.text not in _VALUE_END)
                or (last.kind == "name" and last.text in _KEYWORDS_BEFORE_VALUE)):
            m = _REGEX_BODY_RE.match(s, i)
            i = m.end() if m is not None else i + 1
            last = _Token("other", "", False, newline)
        else:
            m = _TOKEN_RE.match(s, i)
            if m is None:
                i += 1
                last = _Token("other", ch, False, newline)
            else:
                i = m.end()
                group = m.lastgroup
                if group == "space" or group == "comment":
                    newline = newline or "\n" in m.group()
                    continue
                text = m.group()
                if group == "str":
                    last = _Token("str", _unescape(text[1:-1]), True, newline)
                else:
                    last = _Token("other" if group == "number" else str(group), text, False,
                                  newline)
        newline = False
        yield last


# --- What the script binds and calls --------------------------------------------------

_DECLARATIONS: Final = frozenset({"const", "let", "var"})
_ASSIGNMENTS: Final = frozenset({
    "=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>=", "&=", "|=", "^=",
    "&&=", "||=", "??=", "++", "--"})
# What may follow a complete initializer on the next line without continuing it.
_CONTINUES: Final = frozenset({
    "+", "-", "*", "/", "%", "**", ".", "?.", "[", "(", "?", "??", "&&", "||", "==", "===",
    "!=", "!==", "<", ">", "<=", ">=", "&", "|", "^", "<<", ">>", ">>>", ",", "in",
    "instanceof"})


def _literal_bindings(toks: list[_Token]) -> dict[str, str]:
    """Names bound once in the whole script to a string literal and never assigned again,
    nor bound again (a parameter, a loop's variable, a second declaration, a catch
    clause): their value is the literal's wherever they are read."""
    declared: dict[str, int] = {}
    literal: dict[str, str] = {}
    sites: set[int] = set()
    changed: set[str] = set()
    parameters = _parameter_lists(toks)
    for k, tok in enumerate(toks):
        if tok.kind != "name" or k in sites:
            continue
        before = toks[k - 1] if k else None
        after = toks[k + 1] if k + 1 < len(toks) else None
        if before is not None and before.kind == "punct" and before.text in (".", "?."):
            continue  # a property, not the name
        if tok.text in _DECLARATIONS:
            _declare(toks, k + 1, declared, literal, sites)
            continue
        prev = "" if before is None or before.kind not in ("punct", "name") else before.text
        nxt = "" if after is None or after.kind != "punct" else after.text
        if (nxt in _ASSIGNMENTS or prev in ("++", "--")  # assigned again
                or prev == "function" or nxt == "=>"  # bound again: a function's or a parameter
                or k in parameters):
            changed.add(tok.text)
    return {name: value for name, value in literal.items()
            if declared.get(name) == 1 and name not in changed}


def _declare(toks: list[_Token], k: int, declared: dict[str, int],
             literal: dict[str, str], sites: set[int]) -> None:
    """Count the names a `const`/`let`/`var` before `k` binds (their tokens' indexes in
    `sites`); keep the ones bound to a literal whole."""
    depth, first = 0, k
    while k < len(toks):
        tok = toks[k]
        if depth == 0 and tok.newline and k > first and not (
                toks[k - 1].kind == "punct" and toks[k - 1].text in (",", "=")):
            return  # the statement ended with its line
        if tok.kind == "punct":
            if tok.text in ("{", "[", "("):
                depth += 1
            elif tok.text in ("}", "]", ")"):
                depth -= 1
                if depth < 0:
                    return
            elif depth == 0 and tok.text == ";":
                return
            elif depth == 0 and tok.text == "=":
                k = _skip_initializer(toks, k + 1)
                continue
        elif tok.kind == "name":
            if depth == 0 and tok.text in ("of", "in"):
                return
            # A destructuring's key (`{key: name}`) is counted too: the cautious way.
            sites.add(k)
            declared[tok.text] = declared.get(tok.text, 0) + 1
            if (depth == 0 and k + 2 < len(toks) and toks[k + 1].kind == "punct"
                    and toks[k + 1].text == "=" and toks[k + 2].kind == "str"
                    and toks[k + 2].exact and _complete(toks, k + 3)):
                literal[tok.text] = toks[k + 2].text
        k += 1


def _skip_initializer(toks: list[_Token], k: int) -> int:
    """Past a declarator's initializer: to the `,` that starts the next one, or the end."""
    depth = 0
    while k < len(toks):
        tok = toks[k]
        if tok.kind == "punct":
            if tok.text in ("{", "[", "("):
                depth += 1
            elif tok.text in ("}", "]", ")"):
                depth -= 1
                if depth < 0:
                    return len(toks)
            elif depth == 0 and tok.text == ",":
                return k + 1
            elif depth == 0 and tok.text == ";":
                return len(toks)
        elif depth == 0 and tok.newline and not (
                toks[k - 1].kind == "punct" and toks[k - 1].text in _CONTINUES | {"="}) and not (
                tok.kind == "punct" and tok.text in _CONTINUES):
            return len(toks)
        k += 1
    return k


def _complete(toks: list[_Token], k: int) -> bool:
    """Whether the expression ends before token `k` (the literal is the whole value)."""
    if k >= len(toks):
        return True
    tok = toks[k]
    if tok.kind == "punct" and tok.text in (";", ",", "}", ")"):
        return True
    return tok.newline and not (tok.kind == "punct" and tok.text in _CONTINUES) and not (
        tok.kind == "name" and tok.text in ("in", "instanceof"))


# A parenthesised list after one of these, then `{`, is a condition, not parameters.
_CONDITIONS: Final = frozenset({"if", "while", "for", "switch", "with"})


def _parameter_lists(toks: list[_Token]) -> set[int]:
    """The indexes of the tokens inside a parenthesised list followed by `=>` or `{` and
    not a statement's condition: a function's parameters, destructured ones too (`catch
    (e) {` is read the same), and their default values, the cautious way: a name there is
    not taken for a literal anywhere. One pass over the brackets."""
    opened: list[int] = []
    inside: set[int] = set()
    for j, tok in enumerate(toks):
        if tok.kind != "punct":
            continue
        if tok.text in ("(", "[", "{"):
            opened.append(j)
        elif tok.text in (")", "]", "}") and opened:
            start = opened.pop()
            nxt = toks[j + 1] if j + 1 < len(toks) else None
            if (tok.text == ")" and toks[start].text == "(" and nxt is not None
                    and nxt.kind == "punct" and nxt.text in ("=>", "{")
                    and not (start and toks[start - 1].text in _CONDITIONS)):
                inside.update(range(start + 1, j))
    return inside


class ScriptCall(NamedTuple):
    tool: str
    value: str | None  # the command or the patch; None: not known from the script
    workdir: str | None = None


def _value(tok: _Token, nxt: _Token | None, bound: dict[str, str]) -> str | None:
    """A single-token argument's exact value: a literal, or a name bound to one."""
    if nxt is None or not (nxt.kind == "punct" and nxt.text in (",", "}", ")")):
        return None  # more than one token: computed
    if tok.kind == "str":
        return tok.text if tok.exact else None
    return bound.get(tok.text) if tok.kind == "name" else None


def _object_fields(toks: list[_Token], k: int, bound: dict[str, str]) -> dict[str, str | None]:
    """The fields of the object literal opening at `k`: each key with its exact value."""
    fields: dict[str, str | None] = {}
    depth, start = 0, k + 1
    for j in range(k, len(toks)):
        tok = toks[j]
        if tok.kind != "punct":
            continue
        if tok.text in ("{", "[", "("):
            depth += 1
        elif tok.text in ("}", "]", ")"):
            depth -= 1
        if (depth == 1 and tok.text == ",") or depth == 0:
            part = toks[start:j]
            start = j + 1
            if len(part) == 1 and part[0].kind == "name":  # `{cmd}`
                fields[part[0].text] = bound.get(part[0].text)
            elif (len(part) >= 3 and part[0].kind in ("name", "str") and part[1].kind == "punct"
                  and part[1].text == ":"):
                key = part[0].text
                fields[key] = _value(part[2], toks[j], bound) if len(part) == 3 else None
            if depth == 0:
                break
    return fields


def script_calls(script: str) -> list[ScriptCall]:
    """The `tools.exec_command` and `tools.apply_patch` calls of `script`, in order."""
    toks = list(_tokens(script))
    bound = _literal_bindings(toks)
    out: list[ScriptCall] = []
    for k in range(len(toks) - 3):
        name, dot, tool, paren = toks[k:k + 4]
        if not (name.kind == "name" and name.text == "tools" and dot.text == "."
                and tool.kind == "name" and tool.text in ("exec_command", PATCH_TOOL)
                and paren.kind == "punct" and paren.text == "("):
            continue
        if k and toks[k - 1].kind == "punct" and toks[k - 1].text in (".", "?."):
            continue  # `x.tools.exec_command`: not the runtime's
        arg = toks[k + 4] if k + 4 < len(toks) else None
        after = toks[k + 5] if k + 5 < len(toks) else None
        if arg is not None and arg.kind == "punct" and arg.text == "{":
            fields = _object_fields(toks, k + 4, bound)
            if tool.text == PATCH_TOOL:
                value = fields.get("input", fields.get("patch"))
                out.append(ScriptCall(PATCH_TOOL, value))
            else:
                workdir = fields.get("workdir")
                out.append(ScriptCall("exec_command", fields.get("cmd"), workdir))
        elif tool.text == PATCH_TOOL and arg is not None:
            out.append(ScriptCall(PATCH_TOOL, _value(arg, after, bound)))
        else:
            out.append(ScriptCall(tool.text, None))
    return out
