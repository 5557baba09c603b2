"""A command's description is one YAML scalar Claude Code reads back as written, whatever
the model wrote and wherever the 80-column cut falls.

`learn apply` writes `description: <JSON string>` in a command file's front matter (a
JSON string is a YAML double-quoted one). Claude Code 2.1.332 ends the front matter at
the first `---` after the opening one, inside a quoted value too: a description holding
"---" lost its front matter, and the model was sent `front --- matter"` and the closing
`---` as the command's first lines (measured with the real client, the last test here).
And the cut (`flatten(..., 80)`) went through code spans, dropping the closing backtick
of the span learn had made of a tag (`<img src=x onerror=…>`), which read as Markdown
was HTML again.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from learn.report.command_plan import command_description, command_text, yaml_string
from learn.report.edits import RuleEdit
from learn.report.inline_read import read
from learn.report.prose import plain_prose
from learn.report.words import flatten
from learn.textunits import display_width

# Claude Code 2.1.332's front matter (its `K0`): from the opening `---` to the first
# `---` anywhere after it.
CLAUDE_FRONT_MATTER = re.compile(r"^---\s*\n([\s\S]*?)---\s*\n?")
BODY = "Write the release notes from the merged pull requests, grouped by area."

HOSTILE = [
    "Release notes --- then --- the changelog",
    "----- a rule of hyphens -----",
    'Say "ship it": then # not a comment',
    "key: value: another # hash and 'single' quotes",
    "- a list item's dash at the start",
    "* a star",
    "& an anchor",
    "% a directive",
    "| a literal block",
    "> a folded block",
    "{ a flow: mapping }",
    "[ a flow, sequence ]",
    "? a complex key",
    "a backslash \\ and \\n written out",
    "first line\nsecond line\r\nthird\u2028fourth\u0085fifth",
    "a DEL\x7f, a C1\x9b control and a bell\x07",
    "a BOM\ufeff and a noncharacter \uffff and a lone \ud800 surrogate",
    "`git push --force` is never run --- ask first",
    "Use `pnpm vitest run --reporter=verbose` and read every failure before fixing any",
    "Check the page for <img src=x onerror=alert(1)> tags and remove each one you find",
    "The " + "very " * 12 + "long `pnpm lint --fix --max-warnings 0` line",
    "``a span with a ` inside, opened and closed by two backticks, long enough to cut``",
    "中文的描述 " * 12 + "`中文 代码`",
]


def _file(description: str, body: str = BODY) -> str:
    return command_text(RuleEdit(key="request:release-notes", text="Release notes.",
                                 target=Path("/x/release-notes.md"), provenance="2 sessions",
                                 decision="accepted", form="command", description=description,
                                 body=body))


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """(front matter, body) as Claude Code splits the file, the front matter parsed as YAML."""
    m = CLAUDE_FRONT_MATTER.match(text)
    assert m is not None, text
    return yaml.safe_load(m.group(1)), text[m.end():]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_hostile_description_is_one_yaml_scalar_read_back_as_written(text: str) -> None:
    written = _file(text)
    front, body = _front_matter(written)
    assert front == {"description": command_description(text)}
    assert body.startswith(f"{BODY}\n\n<!-- learn request:release-notes")
    line = written.split("\n")[1]
    assert line.startswith('description: "') and line.endswith('"')
    # No raw "---" for a reader that ends the front matter there, and no line break.
    assert "---" not in written.split("\n---\n")[0][3:]


def test_an_ordinary_description_is_written_as_before() -> None:
    assert _file("Write the release notes, --force never, from the PRs.").startswith(
        '---\ndescription: "Write the release notes, --force never, from the PRs."\n---\n')


def test_the_cut_closes_a_code_span_it_goes_through() -> None:
    text = "The " + "very " * 12 + "long `pnpm lint --fix --max-warnings 0` line"
    assert flatten(plain_prose(text), 80).count("`") == 1  # what the cut did before
    described = command_description(text)
    assert described.endswith("…`") and "`pnpm lin" in described
    assert [p.kind for p in read(described) if p.kind != "text"] == ["code"]
    assert display_width(described) <= 80


def test_the_cut_keeps_a_tag_learn_made_a_span_inside_it() -> None:
    text = "Check the page for <img src=x onerror=alert(1)> tags and remove each one you find"
    prose = plain_prose(text)
    assert "`<img src=x onerror=alert(1)>`" in prose
    described = command_description("x" * 40 + " " + text)
    assert [p.kind for p in read(described) if p.kind != "text"] == ["code"]
    assert described.endswith("…`")


def test_a_span_whose_words_do_not_fit_is_left_out_whole() -> None:
    text = "x" * 76 + " `abcdef` after"
    assert command_description(text) == "x" * 76 + "…"


def test_on_random_hostile_text_the_cut_adds_no_markup_and_yaml_reads_it_back() -> None:
    atoms = ["`", "``", "<img src=x onerror=alert(1)>", "<b>", "</details>", "---", "- ",
             "* ", "& ", "! ", "% ", "@x ", "# ", ": ", '"', "'", "\\", "\n", "\u2028",
             "\x85", "\x7f", "中文", "word ", "run ", "pnpm lint --fix ", "[a](http://x.y)",
             "**", "$ARGUMENTS", "|", ">", "{", "}", "\t", "…", "\ufeff", "\ud800"]
    rng = random.Random(5)
    for _ in range(3000):
        text = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 40)))
        described = command_description(text)
        front, body = _front_matter(_file(text))
        assert front == {"description": described}, text
        assert body.startswith(BODY), text
        assert display_width(described) <= 80, text
        # Every backtick run and tag reads as it did before the cut (prose leaves a
        # loose backtick where it makes no span): none is made by the cut.
        whole = {(p.kind, p.start) for p in read(flatten(plain_prose(text)))}
        made = [p for p in read(described) if p.kind != "text" and p.kind != "code"
                and (p.kind, p.start) not in whole]
        assert not made, (text, described)


def test_yaml_string_escapes_what_yaml_does_not_take_as_it_is() -> None:
    for value in ("--- a ---- b", "x\u2028y\x85z\x7f\x9b", "a\ud800b", "q\"\\", "\uffff"):
        quoted = yaml_string(value)
        assert yaml.safe_load(f"d: {quoted}") == {"d": value}
        assert "---" not in quoted and quoted.isascii()
    assert yaml_string("Use bun, never npm.") == json.dumps("Use bun, never npm.")


# -- the real Claude Code ------------------------------------------------------------

REAL = ["Release notes --- then --- the changelog",
        'Say "ship it": then # not a comment & *star % at @ end',
        "- a list item's dash, a backslash \\ and a `code span --- inside`",
        "The " + "very " * 12 + "long `pnpm lint --fix --max-warnings 0` line"]


def test_the_real_claude_code_reads_each_description_and_the_body_as_written(
        tmp_path: Path) -> None:
    from test_claude_surfaces_real import INSTALLED, QUIET, ScriptedModel, real_binary

    claude = real_binary(INSTALLED, "LEARN_CLAUDE_CODE_BIN", "LEARN_REQUIRE_CLAUDE_CODE",
                         "Claude Code (.ci/install-claude-code)")
    project, home = tmp_path / "shop", tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    for i, text in enumerate(REAL):
        (commands / f"probe-{i}.md").write_text(_file(text, f"PROBE-BODY-{i} {BODY}"))

    def run(prompt: str) -> str:
        fake = ScriptedModel([])
        with fake:
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
            env.update(QUIET, HOME=str(home), ANTHROPIC_API_KEY="sk-ant-dummy-for-the-fake",
                       ANTHROPIC_BASE_URL=fake.base_url)
            proc = subprocess.run([str(claude), "-p", prompt, "--output-format", "json",
                                   "--model", "claude-haiku-4-5"], cwd=project, env=env,
                                  capture_output=True, text=True, timeout=240, check=False)
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
        return "\n".join(json.dumps(r.json) for r in fake.requests)

    listing = run("list-test: say ok")
    for i, text in enumerate(REAL):
        shown = json.dumps(f"- probe-{i}: {command_description(text)}\n")[1:-1]
        assert shown in listing, (i, command_description(text))
    sent = run("/probe-0")
    # The model gets the body alone: no rest of the front matter before it.
    assert json.dumps(f"PROBE-BODY-0 {BODY}")[1:-1] in sent
    assert "the changelog" not in sent.split("PROBE-BODY-0")[0].split("<command-name>")[-1]
