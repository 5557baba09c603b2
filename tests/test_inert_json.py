"""`--json` output keeps the data exact and shows nothing on a screen (learn.visible.inert_json):
a hidden character in a quote, a title or a path is written as its `\\uXXXX` escape."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _learn_cli import learn, learn_env

from learn.visible import hidden, inert_json

FIXTURE = Path(__file__).parent / "fixtures" / "view" / "claude_main.jsonl"
# A bidi override, CSI as one C1 character, a zero-width space, a tag letter, a lone surrogate.
_HOSTILE = "use bun \u202eyadot \x9b2J x\u200by \U000e0041 \udcff end"


def test_every_hidden_code_point_is_escaped_and_reads_back_the_same() -> None:
    wrong = []
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        text = json.dumps({"t": f"a{char}b"}, ensure_ascii=False)
        out = inert_json(text)
        if json.loads(out) != {"t": f"a{char}b"} or (hidden(char) and char in out):
            wrong.append(hex(code))
    assert wrong == []


def test_plain_json_is_returned_as_it_is() -> None:
    text = json.dumps({"quote": "naïve café, 日本語\ttab", "n": [1, 2]}, indent=2, ensure_ascii=False)
    assert inert_json(text) is text


def test_a_session_holding_hidden_characters_lists_and_shows_inert(tmp_path: Path) -> None:
    project = tmp_path / ".claude" / "projects" / "-home-dev-shop"
    project.mkdir(parents=True)
    lines = FIXTURE.read_text().splitlines()
    lines = [line.replace("Please add a --dry-run flag to the deploy script.",
                          json.dumps(_HOSTILE)[1:-1]) for line in lines]
    session = project / "1c0ffee0-0000-4000-8000-000000000001.jsonl"
    session.write_text("\n".join(lines) + "\n")
    env = learn_env(HOME=str(tmp_path), CLAUDE_CONFIG_DIR=str(tmp_path / ".claude"),
                    CODEX_HOME=str(tmp_path / ".codex"), LEARN_DATA_DIR=str(tmp_path / "data"),
                    LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"))
    shown = learn("show", "--json", str(session), cwd=tmp_path, env=env)
    assert shown.returncode == 0, shown.stderr
    assert not any(hidden(c) for c in shown.stdout.replace("\n", "").replace("\t", ""))
    texts = json.dumps(json.loads(shown.stdout), ensure_ascii=False)
    assert "use bun \u202eyadot \x9b2J x\u200by \U000e0041" in texts  # the data, exact
    listed = learn("sessions", "--all-projects", "--json", cwd=tmp_path, env=env)
    assert listed.returncode == 0, listed.stderr
    assert not any(hidden(c) for c in listed.stdout.replace("\n", "").replace("\t", ""))
