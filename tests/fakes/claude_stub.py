"""A stand-in `claude` executable for testing the claude-cli backend.

Example::

    from fakes.claude_stub import print_result, write_claude_stub

    stub = write_claude_stub(tmp_path / "bin", stdout=print_result({"candidates": []}))
    monkeypatch.setenv("PATH", f"{stub.path.parent}{os.pathsep}{os.environ['PATH']}")
    ... ClaudeCliBackend().call(request) ...
    assert "--no-session-persistence" in stub.calls()[0]["argv"]

The stub is a Python script (shebang: this interpreter) that appends one JSON
line per invocation to a log (argv, stdin, selected env vars), prints the
configured stdout/stderr, and exits with the configured code. `--version`
and `--help` (the backend's probe for the flags it needs) answer `version` and
`help_text` instead and are not logged; the default help lists every flag.
`auth status` answers as Claude Code 2.1.332 does (JSON with `loggedIn`, exit 1
when logged out; `logged_in=None`: a `claude` without the command) and is not
logged either.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCRIPT = """#!{python}
import json, os, sys, time
config = json.loads({config!r})
if sys.argv[1:] in (["--version"], ["--help"]):
    sys.stdout.write(config["version"] if sys.argv[1] == "--version" else config["help"])
    sys.exit(0)
if sys.argv[1:3] == ["auth", "status"]:
    if config["logged_in"] is None:
        sys.stderr.write("error: unknown command 'auth'\\n")
        sys.exit(1)
    sys.stdout.write(json.dumps({{"loggedIn": config["logged_in"],
                                  "authMethod": "claude.ai" if config["logged_in"] else "none",
                                  "apiProvider": "firstParty"}}, indent=2) + "\\n")
    sys.exit(0 if config["logged_in"] else 1)
data = sys.stdin.read()
with open(config["log"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{
        "argv": sys.argv[1:],
        "stdin": data,
        "cwd": os.getcwd(),
        "env": {{k: os.environ.get(k) for k in ("HOME", "CLAUDE_CONFIG_DIR", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_DISABLE_CLAUDE_MDS",
                                       "CLAUDE_CODE_DISABLE_AUTO_MEMORY", "CLAUDE_CODE_DISABLE_FILE_MENTIONS")}},
    }}) + "\\n")
if config["sleep"]:
    time.sleep(config["sleep"])
sys.stdout.write(config["stdout"])
sys.stderr.write(config["stderr"])
sys.exit(config["exit_code"])
"""


CURRENT_HELP = """Usage: claude [options] [command] [prompt]
  --json-schema <schema>     JSON Schema for structured output
  --no-session-persistence   Don't save sessions to disk
  --settings <file-or-json>  Settings file or JSON string
  --strict-mcp-config        Only use MCP servers from --mcp-config
  --system-prompt <prompt>   System prompt to use for the session
  --tools <tools...>         Built-in tools to make available: "" for none
"""

# A 1.0-era help: print mode and a system prompt, none of the isolation flags.
OLD_HELP = """Usage: claude [options] [command] [prompt]
  -p, --print                Print response and exit
  --output-format <format>   text, json or stream-json
  --system-prompt <prompt>   System prompt to use for the session
  --allowedTools <tools...>  Tools to allow
"""


@dataclass(frozen=True, slots=True)
class ClaudeStub:
    path: Path
    log: Path

    def calls(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]


def print_result(
    structured_output: Mapping[str, Any] | None,
    *,
    result: str = "",
    is_error: bool = False,
    subtype: str = "success",
    total_cost_usd: float = 0.0123,
    usage: Mapping[str, int] | None = None,
    model: str = "claude-haiku-4-5-20251001",
    errors: list[str] | None = None,
) -> str:
    """A `claude -p --output-format json` result object, as the CLI prints it."""
    use = dict(
        usage
        or {
            "input_tokens": 12,
            "output_tokens": 34,
            "cache_read_input_tokens": 5000,
            "cache_creation_input_tokens": 600,
        }
    )
    body: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": 2100,
        "duration_api_ms": 1900,
        "num_turns": 2,
        "result": result,
        "session_id": "00000000-0000-4000-8000-000000000001",
        "total_cost_usd": total_cost_usd,
        "usage": use,
        "modelUsage": {model: {**use, "costUSD": total_cost_usd}},
        "permission_denials": [],
        "uuid": "00000000-0000-4000-8000-000000000002",
    }
    if structured_output is not None:
        body["structured_output"] = dict(structured_output)
    if errors:
        body["errors"] = errors
    return json.dumps(body)


def write_claude_stub(
    directory: Path,
    *,
    stdout: str = "",
    stderr: str = "",
    exit_code: int = 0,
    sleep: float = 0.0,
    name: str = "claude",
    version: str = "2.1.332 (Claude Code)",
    help_text: str = CURRENT_HELP,
    logged_in: bool | None = True,
) -> ClaudeStub:
    """Write an executable `name` into `directory` (created) and return it with its call log."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    log = directory / f"{name}.calls.jsonl"
    config = json.dumps(
        {"log": str(log), "stdout": stdout, "stderr": stderr, "exit_code": exit_code, "sleep": sleep,
         "version": version, "help": help_text, "logged_in": logged_in}
    )
    path.write_text(_SCRIPT.format(python=sys.executable, config=config))
    path.chmod(0o755)
    return ClaudeStub(path, log)
