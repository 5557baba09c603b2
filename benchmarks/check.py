"""What learn's hooks cost the agent: the check before each shell command, the
InstructionsLoaded record for each instruction file loaded.

    .venv/bin/python benchmarks/check.py [--repeat 15]

Runs exactly the commands the agent runs, as child processes with their hook input
on stdin: `python -m learn.guard --rules FILE` (the command line `learn check add`
writes into settings.local.json) on a command that an enforced rule stops and on
one that breaks none, with 20 rules in the data file; and `learn hook
instructions-loaded` (the plugin's hook). The baseline, measured in the same
rounds, is `python -c pass` with the same interpreter: a Python start, which no
hook written in Python can go below. CPU time of the child (user + system), best
of N interleaved rounds (benchmarks/timing.py says why on a shared machine).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from learn.guard.rules import CheckRule, RuleSet  # noqa: E402


def child_cpu(argv: list[str], stdin: bytes, env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str]) -> int:
    repeat = int(argv[argv.index("--repeat") + 1]) if "--repeat" in argv else 15
    with tempfile.TemporaryDirectory(prefix="learn-bench-check-") as tmp:
        base = Path(tmp)
        env = {**os.environ, "LEARN_DATA_DIR": str(base / "data"), "HOME": str(base)}
        rules = base / "rules.json"
        many = [CheckRule(id=f"rule-{i}", program="git" if i % 2 else "npm",
                          subcommand=f"sub{i}", flags=("--force", "-f"),
                          reason=f"words of rule {i}", mode="enforce") for i in range(19)]
        many.append(CheckRule(id="no-force-push", program="git", subcommand="push",
                              flags=("--force", "-f"), arguments=("+*",),
                              reason="Never force push.", mode="enforce"))
        rules.write_text(RuleSet(None, tuple(many)).dumps())

        def event(command: str) -> bytes:
            return json.dumps({"session_id": "bench", "cwd": tmp, "tool_name": "Bash",
                               "hook_event_name": "PreToolUse",
                               "tool_input": {"command": command}}).encode()

        loaded = json.dumps({"session_id": "bench", "hook_event_name": "InstructionsLoaded",
                             "file_path": f"{tmp}/CLAUDE.md", "load_reason": "session_start",
                             "memory_type": "Project", "cwd": tmp}).encode()
        guard = [sys.executable, "-m", "learn.guard", "--rules", str(rules)]
        learn = [sys.executable, "-m", "learn"]
        rows = {
            "python -c pass (baseline)": ([sys.executable, "-c", "pass"], b""),
            "check: stops `cd app && git push -f`": (guard, event("cd app && git push -f")),
            "check: lets a long line run": (guard, event(
                "FOO=1 npm ci && npm run build 2>&1 | tee build.log; "
                "bash -c 'git status && git log --oneline -5' && echo \"$(date)\"")),
            "learn hook instructions-loaded": ([*learn, "hook", "instructions-loaded"], loaded),
            "learn --help (click, for scale)": ([*learn, "--help"], b""),
        }
        best: dict[str, float] = {}
        for _ in range(max(1, repeat)):
            for name, (args, stdin) in rows.items():
                secs = child_cpu(args, stdin, env)
                best[name] = min(best.get(name, secs), secs)
    baseline = best["python -c pass (baseline)"]
    print(f"CPU per call, best of {repeat} interleaved rounds (python {sys.version.split()[0]})")
    for name, secs in best.items():
        print(f"  {name:42s} {secs * 1000:7.1f} ms  {secs / baseline:5.2f}x baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
