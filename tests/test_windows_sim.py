"""learn as native Windows Python 3.11/3.12 runs it, simulated on this machine.

No Windows machine runs these tests, so a subprocess is made to look like one before
learn is imported (tests/_windows_sim.py, `run_simulated`): the `os` names Windows lacks are gone (O_NONBLOCK,
O_NOFOLLOW, O_CLOEXEC, fork, fchmod before 3.13, ...), and an fd `os.open` made
without O_BINARY is in the C runtime's text mode, as Python documents for Windows: a
read turns CRLF into LF and ends at a Ctrl-Z byte, a write turns LF into CRLF (only
through `os.read`/`os.write`: a file object on such an fd reads in C, past the
simulation). Before learn.osflags every command that reads sessions failed at import
(O_NONBLOCK), every write failed (fchmod), the check hook exited 1 without its deny,
and `learn apply` rewrote an LF CLAUDE.md's line endings and cut a file at a Ctrl-Z,
its backup too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _windows_sim import record_bun_script, run_simulated


def test_the_simulation_is_windows_enough_to_fail_without_binary(tmp_path: Path) -> None:
    # The simulation itself: an fd opened without O_BINARY reads CRLF as LF and stops at
    # a Ctrl-Z; with it, the bytes as they are. (Else the tests below prove nothing.)
    sample = tmp_path / "s.md"
    sample.write_bytes(b"a\r\nb\x1ac\n")
    done = run_simulated(tmp_path, f'''
fd = os.open({str(sample)!r}, os.O_RDONLY); text = os.read(fd, 100); os.close(fd)
fd = os.open({str(sample)!r}, os.O_RDONLY | os.O_BINARY); raw = os.read(fd, 100); os.close(fd)
print(repr(text), repr(raw), hasattr(os, "fchmod"), hasattr(os, "O_NONBLOCK"))
''')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["b'a\\nb'", "b'a\\r\\nb\\x1ac\\n'", "False", "False"]


def test_sessions_lists_on_windows(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    folder = tmp_path / "home" / ".claude" / "projects" / "-shop"
    folder.mkdir(parents=True)
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s1",
         "timestamp": "2026-03-01T10:00:00Z", "cwd": str(project),
         "message": {"role": "user", "content": "please keep the tests beside the code"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s1",
         "timestamp": "2026-03-01T10:00:05Z", "cwd": str(project),
         "message": {"role": "assistant", "model": "m", "content": [{"type": "text", "text": "ok"}]}},
    ]
    (folder / "s1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    done = run_simulated(tmp_path, '''
sys.argv = ["learn", "sessions", "--all-projects", "--json"]
from learn.entry import main
main()
''')
    assert done.returncode == 0, done.stderr[-3000:]
    [row] = json.loads(done.stdout)["sessions"]
    assert row["id"] == "s1" and row["human_turns"] == 1


CASES = {
    "lf": b"# Shop\n\n- Keep PRs small.\n",
    "crlf-bom": b"\xef\xbb\xbf# Shop\r\n\r\n- Keep PRs small.\r\n",
    "ctrl-z": b"# Shop\n\nA pasted \x1a byte, then more.\n- Keep PRs small.\n",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_apply_and_undo_keep_the_persons_bytes_on_windows(case: str, tmp_path: Path) -> None:
    original = CASES[case]
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    claude = project / "CLAUDE.md"
    claude.write_bytes(original)
    done = run_simulated(tmp_path, record_bun_script(tmp_path, project) + '''
from click.testing import CliRunner
from learn.commands.apply import command

res = CliRunner().invoke(command, ["--project", project, "--yes"])
assert res.exit_code == 0 and res.exception is None, (res.output, res.exception)
print(repr(Path(project, "CLAUDE.md").read_bytes()))
res = CliRunner().invoke(command, ["--project", project, "--undo", "--yes"])
assert res.exit_code == 0 and res.exception is None, (res.output, res.exception)
''')
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    applied = eval(done.stdout.strip().splitlines()[-1])  # a bytes repr this test printed
    assert applied.startswith(original)  # the person's text and line endings as they were
    assert b"Use bun, not npm." in applied[len(original):]
    assert claude.read_bytes() == original  # undo puts back every byte


def test_the_check_answers_before_it_notes_the_hit(tmp_path: Path) -> None:
    # Windows before 3.13 has no fchmod: noting the hit once raised AttributeError before
    # the deny was written, and the hook exited 1: the agent ran the command.
    from learn.guard.rules import CheckRule, RuleSet

    rule = CheckRule(id="no-force-push", program="git", subcommand="push",
                     flags=("--force", "-f"), arguments=("+*",),
                     reason="Never force push; ask me first.", mode="enforce")
    rules = tmp_path / "r.json"
    rules.write_text(RuleSet(None, (rule,)).dumps())
    event = {"hook_event_name": "PreToolUse", "cwd": str(tmp_path), "tool_name": "Bash",
             "tool_input": {"command": "git push -f"}}
    done = run_simulated(tmp_path, f'''
sys.argv = ["learn.guard", "--rules", {str(rules)!r}]
from learn.guard.hook import main
sys.exit(main())
''', stdin=json.dumps(event))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert (tmp_path / "r.hits.jsonl").is_file()  # and the hit was noted after all


def test_no_file_learn_names_is_a_windows_device() -> None:
    # `aux.md` cannot be made on Windows, and a repository holding one cannot be checked
    # out there by a teammate: a label "aux" or "con" gets `my-` before it.
    from learn.report.targets import command_name, slug

    for device in ("aux", "CON", "nul", "com1", "lpt9", "prn"):
        assert slug(device) == f"my-{device.lower()}"
    assert command_name("nul") == "my-nul"
    assert slug("auxiliary build") == "auxiliary-build" and slug("console") == "console"


def test_doctor_says_nothing_of_modes_windows_does_not_keep(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Windows reports every folder 0777 and file 0666, whoever may read them: a warning
    # with a chmod to fix it could never go away there.
    import types

    from learn import doctor

    folder = tmp_path / "data"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    assert doctor._open_to_others(folder)
    monkeypatch.setattr(doctor, "os", types.SimpleNamespace(name="nt"))
    assert not doctor._open_to_others(folder)
