"""Every writer of a JSON settings file keeps the person's text: only learn's entry is
added (learn.report.json_settings). The audit found CRLF turned to LF, tab and 4-space
indents to 2 spaces, `1e3` to `1000.0`, `1.50` to `1.5`, duplicate keys collapsed to
the last one and `\\u00e9` / `é` swapped, in all three writers: a permission proposal,
learn's check hook (Claude Code and Codex) and `learn install-claude-command --hooks`."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from learn.commands.install_claude_command import command as install
from learn.guard.rules import parse_rule
from learn.report.apply import plan_file, write_plan
from learn.report.check_install import CheckError, codex_hooks, plan_rules
from learn.report.check_writes import write_plan as write_check
from learn.report.edits import RuleEdit
from learn.report.errors import ApplyError

DENY = "Bash(git push --force:*)"
FORCE = parse_rule({"id": "no-force-push", "program": "git", "subcommand": "push",
                    "flags": ["--force"], "reason": "never"})

# Each file is laid out the way its style writes it (one member per line), so that
# writing it again in that style changes nothing but learn's entry.
STYLES = {
    "crlf-tabs": '{\r\n\t"model": "opus",\r\n\t"permissions": {\r\n\t\t"allow": [\r\n'
                 '\t\t\t"Bash(ls:*)"\r\n\t\t]\r\n\t}\r\n}\r\n',
    "four-spaces-numbers": '{\n    "model": "opus",\n    "env": {\n        "BIG": 1e3,\n'
                           '        "N": 1.50,\n        "NEG": -0\n    }\n}\n',
    "escaped-non-ascii-no-final-newline": '{\n  "note": "caf\\u00e9 \\u2014 ok"\n}',
    "raw-non-ascii": '{\n  "note": "café — ok",\n  "ok": true\n}\n',
}
DUPLICATE = '{\n  "env": {\n    "dup": 1,\n    "dup": 2\n  }\n}\n'


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    return project


def _permission(tmp_path: Path, original: bytes) -> Path:
    project = _project(tmp_path)
    path = project / ".claude" / "settings.json"
    path.write_bytes(original)
    edit = RuleEdit(key="directive:never-force-push-enforced", text="Never force push",
                    target=path, project=project, form="permission", surface_rules=(DENY,))
    write_plan(plan_file(path, [edit], [project]))
    return path


def _check_claude(tmp_path: Path, original: bytes) -> Path:
    project = _project(tmp_path)
    path = project / ".claude" / "settings.local.json"
    path.write_bytes(original)
    write_check(plan_rules(str(project), [FORCE], agents=["claude"]), str(project))
    return path


def _check_codex(tmp_path: Path, original: bytes) -> Path:
    project = _project(tmp_path)
    path = codex_hooks()
    path.parent.mkdir(parents=True)
    path.write_bytes(original)
    write_check(plan_rules(str(project), [FORCE], agents=["codex"]), str(project))
    return path


def _install_hooks(tmp_path: Path, original: bytes) -> Path:
    path = Path.home() / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(original)
    result = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert result.exit_code == 0, result.output
    return path


WRITERS: dict[str, Callable[[Path, bytes], Path]] = {
    "permission": _permission,
    "check-claude": _check_claude,
    "check-codex": _check_codex,
    "install-hooks": _install_hooks,
}


def _only_added(before: str, after: str) -> list[str]:
    """The lines `after` adds to `before`; fails when any line of `before` changed other
    than by the comma a member gets when one is added after it."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    added: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        assert op in ("insert", "replace"), (op, old[i1:i2])
        if op == "replace":
            # One line gains a comma (or, without a final newline, a comma and a newline).
            assert i2 - i1 == 1, (old[i1:i2], new[j1:j2])
            line = old[i1]
            stem = line.rstrip("\r\n")
            assert new[j1].rstrip("\r\n") == stem + ",", (line, new[j1])
            j1 += 1
        added.extend(new[j1:j2])
    # The end of the file is as it was: its final newline, or none.
    assert after.endswith("}" + before[len(before.rstrip()):])
    return added


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("style", list(STYLES))
def test_only_learns_entry_is_added_in_the_files_own_style(
        tmp_path: Path, writer: str, style: str) -> None:
    before = STYLES[style]
    path = WRITERS[writer](tmp_path, before.encode("utf-8"))
    after = path.read_bytes().decode("utf-8")
    added = _only_added(before, after)
    assert added, "learn's entry was not written"
    newline = "\r\n" if "\r\n" in before else "\n"
    unit = "\t" if "\t" in before else " " * (4 if "    " in before else 2)
    for line in added:
        assert line.endswith(newline) and not line.endswith("\r\n" if newline == "\n" else "\n\n")
        lead = line[:len(line) - len(line.lstrip(" \t"))]
        assert lead == unit * (len(lead) // len(unit)), repr(line)
    assert ("\r\n" in after) == ("\r\n" in before) and "\n\n" not in after
    text = "".join(added)
    assert (DENY in text) if writer == "permission" else ('"hooks"' in text and "learn" in text)
    # What the file said is all still there; the lines above show it is as it said it.
    old_data, new_data = json.loads(before), json.loads(after)
    if writer == "permission":
        assert new_data["permissions"].pop("deny") == [DENY]
        if "permissions" not in old_data:
            assert new_data.pop("permissions") == {}
    else:
        assert set(new_data.pop("hooks")) <= {"PreToolUse", "SessionEnd", "InstructionsLoaded"}
    assert new_data == old_data


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_file_with_a_key_twice_is_refused_and_left_as_it_is(tmp_path: Path, writer: str) -> None:
    original = DUPLICATE.encode("utf-8")
    if writer == "install-hooks":
        path = Path.home() / ".claude" / "settings.json"
        path.parent.mkdir(parents=True)
        path.write_bytes(original)
        result = CliRunner().invoke(install, ["--hooks", "--yes"])
        assert result.exit_code != 0 and '"dup" twice' in result.output
    else:
        with pytest.raises((ApplyError, CheckError), match='"dup" twice'):
            path = WRITERS[writer](tmp_path, original)
        path = {"permission": tmp_path / "proj" / ".claude" / "settings.json",
                "check-claude": tmp_path / "proj" / ".claude" / "settings.local.json",
                "check-codex": codex_hooks()}[writer]
    assert path.read_bytes() == original


def test_removing_the_check_after_the_person_edited_keeps_their_style(tmp_path: Path) -> None:
    """Only learn's hook is taken out of a file the person changed since; the rest is
    written as they write it."""
    before = STYLES["crlf-tabs"]
    path = _check_claude(tmp_path, before.encode("utf-8"))
    edited = path.read_bytes().replace(b'"model": "opus"', b'"model": "sonnet"')
    path.write_bytes(edited)
    project = str(tmp_path / "proj")
    write_check(plan_rules(project, [], agents=["claude"]), project)
    assert path.read_bytes() == before.replace("opus", "sonnet").encode("utf-8")


# Written by hand: spacing, one-line containers and escapes of its own.
HAND_WRITTEN = ('{\n  "model":"opus",\n  "env": {"A": "1", "URL":"http:\\/\\/x"},\n'
                '  "permissions" : {\n    "allow": ["Bash(ls:*)"],\n    "deny": ["Bash(rm:*)"]\n  }\n}\n')


@pytest.mark.parametrize("writer", list(WRITERS))
def test_what_learn_does_not_change_is_written_as_it_was(tmp_path: Path, writer: str) -> None:
    path = WRITERS[writer](tmp_path, HAND_WRITTEN.encode("utf-8"))
    after = path.read_bytes().decode("utf-8")
    for kept in ('  "model":"opus",\n', '  "env": {"A": "1", "URL":"http:\\/\\/x"},\n',
                 '    "allow": ["Bash(ls:*)"],\n'):
        assert kept in after
    if writer == "permission":
        # The one-line list learn adds to stays on one line, with its key as written.
        assert '  "permissions" : {\n' in after
        assert f'    "deny": ["Bash(rm:*)", "{DENY}"]\n' in after
    else:
        assert '    "deny": ["Bash(rm:*)"]\n' in after


@pytest.mark.parametrize("original", [b"\xef\xbb\xbf{\n  \"model\": \"opus\"\n}\n", b"\n", b"  \r\n"])
def test_a_permission_goes_into_a_file_with_a_bom_or_blank(tmp_path: Path, original: bytes) -> None:
    path = _permission(tmp_path, original)
    after = path.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf") == original.startswith(b"\xef\xbb\xbf")
    assert DENY in json.loads(after.decode("utf-8-sig"))["permissions"]["deny"]


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_lone_surrogate_escape_is_written_as_an_escape(tmp_path: Path, writer: str) -> None:
    before = '{\n  "env": {\n    "A": "\\udc80",\n    "B": "café"\n  }\n}\n'
    path = WRITERS[writer](tmp_path, before.encode("utf-8"))
    after = path.read_bytes().decode("utf-8")
    assert '"A": "\\udc80"' in after and '"B": "café"' in after


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12)


@given(st.dictionaries(st.text(max_size=5).filter(lambda k: k != "permissions"), _JSON, max_size=4),
       st.sampled_from([None, 0, 1, 2, 4, "\t"]), st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : ")]),
       st.booleans())
@settings(max_examples=300, deadline=None)
def test_any_settings_file_gets_the_rule_and_keeps_every_other_member_as_written(
    data: dict[str, object], indent: int | str | None, separators: tuple[str, str], ascii_only: bool,
) -> None:
    from learn.report.escalation import merged_settings

    original = json.dumps(data, indent=indent, separators=separators, ensure_ascii=ascii_only)
    written = merged_settings(original, [DENY], Path("settings.json"))
    assert json.loads(written) == {**data, "permissions": {"deny": [DENY]}}
    for key, value in data.items():  # each member the file had is there as the file wrote it
        alone = json.dumps({key: value}, indent=indent, separators=separators, ensure_ascii=ascii_only)
        member = alone.strip("{}\n\t ")
        if indent is None:
            assert member in written
    assert merged_settings(written, [DENY], Path("settings.json")) == written  # held already: unchanged
