"""learn edits only its managed part of a CLAUDE.md / AGENTS.md: every byte of the user's own
text outside it survives a planned edit (`plan_text`) and a prune (`without_rules`): line
endings mixed or CR-only, form feeds and Unicode separators inside lines, a missing final
newline, trailing whitespace-only lines, a BOM."""

from __future__ import annotations

from pathlib import Path

import pytest

from learn.report.edits import BEGIN, END, RuleEdit, plan_text
from learn.report.health import without_rules

PATH = Path("/p/CLAUDE.md")
NEW = RuleEdit(key="directive:use-bun-always", text="Use bun, not npm.", target=PATH,
               provenance="2 sessions")
OLD_RULE = "- Use uv. <!-- learn directive:use-uv, 2 sessions -->"

# The user's own text, as read from disk (decoded UTF-8, nothing converted).
USER_TEXTS = {
    "mixed LF with one CRLF": "# Proj\nline a\r\nline b\n",
    "CR only": "# Proj\rline a\rline b\r",
    "form feed inside a line": "# Proj\n\x0cpage two\n",
    "vertical tab inside a line": "# Proj\nsee \x0b that\n",
    "NEL inside a line": "# Proj\nsee \u0085 that\n",
    "U+2028 inside a line": "# Proj\nsee this\u2028continued\n",
    "U+2029 and \\x1c inside lines": "# Proj\npara\u2029graph\nfile\x1csep\n",
    "no final newline": "# Proj\nlast line",
    "trailing whitespace-only lines": "# P\nx\n\n  \n\t\n\n",
    "BOM and CRLF": "\ufeff# Proj\r\nline\r\n",
    "plain CRLF": "# Proj\r\nline a\r\nline b\r\n",
}


def _endings(text: str) -> set[str]:
    """The line endings used in `text` ("\\r\\n", a lone "\\r", a lone "\\n")."""
    out: set[str] = set()
    if "\r\n" in text:
        out.add("\r\n")
    bare = text.replace("\r\n", "")
    out |= {nl for nl in ("\r", "\n") if nl in bare}
    return out


@pytest.mark.parametrize("name", list(USER_TEXTS))
def test_a_new_section_is_added_after_the_users_bytes_untouched(name: str) -> None:
    original = USER_TEXTS[name]
    new, applied, _ = plan_text(original, [NEW], PATH)
    assert applied == [NEW]
    assert new.startswith(original), (original, new)
    added = new[len(original):]
    assert BEGIN in added and END in added and "Use bun, not npm." in added
    # The new block speaks the file's own line ending (its dominant one).
    dominant = {"CR only": "\r", "BOM and CRLF": "\r\n", "plain CRLF": "\r\n"}.get(name, "\n")
    assert _endings(added) == {dominant}, repr(added)


@pytest.mark.parametrize("name", list(USER_TEXTS))
def test_a_rule_added_to_an_existing_section_leaves_the_rest_byte_for_byte(name: str) -> None:
    user = USER_TEXTS[name]
    nl = "\r" if name == "CR only" else "\r\n" if "CRLF" in name else "\n"
    section = nl.join([BEGIN, "## Learned from your sessions", "", OLD_RULE, END])
    # The user's text both before the section and after it (with no final newline there).
    original = user + (nl if not user.endswith(("\n", "\r")) else "") + section + nl + user
    new, applied, _ = plan_text(original, [NEW], PATH)
    assert applied == [NEW]
    head, tail = original.split(END)
    new_head, new_tail = new.split(END)
    assert new_tail == tail
    line = f"- Use bun, not npm. <!-- learn directive:use-bun-always, 2 sessions -->{nl}"
    assert new_head == head + line  # inserted just before the end marker, in its style


def test_a_section_ending_the_file_without_a_newline_gains_none() -> None:
    original = ("# Proj\r\nmine\r\n\r\n" + BEGIN + "\r\n## Learned from your sessions\r\n\r\n"
                + OLD_RULE + "\r\n" + END + "\r\ntail with no newline")
    new, _, _ = plan_text(original, [NEW], PATH)
    assert new.endswith(END + "\r\ntail with no newline")
    assert new.replace("- Use bun, not npm. <!-- learn directive:use-bun-always, 2 sessions -->"
                       "\r\n", "") == original


@pytest.mark.parametrize("name", list(USER_TEXTS))
def test_pruning_removes_only_learns_line(name: str) -> None:
    user = USER_TEXTS[name]
    nl = "\r" if name == "CR only" else "\r\n" if "CRLF" in name else "\n"
    keep = "- Tabs. <!-- learn directive:tabs, 2 sessions -->"
    section = nl.join([BEGIN, "## Learned from your sessions", "", keep, OLD_RULE, END])
    original = user + (nl if not user.endswith(("\n", "\r")) else "") + section + nl + user
    pruned = without_rules(original, {"directive:use-uv"})
    assert pruned == original.replace(OLD_RULE + nl, "", 1)


def test_pruning_a_mixed_file_keeps_each_lines_own_ending() -> None:
    original = ("# P\nmine\r\n" + BEGIN + "\n" + OLD_RULE + "\r\n" + END + "\ntail\x0cpage\u2028x")
    assert without_rules(original, {"directive:use-uv"}) == \
        "# P\nmine\r\n" + BEGIN + "\n" + END + "\ntail\x0cpage\u2028x"


@pytest.mark.parametrize(("name", "data"), [
    ("UTF-16LE without its mark", "# Shop\r\nUse bun.\r\n".encode("utf-16-le")),
    ("UTF-16BE without its mark", "# Shop\nUse bun.\n".encode("utf-16-be")),
    ("UTF-16LE with its mark", "\ufeff# Shop\r\n".encode("utf-16-le")),
])
def test_a_utf16_file_is_refused_for_what_it_is_and_its_undo_still_reads_it(
        tmp_path: Path, name: str, data: bytes) -> None:
    # Without its mark, English UTF-16 is valid UTF-8 with a NUL after each letter: a
    # section appended in UTF-8 left the file half of each (Notepad and PowerShell 5's `>`
    # write UTF-16).
    from learn.report.apply import plan_file
    from learn.report.edits import ApplyError, decode_text

    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    target = project / "CLAUDE.md"
    target.write_bytes(data)
    edit = RuleEdit(key="directive:use-bun-always", text="Use bun, not npm.", target=target,
                    provenance="2 sessions", project=str(project))
    with pytest.raises(ApplyError, match="looks like UTF-16"):
        plan_file(target, [edit], [project])
    assert target.read_bytes() == data
    if data[:2] not in (b"\xff\xfe", b"\xfe\xff"):
        # What an older learn appended to such a file is put back by its bytes: undo
        # reads what it restores as it was, NULs and all.
        assert decode_text(target, data) == data.decode("utf-8")


def test_a_byte_order_mark_before_learns_marker_is_read_past() -> None:
    # Two files joined (`cat header.md CLAUDE.md`) leave a mark before a later line: the
    # begin marker the person sees was counted as damaged (0 begin, 1 end).
    original = f"\ufeff# Header\n\n\ufeff{BEGIN}\n{OLD_RULE}\n{END}\n"
    new, applied, _ = plan_text(original, [NEW], PATH)
    assert applied == [NEW]
    assert new.startswith(original.split(END)[0]) and new.count(BEGIN) == 1
    assert "Use bun, not npm." in new.split(END)[0]
