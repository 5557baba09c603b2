"""A command for a current Codex is a skill Codex loads, not a custom prompt it never reads.

Codex 0.117.0 removed custom prompts (openai/codex#16115); the Codex this project pins
(.ci/install-codex, 0.171.0) never reads `~/.codex/prompts`, so a person on it got a
dead `~/.codex/prompts/<name>.md` and was told a command was written. Now the person's
newest Codex sessions (`cli_version` in a rollout's `session_meta`) decide: before
0.117.0 a custom prompt, from it (or when no session says) a skill,
`~/.agents/skills/<name>/SKILL.md`, which the real Codex 0.171.0 lists through its
app-server's `skills/list` (last tests; they skip without build/codex unless
LEARN_REQUIRE_CODEX is set).

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from _said_to_agents import project, record
from click.testing import CliRunner, Result
from test_claude_surfaces_real import real_binary
from test_f5_commands_and_denials_follow_agents import BODY, _command

from learn.records.proposal import Proposal
from learn.report.agent_targets import codex_form
from learn.report.apply import plan_all, plan_file, write_plan
from learn.report.codex_commands import (
    codex_command,
    codex_version,
    reads_skills,
    skill_name,
    skills_dir,
)
from learn.report.command_plan import command_description
from learn.report.confine import confine, may_write
from learn.report.edits import RuleEdit
from learn.report.errors import ConfinementError

__all__ = ["project"]  # the fixture (tests/_said_to_agents.py)

REPO = Path(__file__).resolve().parents[1]
INSTALLED = REPO / "build" / "codex" / "node_modules" / ".bin" / "codex"


def _home() -> Path:
    return Path(os.environ["HOME"])


def _rollout(version: str | None, day: str = "2026/03/20", stamp: str = "10-00-00",
             cwd: str = "/work/service") -> Path:
    """A Codex rollout whose session_meta says `version` (None: says none)."""
    folder = _home() / ".codex" / "sessions" / day
    folder.mkdir(parents=True, exist_ok=True)
    meta: dict[str, Any] = {"id": "0199aaaa-0000-7000-8000-000000000001", "cwd": cwd,
                            "originator": "codex_cli_rs", "source": "cli"}
    if version is not None:
        meta["cli_version"] = version
    path = folder / f"rollout-{day.replace('/', '-')}T{stamp}-0199aaaa-{stamp}.jsonl"
    path.write_text(json.dumps({"timestamp": "2026-03-20T10:00:00Z", "type": "session_meta",
                                "payload": meta}) + "\n")
    return path


# -- which Codex, so which file ---------------------------------------------------------

@pytest.mark.parametrize(("version", "skills"), [
    ((0, 110, 0), False), ((0, 116, 9), False), ((0, 117, 0), True), ((0, 171, 0), True),
    ((1, 0, 0), True), (None, True)])
def test_prompts_before_0_117_skills_from_it_and_when_no_session_says(
        version: tuple[int, int, int] | None, skills: bool) -> None:
    assert reads_skills(version) is skills


def test_the_version_is_the_highest_of_the_newest_sessions() -> None:
    assert codex_version() is None
    _rollout("0.110.0", day="2026/03/18")
    assert codex_version() == (0, 110, 0)
    # A later session of a newer Codex: that Codex is the one in use.
    _rollout("0.171.0", day="2026/03/20")
    assert codex_version() == (0, 171, 0)
    # An older Codex run since (an IDE's bundled one) does not undo the upgrade.
    _rollout("0.110.0", day="2026/03/21")
    assert codex_version() == (0, 171, 0)


def test_only_the_session_metas_own_cli_version_is_read() -> None:
    # A folder named like the key: JSON escapes its quotes, so it reads as no version.
    _rollout(None, cwd='/work/"cli_version":"0.100.0"')
    _rollout(None, day="2026/03/21")
    assert codex_version() is None


def test_a_person_on_0_171_gets_a_skill_and_no_prompt(tmp_path: Path, project: Path) -> None:
    _rollout("0.171.0")
    record(tmp_path, project, _command(project, ("codex", "codex")))
    out = _apply(project, "--yes").output
    skill = _home() / ".agents" / "skills" / "release-notes" / "SKILL.md"
    assert skill.read_text() == (
        '---\nname: "release-notes"\ndescription: "Write the release notes from the merged '
        f'PRs."\n---\n{BODY}\n\n<!-- learn request:release-notes, 2 sessions, last '
        "2026-03-20 -->\n")
    assert "a Codex skill, type $release-notes in a Codex message to use it" in out
    assert not (_home() / ".codex" / "prompts").exists()


def test_a_person_on_0_110_keeps_the_custom_prompt(tmp_path: Path, project: Path) -> None:
    _rollout("0.110.0")
    record(tmp_path, project, _command(project, ("codex", "codex")))
    out = _apply(project, "--yes").output
    prompt = _home() / ".codex" / "prompts" / "release-notes.md"
    assert prompt.read_text().startswith(
        f'---\ndescription: "Write the release notes from the merged PRs."\n---\n{BODY}\n')
    assert "a Codex custom prompt, type /prompts:release-notes in Codex to use it" in out
    assert not (_home() / ".agents").exists()


def test_a_skill_goes_to_the_homes_agents_folder_whatever_codex_home_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-elsewhere"))
    assert codex_command("release-notes") == skills_dir() / "release-notes" / "SKILL.md"
    assert skills_dir() == _home() / ".agents" / "skills"
    # The version is read from CODEX_HOME's sessions, as Codex writes them there.
    folder = tmp_path / "codex-elsewhere" / "sessions" / "2026" / "03" / "20"
    folder.mkdir(parents=True)
    (folder / "rollout-2026-03-20T10-00-00-x.jsonl").write_text(json.dumps(
        {"type": "session_meta", "payload": {"cli_version": "0.100.0"}}) + "\n")
    assert codex_command("release-notes") == tmp_path / "codex-elsewhere" / "prompts" / \
        "release-notes.md"


def test_a_name_dollar_cannot_call_gets_my() -> None:
    # `$home` is never a skill's mention (Codex reads it as the variable), and a second
    # `imagegen` beside Codex's own makes `$imagegen` call neither.
    assert skill_name("home") == "my-home" and skill_name("imagegen") == "my-imagegen"
    assert skill_name("release-notes") == "release-notes"


# -- confined to that one shape --------------------------------------------------------

def test_only_a_skill_folders_skill_md_may_be_written_there() -> None:
    skills = _home() / ".agents" / "skills"
    assert confine(skills / "release-notes" / "SKILL.md") == skills / "release-notes" / \
        "SKILL.md"
    for wrong in (skills / "SKILL.md", skills / "a" / "b" / "SKILL.md",
                  skills / ".hidden" / "SKILL.md", skills / "release-notes" / "notes.md",
                  skills / "release-notes" / ".." / ".." / ".bashrc",
                  _home() / ".agents" / "AGENTS.md", skills / "x" / "scripts" / "run.sh"):
        assert not may_write(wrong), wrong


def test_a_skill_md_linked_to_a_claude_command_is_refused() -> None:
    commands = _home() / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "notes.md").write_text("mine\n")
    folder = _home() / ".agents" / "skills" / "notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(commands / "notes.md")
    with pytest.raises(ConfinementError, match="kind of file its name says"):
        confine(folder / "SKILL.md")


@pytest.mark.parametrize("label", ["../../.bashrc", "/etc/cron.d/x", "..", "a/../../b",
                                   "../.agents/skills/x/../../../.ssh/config"])
def test_a_label_that_tries_to_leave_the_skills_folder_cannot(tmp_path: Path,
                                                            label: str) -> None:
    p = Proposal("request", label, "do it", 3, 3, None, (), surface="command",
                 command_body=BODY)
    main = RuleEdit("request:x", "Do it.", _home() / ".claude" / "commands" / "x.md",
                    form="command")
    edit = codex_form(p, main)
    assert isinstance(edit, RuleEdit)
    skills = _home() / ".agents" / "skills"
    assert edit.target.parent.parent == skills and edit.target.name == "SKILL.md"
    assert ".." not in edit.target.parts and not edit.target.parent.name.startswith(".")
    assert confine(edit.target).is_relative_to(skills)


# -- the front matter Codex reads --------------------------------------------------------

HOSTILE = [
    "- a leading dash",
    "--- three dashes first",
    "ends with ---",
    "key: value inside",
    'He said "hi" and left',
    "it's the 'single' one",
    "a back\\slash and \\n and \\u0041",
    "# hash first",
    "not # a comment",
    "line one\nline two\n---\nname: evil",
    "bell\x07 escape\x1b[31m red\x1b[0m nul\x00 del\x7f",
    "{flow: map}",
    "[a, list]",
    "&anchor *alias !tag %directive @at `tick` |pipe >fold",
    "null",
    "true",
    "~",
    "0x1F",
    "sep\u2028arated\u2029and\x85next",
    "中文的描述：含有“引号”和 'single' 与 \"double\"",
]


def _skill(description: str, name: str = "release-notes") -> str:
    """The SKILL.md `learn apply` plans for `description`."""
    path = codex_command(name)
    edit = RuleEdit(key=f"request:{name}", text="Release notes.", target=path,
                    provenance="2 sessions", form="command", description=description,
                    body=BODY)
    plan = plan_file(path, [edit])
    assert plan.refused is None and plan.applied == [edit], plan.notes
    return plan.new_text


def _codex_front_matter(text: str) -> dict[str, Any]:
    """The front matter as Codex 0.171.0 takes it (core-skills/src/loader.rs
    extract_frontmatter: the lines after a first `---` line up to the next line that is
    `---` once trimmed), read by a YAML parser; whitespace runs made one space, as its
    sanitize_single_line does."""
    lines = text.split("\n")
    assert lines[0].strip() == "---"
    end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
    read = yaml.safe_load("\n".join(lines[1:end]))
    assert isinstance(read, dict)
    return {k: " ".join(str(v).split()) for k, v in read.items()}


@pytest.mark.parametrize("description", HOSTILE)
def test_a_hostile_description_is_read_back_as_meant(description: str) -> None:
    text = _skill(description)
    meant = command_description(description)
    assert meant and meant.isprintable()
    assert _codex_front_matter(text) == {"name": "release-notes", "description": meant}
    # Two front matter lines: no description adds a key or closes the front matter.
    assert text.split("\n")[3] == "---"


# -- undone whole --------------------------------------------------------------------------

def _apply(project: Path, *args: str) -> Result:
    from learn.commands.apply import command

    res = CliRunner().invoke(command, ["--project", str(project), *args])
    assert res.exit_code == 0, res.output
    return res


def test_undo_takes_the_skill_and_the_folders_learn_made(tmp_path: Path, project: Path) -> None:
    record(tmp_path, project, _command(project, ("codex", "codex")))
    _apply(project, "--yes")
    assert (_home() / ".agents" / "skills" / "release-notes" / "SKILL.md").is_file()
    out = _apply(project, "--undo", "--yes").output
    assert not (_home() / ".agents").exists(), out


def test_undo_keeps_a_skills_folder_that_was_there(tmp_path: Path, project: Path) -> None:
    theirs = _home() / ".agents" / "skills" / "deploy" / "SKILL.md"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("---\nname: deploy\ndescription: Deploy.\n---\nDeploy it.\n")
    record(tmp_path, project, _command(project, ("codex", "codex")))
    _apply(project, "--yes")
    assert (_home() / ".agents" / "skills" / "release-notes" / "SKILL.md").is_file()
    _apply(project, "--undo", "--yes")
    assert not (_home() / ".agents" / "skills" / "release-notes").exists()
    assert theirs.read_text().startswith("---\nname: deploy\n")


# -- the real Codex lists it ---------------------------------------------------------------

def _codex() -> Path:
    return real_binary(INSTALLED, "LEARN_CODEX_BIN", "LEARN_REQUIRE_CODEX",
                       "Codex (.ci/install-codex)")


def _offline() -> list[str]:
    """`unshare --net`, where this machine lets the test make a network of its own: the
    listing needs none, and nothing may leave the machine."""
    try:
        ok = subprocess.run(["unshare", "--net", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return ["unshare", "--net"] if ok.returncode == 0 else []


def _listed(codex: Path, cwd: Path) -> list[dict[str, Any]]:
    """The skills the real Codex loads in `cwd`: its app-server's `skills/list` over stdio
    (JSON-RPC, one message a line), the home and CODEX_HOME the test's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "CODEX"))}
    env["CODEX_HOME"] = str(_home() / ".codex")
    (_home() / ".codex").mkdir(exist_ok=True)
    proc = subprocess.Popen([*_offline(), str(codex), "app-server"], cwd=cwd, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for message in ({"id": 1, "method": "initialize",
                         "params": {"clientInfo": {"name": "learn-test", "version": "0"}}},
                        {"method": "initialized"},
                        {"id": 2, "method": "skills/list",
                         "params": {"cwds": [str(cwd)], "forceReload": True}}):
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
            line = proc.stdout.readline() if ready else ""
            if not line:
                break
            answer = json.loads(line)
            if answer.get("id") == 2:
                [entry] = answer["result"]["data"]
                assert entry["errors"] == [], entry["errors"]
                return list(entry["skills"])
        raise AssertionError("Codex's app-server gave no skills/list answer")
    finally:
        proc.stdin.close()
        proc.kill()
        proc.wait(timeout=30)


def test_the_real_codex_lists_the_skill_learn_wrote_as_meant(tmp_path: Path) -> None:
    codex = _codex()
    names = {f"hostile-{i}": d for i, d in enumerate(HOSTILE)}
    for name, description in names.items():
        # The skill and, first, its policy file (tests/test_codex_skill_policy.py): with it
        # beside every SKILL.md, each still loads and lists, with no error.
        plans = plan_all([RuleEdit(key=f"request:{name}", text="Release notes.",
                                   target=codex_command(name), provenance="2 sessions",
                                   form="command", description=description, body=BODY)])
        assert [p.path.name for p in plans] == ["openai.yaml", "SKILL.md"]
        for plan in plans:
            assert plan.refused is None, plan.refused
            write_plan(plan)
    where = tmp_path / "elsewhere"
    where.mkdir()
    listed = {s["name"]: s for s in _listed(codex, where) if s["scope"] == "user"}
    assert set(listed) == set(names)
    for name, description in names.items():
        assert listed[name]["description"] == " ".join(command_description(description).split())
        assert listed[name]["path"] == str(skills_dir() / name / "SKILL.md")
