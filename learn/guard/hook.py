"""learn's check, as a PreToolUse hook: one fixed program, the rules in a data file.

    python -m learn.guard --rules FILE

Claude Code (and Codex, whose hooks take the same input and answer) runs it before
each shell command with the call as JSON on stdin. It reads the rules from FILE
(learn.guard.rules: parsed and validated, never evaluated), takes the command
apart as a shell would (learn.guard.shell), and for each rule the command breaks:
- notes it in FILE's hits log (when, which session, which rule, the rule's own
  words that matched: never the command line itself, which may hold a secret);
- in `enforce` mode, answers `permissionDecision: deny` with the rule's reason,
  the person's words, so the agent reads why and can do it another way.
In `record` mode it lets the command run: the digest then says how often the
check would have stopped the agent, before the person decides to enforce it.

Nothing here depends on what a transcript said: the rules arrive as data at run
time. It never blocks on error: bad input, a missing or broken data file, an
unwritable log all end in exit 0 with nothing on stdout (the command runs), and a
line in `<data dir>/checks/check.log` says why.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime
from typing import Any

from learn.guard.rules import BadRules, Hit, hits_path, load_rules, rule_words
from learn.hook_input import hook_object, read_stdin

SHELL_TOOLS = frozenset({"Bash", "shell", "exec_command", "local_shell", "container.exec"})


def command_of(event: dict[str, Any]) -> str | None:
    """The shell command a PreToolUse input is about; None for other tools."""
    if event.get("tool_name") not in SHELL_TOOLS:
        return None
    args = event.get("tool_input")
    if not isinstance(args, dict):
        return None
    cmd = args.get("command", args.get("cmd"))
    if isinstance(cmd, list) and all(isinstance(x, str) for x in cmd):
        import shlex

        return shlex.join(cmd)
    return cmd if isinstance(cmd, str) else None


def _within(path: str, root: str) -> bool:
    p, r = os.path.normcase(path.rstrip("/")), os.path.normcase(root.rstrip("/"))
    return p == r or p.startswith(r + os.sep)


def in_project(cwd: str, project: str) -> bool:
    """Whether a session run in `cwd` is one of `project`'s: in its folder, or in any
    checkout of its repository. The rules file names the main checkout (its key,
    learn.projects), but Claude Code runs a session in the checkout it was started
    in, and learn writes the hook into a worktree too (learn.report.check_install):
    a sibling worktree (`shop-fix` beside `shop`) was never inside `project`, and
    the check stopped nothing there (audit 2, r1). The string test answers for a
    session in the project's own folder; only when it fails is the disk read, the
    way learn.projects decides a project (the key, symlinks resolved and case folded
    where the disk folds it; then the checkout's repository), standard library only."""
    if _within(cwd, project):
        return True
    from learn.projects.checkout import checkout_on_disk
    from learn.projects.flavour import home_key, is_path, key_within, path_key

    if not (is_path(cwd) and is_path(project)):
        return False
    key = path_key(cwd)
    if key_within(key, project):  # a symlinked or case-folded spelling of the folder
        return True
    found = checkout_on_disk(key, home_key())
    # A dangling worktree (its repository moved) says only what its name says: no
    # `git push` runs there, and no rule is decided on a guess.
    return found is not None and not found.dangling and found.project == project


def decide(event: dict[str, Any], rules_file: str) -> tuple[list[Hit], dict[str, Any] | None]:
    """(the rules the call breaks, the answer to print: None lets it run)."""
    line = command_of(event)
    if line is None:
        return [], None
    ruleset = load_rules(rules_file)
    cwd = event.get("cwd")
    if ruleset.project and isinstance(cwd, str) and not in_project(cwd, ruleset.project):
        return [], None  # another project's session (a user-level Codex hook sees all)
    from learn.guard.rules import check_line

    hits = check_line(line, ruleset.rules)
    stop = [h for h in hits if h.rule.mode == "enforce"]
    if not stop:
        return hits, None
    reason = "\n".join(f"{h.rule.reason} (learn check `{h.rule.id}`: `{h.words}` is what this "
                       "rule forbids; do it another way, or ask the person to run it)"
                       for h in stop)
    return hits, {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                         "permissionDecision": "deny",
                                         "permissionDecisionReason": reason}}


def note(rules_file: str, event: dict[str, Any], hits: list[Hit], agent: str) -> None:
    """One line per hit in the hits log (0600), appended."""
    if not hits:
        return
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    sid = event.get("session_id")
    lines = "".join(json.dumps({"at": stamp, "session": sid if isinstance(sid, str) else None,
                                "rule": h.rule.id, "mode": h.rule.mode,
                                "stopped": h.rule.mode == "enforce",
                                # The rule's own words, not the command line's (rule_words;
                                # the deny reason keeps those: the agent wrote them).
                                "words": rule_words(h.rule, h.words),
                                "agent": agent}) + "\n" for h in hits)
    fd = _append_private(hits_path(rules_file))
    try:
        os.write(fd, lines.encode("utf-8"))
    finally:
        os.close(fd)


def _append_private(path: str) -> int:
    """learn.paths.open_private_append's rule in `os` alone (the check imports nothing of
    learn beyond learn.guard and no pathlib: benchmarks/check.py): opened to append, 0600
    even when it was there before with a wider mode."""
    # learn.osflags' flags and set_mode, spelled here: Windows has no fchmod before
    # Python 3.13, and its fds are text mode without O_BINARY.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0),
                 0o600)
    try:
        fchmod = getattr(os, "fchmod", None)
        if fchmod is not None:
            fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd


def _log(rules_file: str, message: str) -> None:
    try:
        log = os.path.join(os.path.dirname(rules_file), "check.log")
        fd = _append_private(log)
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        os.write(fd, f"{stamp} [{os.getpid()}] {message}\n".encode())
        os.close(fd)
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    rules_file: str | None = None
    agent = "claude"
    while args:
        flag = args.pop(0)
        if flag == "--rules" and args:
            rules_file = args.pop(0)
        elif flag == "--agent" and args:
            agent = args.pop(0)
    if rules_file is None:
        print("usage: python -m learn.guard --rules FILE [--agent claude|codex]", file=sys.stderr)
        return 0  # a hook that cannot run lets the call through
    try:
        event = hook_object(read_stdin(sys.stdin.buffer, timeout=2.0))
        hits, answer = decide(event, rules_file)
    except (BadRules, ValueError, OSError) as exc:
        _log(rules_file, f"{type(exc).__name__}: {exc}")
        return 0
    # The answer first: noting the hits writes files, and a failure there (an unwritable
    # log; on Windows before Python 3.13, os.fchmod missing) once exited 1 with no
    # answer, which the agent reads as "go ahead": the command the rule stops ran.
    if answer is not None:
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    try:
        note(rules_file, event, hits, agent)
    except Exception as exc:  # a note that fails must not change the answer
        _log(rules_file, f"hits not noted: {type(exc).__name__}: {exc}")
    return 0
