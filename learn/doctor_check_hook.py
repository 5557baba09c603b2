"""Doctor's line on learn's check hook in shell form on Windows: a check that never runs.

learn writes its check (learn.guard, a PreToolUse hook in a project's
`.claude/settings.local.json`) in exec form on Windows (learn.invocation), and a
re-install turns a shell line an earlier learn wrote into it (learn.report.check_install).
Doctor warned of the SessionEnd and InstructionsLoaded hooks in shell form there
(learn.hook.health) and said nothing of the check's: without Git Bash Claude Code runs a
shell line with PowerShell, which cannot run learn's, so an enforced rule stopped
nothing and nothing said so. The check hooks are found where learn installed them: the
install record of each project (`<data dir>/checks/*.install.json`) names the settings
files; only a hook of a form learn itself wrote there counts (a person's own is theirs).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from learn import invocation
from learn.check import Check
from learn.guard.files import checks_dir
from learn.guard.rules import BadRules, load_rules
from learn.invocation import has_fields

_RECORD_SUFFIX = ".install.json"


class ShellFormHook(NamedTuple):
    settings: Path  # the settings file holding learn's check hook as a shell line
    rules: Path  # the project's check data file it runs with


def check_check_hooks(root: Path | None = None) -> Check | None:
    """A warning when, on Windows (exec_form_hooks), one of learn's check hooks is a
    shell line; None otherwise (nothing to say elsewhere, or none installed)."""
    if not invocation.exec_form_hooks():
        return None
    found = list(shell_form_hooks(root))
    if not found:
        return None
    where = ", ".join(str(h.settings) for h in found)
    fixes = "; ".join(dict.fromkeys(_fix(h) for h in found))
    return Check("check hook", "warn",
                 f"learn's check hook in {where} is a shell line, which Claude Code runs with "
                 "PowerShell where Git Bash is absent, and PowerShell cannot run it: the check "
                 "stops nothing there",
                 f"{fixes} (no shell; Claude Code 2.1.139 or later); the change is shown first")


def shell_form_hooks(root: Path | None = None) -> Iterator[ShellFormHook]:
    """learn's check hooks written as a shell line, in every settings file an install
    record names (read only: a record or settings file that does not parse is skipped)."""
    from learn.report.check_install import hook_forms

    try:
        records = sorted(checks_dir(root).glob(f"*{_RECORD_SUFFIX}"))
    except OSError:
        return
    for record in records:
        data = _json(record)
        targets = data.get("targets") if isinstance(data, dict) else None
        if not isinstance(targets, dict):
            continue
        # The data file beside its record (learn.guard.files: one stem for both).
        rules = record.with_name(record.name.removesuffix(_RECORD_SUFFIX) + ".json")
        shell = [f for f in hook_forms(rules, "claude") if "args" not in f]
        for key, target in sorted(targets.items()):
            if not (key == "claude" or key.startswith("claude@")) or not isinstance(target, dict):
                continue
            path = target.get("path")
            if isinstance(path, str) and any(
                    has_fields(h, f) for h in _pre_tool_use(Path(path)) for f in shell):
                yield ShellFormHook(Path(path), rules)


def _fix(hook: ShellFormHook) -> str:
    """The command that re-installs the check where `hook` is (learn.commands.check): a
    rule set to the mode it has, which changes no rule and rewrites learn's hook."""
    checkout = hook.settings.parent.parent
    try:
        rule = load_rules(hook.rules).rules[0]
    except (BadRules, IndexError):
        return f"`learn check add ... --project \"{checkout}\"` rewrites it in exec form"
    return (f"`learn check {rule.mode} {rule.id} --project \"{checkout}\"` rewrites it in "
            "exec form")


def _pre_tool_use(settings: Path) -> Iterator[dict[str, Any]]:
    """The PreToolUse hooks of a project's settings, read as the check's installer reads
    them: a regular file of bounded size only (one committed as a link to /dev/zero was
    read until MemoryError: learn.report.confine.read_regular)."""
    from learn.report.confine import read_regular
    from learn.report.errors import ConfinementError

    try:
        raw = read_regular(settings)
        data = json.loads(raw) if raw is not None else None
    except (ConfinementError, ValueError):
        return
    hooks = data.get("hooks") if isinstance(data, dict) else None
    groups = hooks.get("PreToolUse") if isinstance(hooks, dict) else None
    for group in groups if isinstance(groups, list) else ():
        inner = group.get("hooks") if isinstance(group, dict) else None
        for hook in inner if isinstance(inner, list) else ():
            if isinstance(hook, dict):
                yield hook


def _json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
