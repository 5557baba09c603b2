"""Every file `learn apply` writes for another agent, read back the way that agent reads it.

The frontmatter parses as YAML (PyYAML) to the scope asked for, whatever the rule's words;
an existing file keeps its bytes (frontmatter, body, BOM, CRLF) but for learn's section;
the rule lands in the body, outside any code block; a second run adds nothing; a blank
file still gets the frontmatter that scopes it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from learn.reduce.agent_files import scope_globs
from learn.report.agent_formats import frontmatter_for, plan_agent_file
from learn.report.edits import RuleEdit, _outside_fences, split_lines
from learn.report.surfaces_apply import plan_surface

SCOPED = (".github/instructions/api.instructions.md", ".cursor/rules/api.mdc",
          ".windsurf/rules/api.md", ".kiro/steering/api.md", ".claude/rules/api.md")
HOSTILE = ("--- three dashes first", "key: value # not a comment", "- starts like a list item",
           "'single' and \"double\" quotes", "non-ASCII: café, 日本語, emoji 🚀",
           # Long, yet a rule line learn writes (learn.report.edits.MAX_RULE_CHARS).
           "word " * 59, "&anchor *alias !tag %directive @at `tick`", "a\n---\nb: c")


def _write(tmp_path: Path, rel: str, content: bytes | None) -> Path:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if content is not None:
        path.write_bytes(content)
    return path


def _plan(path: Path, globs: tuple[str, ...], text: str = "Run the API tests with make api-test",
          key: str = "directive:api-tests", description: str = "") -> str:
    if path.parts[-3:-1] == (".claude", "rules"):
        edit = RuleEdit(key=key, text=text, target=path, form="path-rule", surface_rules=globs,
                        provenance="3 sessions")
        return plan_surface(path, [edit]).new_text
    edit = RuleEdit(key=key, text=text, target=path, form="agent-rule", surface_rules=globs,
                    provenance="3 sessions", description=description)
    return plan_agent_file(path, [edit]).new_text


def _front(text: str) -> tuple[dict[str, object], str]:
    """(frontmatter as YAML reads it, body): the block between the first two `---` lines."""
    lines = text.removeprefix("\ufeff").splitlines()
    assert lines[0] == "---", text[:80]
    end = lines.index("---", 1)
    data = yaml.safe_load("\n".join(lines[1:end]))
    assert isinstance(data, dict)
    return data, "\n".join(lines[end + 1:])


def _scope(rel: str, data: dict[str, object]) -> list[str]:
    """The globs each agent's documented field gives, as YAML read them."""
    def split(v: object) -> list[str]:
        if isinstance(v, list):
            return [str(x) for x in v]
        return [g for g in str(v).split(",") if g]
    if rel.endswith(".instructions.md"):
        return split(data["applyTo"])
    if rel.endswith(".mdc"):
        assert data["alwaysApply"] is False
        return split(data["globs"])
    if ".windsurf" in rel:
        assert data["trigger"] == "glob"
        return split(data["globs"])
    if ".kiro" in rel:
        assert data["inclusion"] == "fileMatch"
        return split(data["fileMatchPattern"])
    return split(data["paths"])


def _rule_in_prose(text: str, rule: str) -> None:
    lines = split_lines(text)
    prose = _outside_fences(lines)
    hits = [i for i, line in enumerate(lines) if rule in line]
    assert len(hits) == 1, text
    assert prose[hits[0]], f"the rule is inside a code block:\n{text}"


# --- defects: each failed before the fix ---------------------------------------------

@pytest.mark.parametrize("rel", SCOPED)
@pytest.mark.parametrize("blank", [b"", b"\n", b"  \n\n"])
def test_a_blank_existing_file_gets_its_scope(tmp_path: Path, rel: str, blank: bytes) -> None:
    # An empty rule file (created by hand, by `touch`) was written without frontmatter:
    # Claude Code and Kiro then load the path rule always, Cursor and Copilot never.
    path = _write(tmp_path, rel, blank)
    data, body = _front(_plan(path, ("src/api/**/*.py",)))
    assert _scope(rel, data) == ["src/api/**/*.py"]
    assert "Run the API tests" in body


@pytest.mark.parametrize("rel", SCOPED)
def test_a_blank_file_keeps_its_bom_and_crlf(tmp_path: Path, rel: str) -> None:
    path = _write(tmp_path, rel, "\ufeff\r\n".encode())
    new = _plan(path, ("src/api/**/*.py",))
    assert new.startswith("\ufeff---\r\n")
    assert "\n" not in new.replace("\r\n", "")
    data, _ = _front(new)
    assert _scope(rel, data) == ["src/api/**/*.py"]


def test_an_unscoped_blank_file_gets_always_on_frontmatter(tmp_path: Path) -> None:
    path = _write(tmp_path, ".cursor/rules/learn.mdc", b"")
    data, _ = _front(_plan(path, ()))
    assert data["alwaysApply"] is True


@pytest.mark.parametrize("rel", (*SCOPED, "AGENTS.md", ".github/copilot-instructions.md"))
def test_markers_shown_in_a_code_block_are_not_the_section(tmp_path: Path, rel: str) -> None:
    # A file documenting learn's section in a fenced example: the rule went into the fence.
    header = frontmatter_for(tmp_path / rel, ("src/**",)) if rel in SCOPED[:4] else ""
    example = ("# How learn writes here\n\n````markdown\n<!-- learn:begin -->\n"
               "- an example rule\n<!-- learn:end -->\n````\n")
    path = _write(tmp_path, rel, (header + example).encode())
    new = _plan(path, ("src/**",))
    assert new.startswith(header + example)
    _rule_in_prose(new, "Run the API tests")


@pytest.mark.parametrize("rel", (*SCOPED, "GEMINI.md"))
def test_a_code_block_left_open_does_not_swallow_the_rule(tmp_path: Path, rel: str) -> None:
    # CommonMark runs an unclosed fence to the end of the file: what is appended is code.
    header = frontmatter_for(tmp_path / rel, ("src/**",)) if rel in SCOPED[:4] else ""
    old = header + "# Setup\n\n~~~bash\nmake setup\n"
    path = _write(tmp_path, rel, old.encode())
    new = _plan(path, ("src/**",))
    assert new.startswith(old)
    _rule_in_prose(new, "Run the API tests")
    path.write_text(new, encoding="utf-8")
    assert _plan(path, ("src/**",)) == new  # the second run adds nothing


# --- already right: kept as regression checks ----------------------------------------

@pytest.mark.parametrize("rel", SCOPED)
@pytest.mark.parametrize("globs", [("src/api/**/*.py",), ("src/**/*.ts", "**/*.tsx"),
                                   ("docs/my notes/*.md",), ("config/a:b/*.yml",),
                                   ("notes/#draft/*.md",), ("données/*.csv",)])
@pytest.mark.parametrize("words", HOSTILE)
def test_new_file_frontmatter_is_yaml_for_any_words(tmp_path: Path, rel: str,
                                                     globs: tuple[str, ...], words: str) -> None:
    new = _plan(_write(tmp_path, rel, None), globs, text=words, description=words)
    if rel.endswith(".mdc") and all(g.startswith("*") for g in globs):
        return  # bare `**/…` on purpose (Cursor's reader): covered by learn's own reader below
    data, body = _front(new)
    assert set(_scope(rel, data)) == set(globs)
    if ".claude" not in rel:  # learn's own reader of the other agents' files agrees
        assert set(scope_globs(new, tmp_path / rel)) == set(globs)
    assert "<!-- learn:begin -->" in body and "<!-- learn:begin -->" not in new.split("\n---\n")[0]


@pytest.mark.parametrize("words", HOSTILE)
def test_cursor_globs_and_description_read_back(tmp_path: Path, words: str) -> None:
    path = _write(tmp_path, ".cursor/rules/web.mdc", None)
    new = _plan(path, ("**/*.tsx", "src/*.{ts,js}"), text=words, description=words)
    assert sorted(scope_globs(new, path)) == ["**/*.tsx", "src/*.js", "src/*.ts"]
    data, _ = _front(new)
    assert data["description"] == " ".join(words.split())[:len(str(data["description"]))] \
        or str(data["description"]).endswith("…")


def test_claude_paths_is_a_list_of_quoted_globs(tmp_path: Path) -> None:
    new = _plan(_write(tmp_path, ".claude/rules/api.md", None), ("**/*.ts", "src/é/*.py"))
    assert new.startswith('---\npaths:\n  - "**/*.ts"\n')
    assert _front(new)[0] == {"paths": ["**/*.ts", "src/é/*.py"]}


def test_copilot_apply_to_is_one_comma_joined_string(tmp_path: Path) -> None:
    new = _plan(_write(tmp_path, ".github/instructions/api.instructions.md", None),
                ("src/**/*.ts", "test/**/*.ts"))
    assert 'applyTo: "src/**/*.ts,test/**/*.ts"\n' in new


@pytest.mark.parametrize("rel", (*SCOPED, "AGENTS.md"))
def test_existing_file_keeps_every_byte_and_is_not_appended_twice(tmp_path: Path,
                                                                   rel: str) -> None:
    old = ("\ufeff---\r\ndescription: 'Ours: keep # this'\r\napplyTo: \"**/*.py\"\r\n---\r\n"
           "# API\r\n\r\n```py\r\nx = 1\r\n```\r\nLast line, no newline")
    path = _write(tmp_path, rel, old.encode())
    new = _plan(path, ("src/**",))
    assert new.startswith(old + "\r\n")
    assert "\n" not in new.replace("\r\n", "")
    _rule_in_prose(new, "Run the API tests")
    path.write_text(new, encoding="utf-8", newline="")
    assert _plan(path, ("src/**",)) == new
    assert _plan(path, ("src/**",), key="directive:other") == new  # same words, other key
