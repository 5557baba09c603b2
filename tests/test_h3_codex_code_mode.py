"""Codex code mode, past the literal command (learn.transcripts.codex.code_mode).

Rollouts of 0.144-0.171 run their tools from a script (`custom_tool_call` named `exec`):
a command named through a variable (`const cmd = "..."; tools.exec_command({cmd})`), a
patch applied with `tools.apply_patch(...)`, and a call the person declined or a rule
refused, reported only as the script's `Script error:`. None of them was read: no
command ran, no file was edited, a decline was a failure. What cannot be known from the
script (a command worked out when it runs) is not guessed. Fixtures written for this
test, in the shapes of those rollouts.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from learn.mining.verify import session_commands
from learn.reduce.pathscope import files_of_calls
from learn.transcripts.codex.code_mode import code_mode_call, script_refusal
from learn.transcripts.parser import parse_buffer
from learn.transcripts.view.model import Session
from learn.transcripts.view.session import build_session

SID = "019c3d4e-5f60-7a81-9b2c-3d4e5f6a7b8c"
FAILED = "Script failed\nWall time 0.0 seconds\nOutput:\n"
DONE = "Script completed\nWall time 0.4 seconds\nOutput:\n"


def _line(second: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": f"2026-11-25T10:00:{second:02d}.000Z", "type": kind, "payload": payload}


def _session(*calls: tuple[str, str, list[str]]) -> Session:
    """A 0.16x rollout whose turn runs each (call id, script, output texts) in turn."""
    lines = [
        _line(0, "session_meta", {"id": SID, "cwd": "/srv/ferry", "originator": "codex-tui",
                                  "cli_version": "0.165.0", "source": "cli"}),
        _line(1, "turn_context", {"turn_id": "t1", "model": "gpt-x", "cwd": "/srv/ferry"}),
        _line(2, "event_msg", {"type": "user_message", "message": "make the ferry timetable load"}),
    ]
    for n, (call_id, script, texts) in enumerate(calls):
        lines.append(_line(3 + 2 * n, "response_item", {
            "type": "custom_tool_call", "call_id": call_id, "name": "exec", "status": "completed",
            "input": script}))
        lines.append(_line(4 + 2 * n, "response_item", {
            "type": "custom_tool_call_output", "call_id": call_id,
            "output": [{"type": "input_text", "text": t} for t in texts]}))
    buf = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    path = Path(f"/h/.codex/sessions/2026/11/25/rollout-2026-11-25T10-00-00-{SID}.jsonl")
    return build_session(parse_buffer(buf, path=path))


PATCH = "*** Begin Patch\n*** Update File: src/timetable.py\n@@\n-ROWS = 10\n+ROWS = 50\n*** End Patch"


def test_a_command_named_through_a_variable_bound_once_is_the_command_run() -> None:
    session = _session(
        ("c1", 'const cmd = "pytest -q tests/timetable";\n'
               'const r = await tools.exec_command({cmd, workdir: "/srv/ferry"});\ntext(r.output);',
         [DONE, "4 passed"]),
        ("c2", "let check = 'ruff check src'\nconst r = await tools.exec_command({cmd: check})\n"
               "text(JSON.stringify(r))",
         [DONE + '{"exit_code":1,"output":"E501"}']),
    )
    assert [c.summary for c in session.tool_calls] == ["pytest -q tests/timetable", "ruff check src"]
    assert session.tool_calls[0].input["workdir"] == "/srv/ferry"
    assert [f.tool_use_id for f in session.failures] == ["c2"]
    assert "ruff check src" in session_commands(session, failed=True)


def test_a_command_worked_out_when_the_script_runs_is_not_guessed() -> None:
    helper = ('async function sh(cmd) { return tools.exec_command({cmd, yield_time_ms: 1000}); }\n'
              'text((await sh("make deploy")).output);')
    interpolated = "const r = await tools.exec_command({cmd: `cat ${file}`}); text(r.output);"
    reassigned = 'let c = "git status"; c += " --short"; await tools.exec_command({cmd: c});'
    looped = 'for (const c of ["make a", "make b"]) await tools.exec_command({cmd: c});'
    shadowed = ('const cmd = "make test";\n'
                'const run = ({cmd}) => tools.exec_command({cmd});\nawait run({cmd: "make lint"});')
    for script in (helper, interpolated, reassigned, looped, shadowed):
        assert code_mode_call("exec", script) is None, script
    session = _session(("c1", helper, [DONE, "deployed"]),
                       ("c2", 'await tools.exec_command({cmd: "git fetch"});\n' + looped,
                        [DONE]))
    # Read as the script it is, no command in it: nothing ran that learn could name...
    first, second = session.tool_calls
    assert first.name == "exec" and "cmd" not in first.input
    assert first.summary.startswith("input=async function sh(cmd)")
    assert "make deploy" not in session_commands(session)
    # ...and the commands that are known exactly are kept beside the ones that are not.
    assert second.input["cmd"] == "git fetch"


def test_a_patch_applied_from_a_script_is_a_patch_applied() -> None:
    session = _session(
        ("c1", f"const r = await tools.apply_patch({json.dumps(PATCH)}); text(r);",
         [DONE, "Success. Updated the following files:\nM src/timetable.py"]),
        ("c2", "const patch = `*** Begin Patch\n*** Add File: src/stops.py\n+STOPS = []\n"
               "*** End Patch`;\nawait tools.apply_patch({input: patch});\n"
               "const t = await tools.exec_command({cmd: \"pytest -q\"}); text(t.output);",
         [DONE, "5 passed"]),
    )
    first, second = session.tool_calls
    assert (first.name, first.input) == ("apply_patch", {"input": PATCH})
    assert second.name == "apply_patch" and second.input["cmd"] == "pytest -q"
    assert files_of_calls((c.name, c.input, c.summary) for c in session.tool_calls) == [
        "src/timetable.py", "src/stops.py"]


def test_a_patch_whose_text_names_a_command_runs_none() -> None:
    patch = ("*** Begin Patch\n*** Add File: tools/run.js\n"
             '+await tools.exec_command({cmd: "rm -rf build"});\n*** End Patch')
    read = code_mode_call("exec", f"await tools.apply_patch({json.dumps(patch)});")
    assert read == {"input": patch}
    assert code_mode_call("exec", '// tools.exec_command({cmd: "make clean"})\n'
                                  'const ok = /"x/.test(s); await tools.exec_command({cmd: "ls"});'
                          ) == {"cmd": "ls", "input": '// tools.exec_command({cmd: "make clean"})\n'
                                'const ok = /"x/.test(s); await tools.exec_command({cmd: "ls"});'}


def _nested(reason: str, shown: str = ' for `/bin/zsh -lc "npm run seed"`') -> str:
    """The exec runtime's error for a refused command, the reason Rust-escaped twice."""
    inner = reason.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    outer = f'Rejected("{inner}")'.replace("\\", "\\\\").replace('"', '\\"')
    return f'Script error:\nexec_command failed{shown}: CreateProcess {{ message: "{outer}" }}'


def test_a_call_declined_or_refused_inside_a_script_is_a_denial() -> None:
    run = 'await tools.exec_command({cmd: "npm run seed"});'
    patch = f"await tools.apply_patch({json.dumps(PATCH)});"
    session = _session(
        ("d1", run, [FAILED, _nested("rejected by user")]),
        ("d2", run, [FAILED + "\n" + _nested("rejected by user", shown="")]),
        ("d3", patch, [FAILED, "Script error:\npatch rejected by user"]),
        ("r1", patch, [FAILED, "Script error:\npatch rejected: writing is blocked by read-only "
                               "sandbox; rejected by user approval settings"]),
        ("r2", run, [FAILED, _nested("`rm -f x` rejected: rm -f style commands are not permitted")]),
        ("r3", run, [FAILED, _nested("This action was rejected due to unacceptable risk.\n"
                                     "Reason: it uploads credentials")]),
        ("f1", run, [FAILED, 'Script error:\nexec_command failed for `npm`: '
                             'CreateProcess { message: "Rejected" }']),
        ("f2", run, [FAILED, _nested("approval request failed")]),
        ("f3", run, [DONE, "seeded", _nested("rejected by user")[len("Script error:\n"):]]),
    )
    kinds = {d.tool_use_id: d.kind for d in session.denials}
    assert kinds == {"d1": "user-rejected", "d2": "user-rejected", "d3": "user-rejected",
                     "r1": "permission-rule", "r2": "permission-rule", "r3": "permission-rule"}
    assert all(d.reason is None for d in session.denials)
    # A bare "Rejected" (`codex exec` writes it with no one at a prompt), an approval that
    # failed: failures, no one's denial. A script that went on is no refusal.
    assert {f.tool_use_id for f in session.failures} == {"f1", "f2"}
    assert script_refusal("seeded\nScript error:\nrejected by user") == "rejected by user"
    assert script_refusal("it printed Script error:\npatch rejected by user") is None


def test_a_long_script_is_read_in_one_pass() -> None:
    # A parameter list was looked for from each name after a `,`: a script holding an
    # object of 20,000 keys took seconds per read.
    script = ("const conf = {" + ", ".join(f"k{i}: {i}" for i in range(20_000)) + "};\n"
              'const cmd = "make check"; await tools.exec_command({cmd});')
    started = time.process_time()
    assert code_mode_call("exec", script) == {"cmd": "make check", "input": script}
    assert time.process_time() - started < 1.0
