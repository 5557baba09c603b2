"""Rule text hides nothing and imports nothing (learn.report.prose).

The audit's cases: `@Makefile` and `@README` were kept (Claude Code imports `@name`
without a dot or slash too: its docs' own example is `@README`), and bidi and
zero-width characters reached CLAUDE.md and command files, where they reorder or
hide text in the diff the person confirms (Trojan Source)."""

from __future__ import annotations

import re

import pytest

from learn.report.prose import plain_prose

# Claude Code's import form: `@` at the start of a line or after whitespace, then a path.
_CC_IMPORT = re.compile(r"(?:^|\s)@\S", re.MULTILINE)


@pytest.mark.parametrize("char", [
    "\u202e", "\u202a", "\u202b", "\u202c", "\u202d",  # bidi embeddings and overrides
    "\u2066", "\u2067", "\u2068", "\u2069",  # bidi isolates
    "\u200b", "\u200c", "\u200d", "\u200e", "\u200f",  # zero-width and marks
    "\ufeff",  # zero-width no-break space
])
@pytest.mark.parametrize("one_line", [True, False])
def test_no_bidi_or_zero_width_character_is_written(char: str, one_line: bool) -> None:
    written = plain_prose(f"Use bun {char}elif_kees ton od{char} for installs", one_line=one_line)
    assert char not in written
    assert written == "Use bun elif_kees ton od for installs"


def test_a_trojan_source_rule_is_written_in_its_real_order() -> None:
    assert plain_prose("Use bun\u200b\u2066 hidden\u2069 always") == "Use bun hidden always"


@pytest.mark.parametrize(("said", "written"), [
    ("Always read @Makefile and @README before building",
     "Always read Makefile and README before building"),
    ("@CLAUDE.local.md first", "CLAUDE.local.md first"),
    ("Keep secrets out (@~/.ssh/id_rsa) of the code", "Keep secrets out (~/.ssh/id_rsa) of the code"),
    ("Ask @alice before merging", "Ask alice before merging"),
    ("Mail a@b.com or ops@example.org", "Mail a@b.com or ops@example.org"),
    ("Read @@README twice", "Read README twice"),
    ("Use bun\u200b@README now", "Use bun README now"),
])
def test_no_word_is_an_import(said: str, written: str) -> None:
    assert plain_prose(said) == written


def test_a_command_body_imports_nothing_on_any_line() -> None:
    body = "Deploy it.\n@Makefile\n  @README and\tthen @package.json\n\u202e hidden"
    written = plain_prose(body, one_line=False)
    assert not _CC_IMPORT.search(written)
    assert written == "Deploy it.\nMakefile\nREADME and then package.json\nhidden"


@pytest.mark.parametrize(("said", "written"), [
    # Claude Code evaluates no import inside a code span: a scoped package stays.
    ("Install `@types/node` as a dev dependency", "Install `@types/node` as a dev dependency"),
    ("Read @README, not `@README`", "Read README, not `@README`"),
    # A doubled backtick is not taken as a plain span: its `@` goes.
    ("Run ``@evil`` now", "Run ``evil`` now"),
])
def test_an_at_inside_a_plain_code_span_stays(said: str, written: str) -> None:
    assert plain_prose(said) == written


@pytest.mark.parametrize(("said", "written"), [
    ("Use <details><summary>bun</summary>and npm</details> always", "Use bun and npm always"),
    ("Say hi <img src=https://x.example/p.png onerror=alert(1)> politely", "Say hi politely"),
    ("Keep <span style='display:none'>quiet</span> logs", "Keep quiet logs"),
    ("Return Map<string, number> from lookups", "Return Map<string, number> from lookups"),
    ("Write `<div>` in templates", "Write `<div>` in templates"),
])
def test_no_html_element_is_written(said: str, written: str) -> None:
    assert plain_prose(said) == written


@pytest.mark.parametrize(("said", "written"), [
    ("See ![logo](https://x.example/beacon.png) first", "See logo first"),
    ("Read [the docs](javascript:alert(1)) first", "Read the docs first"),
    ("Open [keys](file:///home/me/.ssh/id_rsa) never", "Open keys never"),
    ("Open <javascript:alert(1)> never", "Open never"),
    ("Read [bun's docs](https://bun.sh/docs) first", "Read [bun's docs](https://bun.sh/docs) first"),
    ("See <https://bun.sh/docs> first", "See <https://bun.sh/docs> first"),
])
def test_only_http_links_stay_and_no_image_is_shown(said: str, written: str) -> None:
    assert plain_prose(said) == written
