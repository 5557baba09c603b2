"""Every command says what it left out, in the words `learn sessions` uses: a new user's
walkthrough found `learn run` dropping an unreadable transcript without a word (its digest
then said "said in 3 of your last 3 sessions"), `learn show <id>` of that file saying "no
session matches", a Gemini CLI subagent file called a Codex rollout, `learn plan` saying
"1 unreadable" then "0 unreadable", and `learn demo` reporting its planted fallback as a
failure of its own."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures.fidelity import corpus as fidelity
from fixtures.view.corpus import HERE, Home, install

from learn.cli import cli
from learn.commands.demo import planted_said
from learn.mining.plan import amount
from learn.transcripts.files.listing import SkippedFile
from learn.transcripts.files.skip_note import skipped_note

# A session file named like one, that cannot be opened.
LOST_ID = "dead0000-0000-4000-8000-00000000beef"
ROOT = os.geteuid() == 0


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    h = Path.home()  # conftest points HOME at a temp dir
    installed = install(h / ".claude", h / ".codex", tmp_path / "work" / "shop")
    (h / ".claude" / "commands").mkdir(parents=True)
    shutil.copy(HERE / "review.md", h / ".claude" / "commands" / "review.md")
    monkeypatch.chdir(installed.project)
    return installed


def lost(home: Home) -> Path:
    """A session file in the project that cannot be read (a dangling link: unreadable
    even to root, who reads a chmod 000 file)."""
    path = home.files["main"].parent / f"{LOST_ID}.jsonl"
    path.symlink_to(path.with_name("pruned.jsonl"))
    return path


def locked(home: Home) -> Path:
    """A copy of a session, chmod 000 (root reads it anyway: those tests are skipped)."""
    path = home.files["main"].parent / f"{LOST_ID}.jsonl"
    path.write_text(home.files["main"].read_text().replace(
        "1c0ffee0-0000-4000-8000-000000000001", LOST_ID))
    path.chmod(0)
    return path


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_learn_run_says_it_skipped_an_unreadable_transcript(home: Home) -> None:
    lost(home)
    code, out = invoke("run", "--offline", "--quiet")
    assert code == 0, out
    assert "Skipped: " in out and "1 unreadable" in out.split("Skipped: ")[1]
    code, out = invoke("run", "--offline", "--quiet", "--json")
    assert code == 0, out
    assert json.loads(out)["skipped"]["unreadable"] == 1


@pytest.mark.skipif(ROOT, reason="root reads a chmod 000 file")
def test_learn_run_says_it_skipped_a_transcript_it_may_not_read(home: Home) -> None:
    locked(home)
    code, out = invoke("run", "--offline", "--quiet", "--json")
    assert code == 0, out
    assert json.loads(out)["skipped"]["unreadable"] == 1


def test_a_stored_runs_json_keeps_what_it_skipped() -> None:
    from learn.records.proposal import Funnel, RunResult, RunUsage

    result = RunResult((), Funnel(), RunUsage(), extra={"skipped": {"unreadable": 1}})
    again = RunResult.from_json(result.to_json())
    assert again.to_json()["skipped"] == {"unreadable": 1}


def test_learn_show_of_an_unreadable_sessions_id_says_it_cannot_be_read(home: Home) -> None:
    path = lost(home)
    for ref in (LOST_ID, LOST_ID[:8]):
        code, out = invoke("show", ref)
        assert code == 1
        assert "no session matches" not in out
        assert f"cannot read {path}: No such file or directory" in out


@pytest.mark.skipif(ROOT, reason="root reads a chmod 000 file")
def test_learn_show_of_a_session_it_may_not_read_says_permission_denied(home: Home) -> None:
    path = locked(home)
    code, out = invoke("show", LOST_ID[:8])
    assert code == 1 and f"cannot read {path}: Permission denied" in out


def test_learn_show_of_an_id_nothing_has_still_says_nothing_matches(home: Home) -> None:
    lost(home)
    code, out = invoke("show", "feedface")
    assert code == 2 and "no session matches 'feedface'" in out  # a usage error


def test_a_gemini_subagent_file_is_not_called_a_codex_rollout(tmp_path: Path) -> None:
    fidelity.install("81-gemini-jsonl-era", tmp_path)  # tmp_path/home: conftest's HOME
    code, out = invoke("sessions", "--all-projects")
    assert code == 0, out
    assert "Skipped: 1 Gemini CLI subagent files (attached to their session)" in out
    assert "Codex" not in out


def test_skipped_subagents_are_named_by_their_client_or_neutrally() -> None:
    def sub(provider: str) -> SkippedFile:
        return SkippedFile(Path("x.jsonl"), "subagent", provider)  # type: ignore[arg-type]

    assert skipped_note({"subagent": 1}, [sub("codex")]) == \
        "1 Codex subagent rollouts (attached to their session)"
    assert skipped_note({"subagent": 2}, [sub("codex"), sub("gemini")]) == \
        "2 Codex and Gemini CLI subagent files (attached to their session)"
    assert skipped_note({"subagent": 1}) == "1 subagent files (attached to their session)"
    assert skipped_note({"too_old": 0}) == ""


def test_learn_plan_counts_an_unreadable_file_once_and_the_same_everywhere(home: Home) -> None:
    path = lost(home)
    code, out = invoke("plan")
    assert code == 0, out
    skipped = next(line for line in out.splitlines() if line.startswith("Skipped: "))
    assert "1 unreadable" in skipped
    counted = next(line for line in out.splitlines() if " to mine, " in line)
    assert counted.endswith(", 1 unreadable"), counted
    assert "0.0 MB" not in out
    code, out = invoke("plan", "--json")
    assert code == 0, out
    assert json.loads(out)["unreadable"] == [str(path)]


def test_a_small_transcript_is_said_in_kb_not_as_zero_mb() -> None:
    assert amount(37_069) == "36.2 KB"
    assert amount(2_516_583) == "2.4 MB"
    assert amount(512) == "512 bytes"


def test_the_demo_says_its_planted_fallback_was_planted(tmp_path: Path) -> None:
    code, out = invoke("demo", "--keep", str(tmp_path / "demo"))
    assert code == 0, out
    failed = out.split("## What failed")[1].split("\n## ")[0]
    assert "items unlabelled; they fell back (planted: the bundled demo's recorded answers" in failed


def test_only_the_planted_kind_of_failure_is_said_to_be_planted() -> None:
    planted = "name: directive batch 0: 1 of 1 items unlabelled; they fell back"
    cut = "name: directive batch 1: 2 of 3 items unlabelled (answer truncated); they fell back"
    other = "mine: session abc: the model answered 500"
    said = planted_said((planted, cut, other), planted_naming=True)
    assert said[0].startswith(planted + " (planted: ") and said[1:] == (cut, other)
    # A corpus whose namer omits nothing plants nothing.
    assert planted_said((planted,), planted_naming=False) == (planted,)
