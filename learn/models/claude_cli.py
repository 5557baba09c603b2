"""The `claude` CLI as a model backend: for users with Claude Code but no API key.

Each call runs the user's own `claude` in print mode with the tool's input
schema as `--json-schema`; the CLI forces a structured answer and reports it
as `structured_output` in its JSON result, which is the tool input. The fixed
prompt replaces Claude Code's system prompt (`--system-prompt`) and the chunk
or item list goes in on stdin, so nothing about the transcript shows up in
`ps` output.

That text is untrusted (tool output, pasted pages, anything an agent read), so
the call gets nothing to act with: no built-in tools but the structured answer
(`--tools ""`), none of the person's hooks (`disableAllHooks`) and no MCP
server (`--strict-mcp-config`), while their login, settings and environment
still apply. Claude Code also acts on the prompt itself before any model sees
it: a prompt that starts with `/` runs a slash command, and an `@path` after
whitespace attaches that file's contents (checked by hand against 2.1.332:
`@/abs/file` in the prompt sent the file to the endpoint even with no tools).
`shield` defuses both with a WORD JOINER (U+2060) that `unshield` takes back
out of the answer, so quotes still match what the person typed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from learn.models.base import CallUsage, ModelError, ModelRequest, ModelResponse
from learn.models.json_text import extract_json_object
from learn.models.ratelimit import RateLimiter, limiter_for
from learn.models.retry import DEFAULT_BUDGET_SECONDS, Outage, RetryPolicy

# No flag takes the binary's path: the one place it is set is the config's
# `[backend] claude_binary` (learn.config), so that is what the hint names.
MISSING_BINARY_HINT = (
    "install Claude Code (https://claude.com/claude-code), or set [backend] claude_binary "
    "in learn's config to where it is, or use --backend anthropic with ANTHROPIC_API_KEY, "
    "or --offline"
)


def missing_binary(binary: str) -> tuple[str, str]:
    """(what is wrong, the fix) when `binary` does not resolve to a runnable `claude`.

    A bare name is looked up on PATH; a path (from `[backend] claude_binary`) is used as
    it is, so "not found on PATH" would be false for it: say what the path is instead."""
    if os.sep not in binary and (os.altsep is None or os.altsep not in binary):
        return f"claude-cli: `{binary}` not found on PATH", MISSING_BINARY_HINT
    what = "is not an executable file" if os.path.exists(binary) else "does not exist"
    return (f"claude-cli: `{binary}` ([backend] claude_binary) {what}",
            "set [backend] claude_binary in learn's config to the path of your `claude`, or "
            "remove it to use the `claude` on PATH; or use --backend anthropic with "
            "ANTHROPIC_API_KEY, or --offline")

# A print-mode call starts a Node process and may retry its structured output
# internally; five minutes covers a slow large chunk without hanging a run.
# While `claude` is hanging (a call timed out and none has finished since), a
# call waits at most what is left of the backend's retry budget, as an HTTP
# backend's request does (learn.models.retry.RetryPolicy.attempt_timeout): every
# call waiting its whole five minutes made a run of 40 hung sessions take
# 40 x 300 s / 4 workers = 50 minutes, three times that with three chunks each.
DEFAULT_TIMEOUT = 300.0

# Set by Claude Code in its children. Since 2.1.39 a `claude` that sees
# CLAUDECODE refuses to start ("cannot be launched inside another Claude Code
# session"), and `/learn` runs us from inside Claude Code's Bash tool. Our
# child is a one-shot print-mode call, not a nested interactive session.
_INHERITED_SESSION_VARS = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")

# Context Claude Code would add to every call from the person's disk: their
# ~/.claude/CLAUDE.md and memory files, and any file an `@path` in the
# transcript names (2.1.332 sent both to the endpoint; these switches stop it).
# A `claude` that does not know a switch ignores it; `shield` still covers
# `@path` there. Extended thinking is off too: 2.1.332 asked for a 31,999-token
# thinking budget on every call, which the API backend never pays for and a
# structured report of quotes does not need.
_QUIET_CONTEXT = {
    "CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",
    "CLAUDE_CODE_DISABLE_FILE_MENTIONS": "1",
    "CLAUDE_CODE_DISABLE_THINKING": "1",
    # No telemetry, error reports or update checks from a one-shot call learn
    # makes (README: nothing leaves the machine but the model request).
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}

# What every call runs without: built-in tools (the structured answer is not
# one of them and stays), the person's hooks, MCP servers. `disableAllHooks`
# cannot switch off hooks an organisation's managed settings impose.
ISOLATION_ARGS: tuple[str, ...] = (
    "--tools",
    "",
    "--settings",
    '{"disableAllHooks":true}',
    "--strict-mcp-config",
)

# Flags a `claude` must list in `--help` for learn to run it safely; an older
# one would reject them, or worse run with the full tool set.
REQUIRED_FLAGS: tuple[str, ...] = (
    "--tools",
    "--settings",
    "--strict-mcp-config",
    "--no-session-persistence",
    "--json-schema",
    "--system-prompt",
)

ON_WINDOWS: Final = os.name == "nt"

# A help or version probe is a local Node/native start, well under a second;
# the bound only keeps a wedged binary from hanging `learn doctor`.
PROBE_TIMEOUT = 30.0

_JOINER = "\u2060"
_MENTION = re.compile(r"(?<!\S)@(?=\S)")
_VERSION = re.compile(r"\d+\.\d+\.\d+")


@dataclass(frozen=True, slots=True)
class PrintOutcome:
    """The fields of a print-mode result this backend needs."""

    is_error: bool
    structured_output: Mapping[str, Any] | None
    result: str | None
    total_cost_usd: float
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    model: str | None
    subtype: str | None
    errors: tuple[str, ...]


def build_command(binary: str, request: ModelRequest) -> list[str]:
    """argv for one call (the user message goes on stdin, not here)."""
    return [
        binary,
        "-p",
        "--output-format",
        "json",
        # Without this every call writes a new transcript into
        # ~/.claude/projects, and the next `learn` run would mine our own
        # mining prompts as if the user had typed them.
        "--no-session-persistence",
        "--model",
        request.model,
        "--system-prompt",
        request.system,
        "--json-schema",
        json.dumps(dict(request.tool.input_schema), separators=(",", ":")),
        *ISOLATION_ARGS,
    ]


def shield(text: str) -> str:
    """`text` with nothing Claude Code would act on: no leading `/`, no `@path` mention."""
    text = _MENTION.sub("@" + _JOINER, text)
    return _JOINER + text if text.startswith("/") else text


def unshield(value: Any) -> Any:
    """Take `shield`'s joiners back out of every string in an answer."""
    if isinstance(value, str):
        return value.replace(_JOINER, "")
    if isinstance(value, Mapping):
        return {k: unshield(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unshield(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class CliSupport:
    """What `claude --version` and `claude --help` say about an installed binary."""

    path: str
    version: str | None
    missing: tuple[str, ...]

    @property
    def shim(self) -> bool:
        """npm's `claude.cmd` (or a .bat) on Windows: CreateProcess runs it through cmd.exe,
        which ends the command line at the first line break (the system prompt's first
        line, 221 of the 4,210 characters of a mining call: the schema and the no-tools,
        no-hooks flags after it never reached Claude Code) and reads `%` and quotes its
        own way. Claude Code's native install is a `claude.exe`, which gets the argv whole."""
        return ON_WINDOWS and self.path.lower().endswith((".cmd", ".bat"))

    @property
    def ok(self) -> bool:
        return not self.missing and not self.shim

    def why_not(self) -> str:
        """One line for a `claude` learn cannot run as it must (too old, or a cmd shim)."""
        if self.shim:
            return (
                f"claude-cli: {self.path} is a Windows command script, which cmd.exe would cut "
                "at the first line break of learn's prompt (and run without its no-tools "
                "flags); install the native Claude Code (claude.exe: "
                "https://claude.com/claude-code) and set [backend] claude_binary to it, or use "
                "--backend anthropic with ANTHROPIC_API_KEY"
            )
        which = f"Claude Code {self.version}" if self.version else "this Claude Code"
        return (
            f"claude-cli: {which} at {self.path} is too old: it has no "
            f"{', '.join(self.missing)}, which learn needs to run it with no tools, hooks or MCP "
            "servers; update it (`claude update`, or npm install -g @anthropic-ai/claude-code)"
        )


def missing_flags(help_text: str) -> tuple[str, ...]:
    """The REQUIRED_FLAGS that `help_text` does not list."""
    return tuple(
        flag for flag in REQUIRED_FLAGS
        if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", help_text)
    )


def _run_probe(path: str, arg: str) -> str:
    try:
        proc = subprocess.run(
            [path, arg], capture_output=True, timeout=PROBE_TIMEOUT, env=child_env(),
            stdin=subprocess.DEVNULL, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (proc.stdout + proc.stderr).decode("utf-8", "replace")


@lru_cache(maxsize=8)
def _probe_cached(path: str, stamp: tuple[int, int]) -> CliSupport:
    version = _VERSION.search(_run_probe(path, "--version"))
    return CliSupport(path, version.group(0) if version else None, missing_flags(_run_probe(path, "--help")))


def probe(path: str) -> CliSupport:
    """Ask the binary at `path` what it supports (cached until the file changes)."""
    try:
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = (0, 0)
    return _probe_cached(path, stamp)


def child_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The person's environment (login, proxy, endpoint) minus the nested-session
    markers, plus the switches that keep their files out of the call."""
    env = dict(os.environ if base is None else base)
    for name in _INHERITED_SESSION_VARS:
        env.pop(name, None)
    env.update(_QUIET_CONTEXT)
    return env


def parse_outcome(raw: bytes) -> PrintOutcome:
    """Parse `claude -p --output-format json` stdout; ValueError when it is not a result."""
    from learn.claude_print import (
        as_int,
        as_str,
        print_elements,
        result_cost,
        result_element,
        result_errors,
    )

    result = result_element(print_elements(raw))
    usage = result.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    structured = result.get("structured_output")
    models = result.get("modelUsage")
    output_by_model = {str(name): as_int(counts.get("outputTokens")) if isinstance(counts, Mapping) else 0
                       for name, counts in (models.items() if isinstance(models, Mapping) else ())}
    return PrintOutcome(
        is_error=result.get("is_error") is True,
        structured_output=structured if isinstance(structured, Mapping) else None,
        result=as_str(result.get("result")),
        total_cost_usd=result_cost(result),
        input_tokens=as_int(usage.get("input_tokens")),
        output_tokens=as_int(usage.get("output_tokens")),
        cache_read_tokens=as_int(usage.get("cache_read_input_tokens")),
        cache_write_tokens=as_int(usage.get("cache_creation_input_tokens")),
        # The model that did the work: modelUsage can also list a small model
        # the CLI used on the side, so take the one with the most output.
        model=max(output_by_model, key=lambda m: output_by_model[m], default=None),
        subtype=as_str(result.get("subtype")),
        errors=result_errors(result),
    )


def _first_line(text: str) -> str:
    """The first line of the CLI's words that has any, redacted whole and then cut
    (`error_line`: cut first, a secret across the cut kept the part before it)."""
    from learn.models.base import error_line

    for line in text.splitlines():
        if line.strip():
            return error_line(line, 300)
    return ""


class ClaudeCliBackend:
    """`Backend` that shells out to `claude -p` (the user's Claude Code login pays)."""

    name = "claude-cli"

    def __init__(
        self,
        binary: str = "claude",
        *,
        timeout: float = DEFAULT_TIMEOUT,
        limiter: RateLimiter | None = None,
        extra_args: tuple[str, ...] = (),
        retry_seconds: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.binary = binary
        # The environment each `claude` starts from (`child_env`): this process's at
        # each call when None. `learn eval --live` gives the person's, taken before a
        # corpus's isolated home replaced HOME and CLAUDE_CONFIG_DIR: from that home,
        # `claude` had no login.
        self.env = env
        self.timeout = timeout
        self.extra_args = extra_args
        # No retries here (the CLI retries the API itself): the policy's budget and
        # its Outage bound how long calls wait on a `claude` that hangs.
        self._retry = RetryPolicy(
            budget_seconds=DEFAULT_BUDGET_SECONDS if retry_seconds is None else retry_seconds)
        # No requests/minute here (the CLI retries the API itself); the cap is
        # on concurrent Node processes, a few hundred MB each.
        self._limiter = limiter if limiter is not None else limiter_for("claude-cli")
        # The `claude` processes running now, so that abort() can end them: a
        # process started by a worker thread just after Ctrl-C is not in the
        # terminal's signal, and the run would wait for it (up to `timeout`).
        self._live: set[subprocess.Popen[bytes]] = set()
        self._live_lock = threading.Lock()
        self._aborted = threading.Event()

    def _resolve(self) -> str:
        found = shutil.which(self.binary)
        if found is None:
            detail, hint = missing_binary(self.binary)
            raise ModelError(f"{detail}; {hint}")
        support = probe(found)
        if not support.ok:
            raise ModelError(support.why_not())
        return found

    @property
    def outage(self) -> Outage:
        """Since when calls time out (learn.models.retry.Outage): it shortens the next ones."""
        return self._retry.outage

    def abort(self) -> None:
        """End the calls running now and refuse new ones (the run was interrupted)."""
        self._aborted.set()
        with self._live_lock:
            for proc in self._live:
                proc.kill()

    def _run(self, argv: list[str], stdin: bytes, cwd: str, what: str,
             timeout: float) -> subprocess.CompletedProcess[bytes]:
        """subprocess.run, with the process known to abort() while it runs."""
        with self._live_lock:
            if self._aborted.is_set():
                raise ModelError(f"{what}: not started, the run was interrupted")
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, cwd=cwd, env=child_env(self.env))
            self._live.add(proc)
        try:
            with proc:
                try:
                    out, err = proc.communicate(stdin, timeout=timeout)
                except BaseException:
                    proc.kill()
                    raise
        finally:
            with self._live_lock:
                self._live.discard(proc)
        if self._aborted.is_set():
            raise ModelError(f"{what}: ended, the run was interrupted")
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)

    def call(self, request: ModelRequest) -> ModelResponse:
        binary = self._resolve()
        argv = [*build_command(binary, request), *self.extra_args]
        what = f"claude-cli {request.tool.name}"
        # An empty private working directory: a project's CLAUDE.md would
        # otherwise be loaded into the context of every call made from it.
        with self._limiter.slot(), tempfile.TemporaryDirectory(prefix="learn-claude-") as cwd:
            timeout = self._retry.attempt_timeout(self.timeout)
            started = self.outage.now()
            try:
                proc = self._run(argv, shield(request.user).encode("utf-8"), cwd, what, timeout)
            except subprocess.TimeoutExpired as exc:
                self.outage.failed(started)  # the call's own time counts against the budget
                raise ModelError(f"{what}: timed out after {round(timeout, 1):g}s") from exc
            except OSError as exc:
                raise ModelError(f"{what}: could not run {binary}: {exc}") from exc
        self.outage.answered()  # it ended in time, whatever it said
        stderr = proc.stderr.decode("utf-8", "replace")
        if proc.returncode != 0 and not proc.stdout.strip():
            reason = _first_line(stderr) or "no output"
            raise ModelError(f"{what}: exit {proc.returncode}: {reason}")
        try:
            outcome = parse_outcome(proc.stdout)
        except ValueError as exc:
            reason = _first_line(stderr) or f"unparseable output ({exc})"
            raise ModelError(f"{what}: exit {proc.returncode}: {reason}") from exc
        if proc.returncode != 0 or outcome.is_error:
            from learn.models.base import error_line

            reason = (
                (error_line(outcome.errors[0], 300) if outcome.errors else "")
                or _first_line(outcome.result or "")
                or _first_line(stderr)
                or (outcome.subtype or "error")
            )
            raise ModelError(f"{what}: {outcome.subtype or 'error'}: {reason}")
        tool_input = outcome.structured_output
        if tool_input is None and outcome.result:
            # structured_output can come back null with the JSON in `result`
            # as text (seen with some schemas); take it from there.
            tool_input = extract_json_object(outcome.result)
        if tool_input is None:
            raise ModelError(f"{what}: no structured output and no JSON object in the result text")
        usage = CallUsage(
            outcome.input_tokens,
            outcome.output_tokens,
            outcome.cache_read_tokens,
            outcome.cache_write_tokens,
            outcome.total_cost_usd,
            1,
        )
        return ModelResponse(
            tool_input=unshield(dict(tool_input)),
            model=outcome.model or request.model,
            usage=usage,
            stop_reason="tool_use",
        )
