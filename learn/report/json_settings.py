"""How learn edits a JSON settings file: the person's file comes back in their style,
with only what learn adds changed.

Three writers change such a file: a permission proposal (`permissions.deny` in
`.claude/settings.json`, learn.report.escalation), learn's check hook
(`.claude/settings.local.json`, `~/.codex/hooks.json`, learn.report.check_install) and
`learn install-claude-command --hooks`. Each used to write the whole file again with
`json.dumps(indent=2)`, and the audit found what that did to a person's file: CRLF
became LF, tab and 4-space indents became 2 spaces, `1e3` became `1000.0` and `1.50`
became `1.5`, a key written twice collapsed to its last value, and `\\u00e9` became `é`
(or, in one writer, `é` became `\\u00e9`). All three now go through `edit_settings`.

The file is parsed and written again with what it was written with:
- its indent (a tab, N spaces; a file on one line stays on one line), its newline
  (CRLF or LF), whatever surrounds the value (a UTF-8 BOM, the final newline or none);
- every number as its source text (`1e3`, `1.50`, `-0` stay as they are);
- non-ASCII characters as the file writes them: `\\u` escapes where it escapes them,
  the characters themselves otherwise;
- key order as written.
A file with a key twice in one object is refused, not collapsed (rewriting it would
drop one of the two, and which one counts is up to whoever reads it); a file that does
not parse, or is not an object, is refused too. A file learn does not change is not
written again at all.

Only what learn changes is written anew: every value `change` leaves as it was is
written as the file wrote it, byte for byte (its spacing, `"a" : 1`, a short list on one
line, `\\/`, its escapes). A container learn adds to (`permissions.deny`) keeps the
layout it had (on one line, or a member per line at the file's indent) and each
member's key as written; only the separators around what learn adds are learn's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_WS = " \t\r\n"  # JSON's whitespace, nothing more
# A \u escape of a non-ASCII character (not \u0000-\u007f), not itself escaped (`\\u00e9`).
_NON_ASCII_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u(?!00[0-7][0-9a-fA-F])[0-9a-fA-F]{4}")
_FIRST_INDENT = re.compile(r"\n([ \t]*)[^ \t\r\n]")
_NEW_FILE_INDENT = "  "  # a new (or empty) file: as learn has always written one


class SettingsError(ValueError):
    """A settings file learn will not rewrite, and why."""


class _Int(int):
    """An integer that remembers how the file wrote it."""

    source: str


class _Float(float):
    """A number with a fraction or exponent (or NaN / Infinity) as the file wrote it."""

    source: str


def _int(text: str) -> int:
    n = _Int(text)
    n.source = text
    return n


def _float(text: str) -> float:
    n = _Float(text)
    n.source = text
    return n


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_int=_int,
                            parse_float=_float, parse_constant=_float)


@dataclass(frozen=True, slots=True)
class _Node:
    """Where one value is in the file's text, to write it again as it was."""

    value: Any  # decoded on its own, so an edit of the parsed object never reaches it
    start: int
    end: int
    # An object's members (key -> (the key and colon as written, the value)); a list's items.
    members: dict[str, tuple[str, _Node]] | None = None
    items: list[_Node] | None = None


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WS:
        at += 1
    return at


def _tree(text: str, at: int) -> _Node:
    """The value at `at` in `text` (already known to be valid JSON) and its parts."""
    start = _skip(text, at)
    if text[start] == "{":
        members: dict[str, tuple[str, _Node]] = {}
        at = _skip(text, start + 1)
        while text[at] != "}":
            key, after_key = _DECODER.raw_decode(text, at)
            node = _tree(text, _skip(text, after_key) + 1)  # past the colon
            members[key] = (text[at:node.start], node)
            at = _skip(text, node.end)
            at = _skip(text, at + 1) if text[at] == "," else at
        value = {key: node.value for key, (_, node) in members.items()}
        return _Node(value, start, at + 1, members=members)
    if text[start] == "[":
        items: list[_Node] = []
        at = _skip(text, start + 1)
        while text[at] != "]":
            node = _tree(text, at)
            items.append(node)
            at = _skip(text, node.end)
            at = _skip(text, at + 1) if text[at] == "," else at
        return _Node([n.value for n in items], start, at + 1, items=items)
    value, end = _DECODER.raw_decode(text, start)
    return _Node(value, start, end)


@dataclass(frozen=True, slots=True)
class Style:
    """How a settings file is written, to write it again the same way."""

    lead: str = ""  # before the value: a BOM, whitespace
    trail: str = "\n"  # after it: the final newline (or none)
    indent: str | None = _NEW_FILE_INDENT  # one level; None: the whole value on one line
    newline: str = "\n"
    ensure_ascii: bool = False  # non-ASCII written as \u escapes
    # The file's text and where each value is in it: what is unchanged is written
    # from there. Empty for a new (or blank) file.
    text: str = field(default="", repr=False, compare=False)
    tree: _Node | None = field(default=None, repr=False, compare=False)


def parse_settings(raw: bytes | str | None, path: Path) -> tuple[dict[str, Any], Style]:
    """The settings object in `raw` (None or blank: a new, empty one) and its style.
    SettingsError for a file learn must not rewrite: not UTF-8, not JSON, not an
    object, a key twice in one object."""
    if raw is None:
        return {}, Style()
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path} is not valid JSON (not UTF-8: {exc.reason}); fix it "
                            "first, learn does not rewrite a file it cannot read") from exc
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom):]
    if not body.strip(_WS):
        return {}, Style()
    try:
        data = _DECODER.decode(body)
    except _DuplicateKey as exc:
        raise SettingsError(f"{path} has the key {json.dumps(exc.key)} twice in one object; "
                            "learn does not rewrite it (that would keep only one of them): "
                            "remove one first") from None
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); fix "
                            "it first, learn does not rewrite a file it cannot read") from exc
    except RecursionError:  # json's limit is the stack's: ~1,000 levels
        raise SettingsError(f"{path} is nested too deep to read; learn does not rewrite a "
                            "file it cannot read") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path} is not a JSON object; learn does not rewrite it")
    tree = _tree(body, 0)
    start, end = tree.start, tree.end
    value = body[start:end]
    first_newline = body.find("\n")
    crlf = first_newline > 0 and body[first_newline - 1] == "\r"
    if "\n" in value:
        m = _FIRST_INDENT.search(value)
        indent: str | None = m.group(1) if m else ""
    else:
        # An empty object has no layout to keep: learn's entry is written readably.
        indent = None if data else _NEW_FILE_INDENT
    escaped = _NON_ASCII_ESCAPE.search(value) is not None
    written_as_is = any(ord(c) > 0x7F for c in value)
    return data, Style(lead=bom + body[:start], trail=body[end:], indent=indent,
                       newline="\r\n" if crlf else "\n",
                       ensure_ascii=escaped and not written_as_is, text=body, tree=tree)


def render_settings(data: dict[str, Any], style: Style) -> str:
    """`data` written in `style` (see the module's docstring for what that keeps)."""
    return style.lead + _encode(data, style, 0, style.tree) + style.trail


def edit_settings(raw: bytes | str | None, path: Path,
                  change: Callable[[dict[str, Any]], dict[str, Any]]) -> str | None:
    """The file's new text after `change` (given the parsed object, returning the new
    one), in the file's own style; None when `change` leaves it as it is, so an
    unchanged file is never written again. SettingsError as parse_settings."""
    data, style = parse_settings(raw, path)
    before = json.dumps(data)  # before `change`, which may change `data` in place
    after = change(data)
    if raw is not None and json.dumps(after) == before:
        return None
    return render_settings(after, style)


def _string(text: str, style: Style) -> str:
    # A lone surrogate (`"\udc80"` in the file) has no UTF-8 form: written as
    # the file wrote it, an escape, whatever the rest of the file does.
    surrogate = not style.ensure_ascii and any("\ud800" <= c <= "\udfff" for c in text)
    return json.dumps(text, ensure_ascii=style.ensure_ascii or surrogate)


def _same(a: object, b: object) -> bool:
    """Whether `a` is `b` as the file wrote it: the same types, keys in the same
    order, numbers with the same source (`1.50` is not `1.5`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, _Int | _Float) and isinstance(b, _Int | _Float):
        return a.source == b.source
    return a == b


def _encode(value: object, style: Style, depth: int, node: _Node | None = None) -> str:
    """`value` as JSON text: where the file had it (`node`) unchanged, the file's own
    text; a container learn changed, in the layout it had."""
    if node is not None and _same(value, node.value):
        return style.text[node.start:node.end]
    if isinstance(value, str):
        return _string(value, style)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _Int | _Float):
        return value.source
    if isinstance(value, int | float):
        return json.dumps(value)
    if isinstance(value, dict):
        opener, closer = "{", "}"
        members = node.members if node is not None and node.members is not None else {}
        items = [_member(str(k), v, members.get(str(k)), style, depth) for k, v in value.items()]
        had = bool(members)
    elif isinstance(value, list | tuple):
        opener, closer = "[", "]"
        olds = node.items if node is not None and node.items is not None else []
        items = [_encode(v, style, depth + 1, olds[i] if i < len(olds) else None)
                 for i, v in enumerate(value)]
        had = bool(olds)
    else:
        raise TypeError(f"not JSON: {type(value).__name__}")
    if not items:
        return opener + closer
    # A container the file wrote on one line (`"deny": ["Bash(rm:*)"]`) stays on one.
    one_line = had and node is not None and "\n" not in style.text[node.start:node.end]
    if style.indent is None or one_line:
        return opener + ", ".join(items) + closer
    inner = style.newline + style.indent * (depth + 1)
    return opener + inner + ("," + inner).join(items) + style.newline + style.indent * depth \
        + closer


def _member(key: str, value: object, old: tuple[str, _Node] | None, style: Style,
            depth: int) -> str:
    """One member of an object learn changed: an old key as the file wrote it
    (`"a" : `), its value as `_encode` writes it."""
    if old is None:
        return f"{_string(key, style)}: {_encode(value, style, depth + 1)}"
    written, node = old
    if "\n" in written:  # the key on a line of its own: learn's layout instead
        written = f"{_string(key, style)}: "
    return written + _encode(value, style, depth + 1, node)
