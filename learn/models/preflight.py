"""Can the chosen backend work at all? One cheap check before a run starts, and in doctor.

Without it a missing `claude` ran the whole pipeline and printed the same "not
found" line once per session (19 in the measured home) under "failed after
retries"; an openai endpoint with nothing listening spent 54-92 s behind a
progress bar before the first failure; and with api.anthropic.com unresolvable
`learn run` printed nothing for ten minutes, then took half an hour for 11
sessions, each call retried for its whole budget. `claude` installed but not
logged in (the usual state right after installing it) ran 35 s and ended with
"Not logged in · Please run /login" as a mining failure.

So every backend that calls something is asked once, within PREFLIGHT_SECONDS,
the same question the first call would ask, and a "no" is one line naming the
problem: the binary on PATH and its flags (`claude --version` / `--help`) and
its login (`claude auth status`, local); the key and the endpoint, the default
api.anthropic.com included, with one authenticated `GET /v1/models` (free; it
resolves the host, connects, negotiates TLS and checks the key, which is every
way the first call could fail before the model sees anything); a GET of the
openai server's /models.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from learn.models.network import Proxy, proxy_auth_failure, proxy_auth_fix, proxy_fix, proxy_for

DEFAULT_ANTHROPIC_URL: Final = "https://api.anthropic.com"
# The whole check, DNS included (getaddrinfo has no timeout of its own, so the
# request runs in a thread the check stops waiting for). Long enough for a
# local server busy loading a model to accept a connection, short enough that
# a person is told before they wonder.
PREFLIGHT_SECONDS: Final = 5.0
# Kept for callers that time a bare connection.
CONNECT_TIMEOUT: Final = 3.0
# A connection reset (or closed) before the answer is asked again, this many times in
# all, within PREFLIGHT_SECONDS: one RST on the check ended a run with exit 3 and
# "nothing answers … check ANTHROPIC_BASE_URL", though the host had answered and the
# same reset during mining is retried (the network audit).
PREFLIGHT_ATTEMPTS: Final = 3
PREFLIGHT_PAUSE_SECONDS: Final = 0.3
# The failures worth another attempt: the host is there, the exchange broke.
_TRANSIENT_KINDS: Final = frozenset({"reset", "other"})

# "setup": a key, a binary or a flag is missing (fix the configuration, exit 2);
# "unavailable": the endpoint or the login says no right now (exit 3).
Problem = Literal["", "setup", "unavailable"]

# (url, headers, timeout) -> HTTP status; raises on any transport failure.
Get = Callable[[str, Mapping[str, str], float], int]
# The binary -> its login state: True, False, or None when it cannot say.
LoginCheck = Callable[[str], "LoginState"]


@dataclass(frozen=True, slots=True)
class Readiness:
    ok: bool
    detail: str
    hint: str = ""
    problem: Problem = ""
    # Nothing answered (DNS, a refusal, a timeout, TLS): the network may just not be up
    # yet, unlike an answer that says no (a refused key).
    network: bool = False

    def line(self) -> str:
        """The one line a command stops with."""
        return f"{self.detail}; fix: {self.hint}" if self.hint else self.detail


@dataclass(frozen=True, slots=True)
class LoginState:
    logged_in: bool | None  # None: this `claude` cannot say (no `auth status`)
    method: str = ""  # "claude.ai", "api_key", "oauth_token", ...


def anthropic_base_url(config: Any, env: Mapping[str, str]) -> str | None:
    """The endpoint the anthropic backend calls: ANTHROPIC_BASE_URL, else [backend] base_url."""
    configured = getattr(getattr(config, "backend", None), "base_url", None)
    return env.get("ANTHROPIC_BASE_URL") or configured or None


def check_backend_ready(
    name: str,
    config: Any,
    *,
    env: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] = shutil.which,
    probe: Callable[[str], Any] | None = None,
    get: Get | None = None,
    login: LoginCheck | None = None,
) -> Readiness:
    """Whether backend `name` can take a call now (the hooks are for tests)."""
    env = os.environ if env is None else env
    if name == "anthropic":
        return _anthropic(config, env, get or http_get)
    if name == "claude-cli":
        return _claude_cli(config, which, probe, login or claude_login)
    if name == "openai":
        return _openai(config, env, get or http_get)
    return Readiness(True, f"{name}: nothing to check")


OFFLINE = "or run without a model: learn run --offline"


def _anthropic(config: Any, env: Mapping[str, str], get: Get) -> Readiness:
    key = env.get("ANTHROPIC_API_KEY")
    if not key:
        return Readiness(False, "anthropic: ANTHROPIC_API_KEY is not set",
                         "export ANTHROPIC_API_KEY=sk-ant-…, or use --backend claude-cli (your "
                         f"Claude Code login), {OFFLINE}", "setup")
    wrong = key_problem(key)
    if wrong:
        return Readiness(False, f"anthropic: ANTHROPIC_API_KEY {wrong}",
                         "check how it was exported, or copy the key again from "
                         "console.anthropic.com",
                         "setup")
    configured = anthropic_base_url(config, env)
    url = (configured or DEFAULT_ANTHROPIC_URL).rstrip("/")
    where = ("check ANTHROPIC_BASE_URL / [backend] base_url, or unset it for api.anthropic.com"
             if configured else "check the network (online? a VPN, or a proxy in HTTPS_PROXY)")
    if not _valid(url):
        return Readiness(False, f"anthropic: {url!r} is not an http(s) URL", where, "setup")
    headers = {"x-api-key": key, "anthropic-version": "2023-06-01"}
    status, failure = _ask(get, f"{url}/v1/models?limit=1", headers)
    proxy = proxy_for(url, env)
    if failure is not None:
        if proxy is not None:
            return Readiness(False, f"anthropic: {failure.say_via(proxy, url)}",
                             f"{failure.fix_via(proxy, url)}, {OFFLINE}", "unavailable",
                             network=True)
        return Readiness(False, f"anthropic: {failure.say(url)}",
                         f"{failure.hint(where)}, {OFFLINE}", "unavailable", network=True)
    assert status is not None
    if status == 407:
        return Readiness(False, f"anthropic: {proxy_auth_failure(proxy, _host(url))}",
                         f"{proxy_auth_fix(proxy)}, {OFFLINE}", "unavailable")
    doubled = _doubled_v1(get, url, headers) if status == 404 else None
    if doubled is not None:
        return Readiness(False, f"anthropic: {configured} ends in /v1, so every call would go "
                                f"to {url}/v1/messages, which is not there (HTTP 404)",
                         f"set ANTHROPIC_BASE_URL / [backend] base_url to {doubled}: the client "
                         "adds /v1/messages itself", "setup")
    if status in (401, 403):
        verb = "refused the API key" if status == 401 else "forbids this API key"
        return Readiness(False, f"anthropic: {_host(url)} {verb} (HTTP {status})",
                         "check ANTHROPIC_API_KEY (a key from console.anthropic.com), or use "
                         f"--backend claude-cli (your Claude Code login), {OFFLINE}",
                         "unavailable")
    # Any other answer (a proxy without /v1/models says 404) means the host is
    # there and took the key; what the model calls meet is the retry policy's.
    endpoint = f" (endpoint {configured})" if configured else ""
    return Readiness(True, f"anthropic: ANTHROPIC_API_KEY is set{endpoint}; "
                           f"{_host(url)} answers (HTTP {status})")


def _claude_cli(config: Any, which: Callable[[str], str | None],
                probe: Callable[[str], Any] | None, login: LoginCheck) -> Readiness:
    from learn.models.claude_cli import missing_binary

    binary = getattr(getattr(config, "backend", None), "claude_binary", None) or "claude"
    found = which(binary)
    if found is None:
        detail, hint = missing_binary(binary)  # a path is not looked for "on PATH"
        return Readiness(False, detail, hint, "setup")
    if probe is None:
        from learn.models.claude_cli import probe as probe_cli

        probe = probe_cli
    support = probe(found)
    if not support.ok:
        return Readiness(False, support.why_not(), "", "setup")
    version = f"Claude Code {support.version}" if support.version else "claude"
    state = login(found)
    if state.logged_in is False:
        return Readiness(False, f"claude-cli: {version} at {found} is not logged in",
                         f"run `{binary}` and type /login (or `{binary} auth login`), or use "
                         f"--backend anthropic with ANTHROPIC_API_KEY, {OFFLINE}",
                         "unavailable")
    how = f", logged in ({state.method})" if state.logged_in and state.method else (
        ", logged in" if state.logged_in else "")
    return Readiness(True, f"claude-cli: {version} at {found}{how}")


def _openai(config: Any, env: Mapping[str, str], get: Get) -> Readiness:
    from learn.config import BackendConfig

    backend = getattr(config, "backend", None) or BackendConfig()
    base = str(backend.openai_base_url).rstrip("/")
    fix = ("start the server (say `llama-server -m model.gguf --port 8080`), or point "
           "[backend] openai_base_url / LEARN_OPENAI_BASE_URL at it")
    if not _valid(base):
        return Readiness(False, f"openai: {base!r} is not an http(s) URL", fix, "setup")
    key = env.get("OPENAI_API_KEY")
    wrong = key_problem(key) if key else ""
    if wrong:
        return Readiness(False, f"openai: OPENAI_API_KEY {wrong}",
                         "check how it was exported, or unset it if the server needs no key",
                         "setup")
    headers = {"authorization": f"Bearer {key}"} if key else {}
    status, failure = _ask(get, f"{base}/models", headers)
    proxy = proxy_for(base, env)
    if failure is not None:
        if proxy is not None:
            return Readiness(False, f"openai: {failure.say_via(proxy, base)}",
                             failure.fix_via(proxy, base), "unavailable")
        return Readiness(False, f"openai: {failure.say(base)}", failure.hint(fix), "unavailable")
    if status == 407:
        return Readiness(False, f"openai: {proxy_auth_failure(proxy, _host(base))}",
                         proxy_auth_fix(proxy), "unavailable")
    if status in (401, 403):
        return Readiness(False, f"openai: {base} refused the key (HTTP {status})",
                         "set OPENAI_API_KEY to a key this server accepts", "unavailable")
    # Any HTTP answer (even 404 from a server without /models) means a server listens.
    return Readiness(True, f"openai: {base} answers (HTTP {status} for /models)")


# -- the key, before it goes into a header -------------------------------------

def key_problem(key: str) -> str:
    """What makes `key` unusable in an HTTP header, in words that never quote it; "" when
    nothing does.

    A key is printable ASCII without spaces. One ending in "\\r" (exported from a file
    saved with Windows line endings) made the request fail before it was sent, and the
    HTTP client's error, which quotes the header value, put the whole key on the terminal
    and in the hook's log: the key is checked here so that error never happens.
    """
    for i, ch in enumerate(key):
        if "!" <= ch <= "~":
            continue
        at = ("at its end" if i == len(key) - 1 else "at its start" if i == 0
              else f"at character {i + 1} of {len(key)}")
        return f"{_what_character(ch)} {at}; a key is printable ASCII with no spaces"
    return ""


def _what_character(ch: str) -> str:
    if ch == "\r":
        return "contains a carriage return (\\r, a Windows line ending)"
    if ch == "\n":
        return "contains a line break (\\n)"
    if ch in " \t":
        return "contains a space or a tab"
    if ord(ch) < 32 or ord(ch) == 127:
        return f"contains a control character (U+{ord(ch):04X})"
    if ch.isspace():
        return f"contains a non-ASCII space (U+{ord(ch):04X})"
    return f"contains a non-ASCII character (U+{ord(ch):04X}, say a quote pasted from a page)"


# -- the one request, bounded -------------------------------------------------

def _doubled_v1(get: Get, url: str, headers: Mapping[str, str]) -> str | None:
    """The base URL without its trailing /v1, when the probe 404'd with it and answers
    without it: a gateway's address copied with the /v1 the client adds again."""
    if not url.endswith("/v1"):
        return None
    shorter = url.removesuffix("/v1")
    status, failure = _ask(get, f"{shorter}/v1/models?limit=1", headers)
    return shorter if failure is None and status != 404 else None


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a request got no HTTP answer, in the words a person acts on."""

    kind: Literal["dns", "refused", "tls", "timeout", "proxy", "reset", "other"]
    reason: str
    attempts: int = 1

    def say_via(self, proxy: Proxy, url: str) -> str:
        """The same, for a request sent through `proxy`: refused or unresolved, it is the
        proxy that is not there; the endpoint was never reached."""
        host, via = _host(url), proxy.said()
        if self.kind == "proxy":
            if "407" in self.reason:
                return proxy_auth_failure(proxy, host)
            return f"{via} could not connect to {host} ({self.reason})"
        if self.kind == "dns":
            return f"cannot resolve the host of {via} (no DNS answer: {self.reason})"
        if self.kind == "refused":
            return f"{via} refuses connections (connection refused)"
        if self.kind == "tls":
            return f"TLS with {host} through {via} failed ({self.reason})"
        if self.kind == "timeout":
            return f"no answer from {host} through {via} within {PREFLIGHT_SECONDS:g} s"
        if self.kind == "reset":
            return (f"the connection to {host} through {via} was reset before it answered"
                    f"{self._times()} ({self.reason})")
        return f"no HTTP answer from {url} through {via}{self._times()} ({self.reason})"

    def fix_via(self, proxy: Proxy, url: str) -> str:
        if self.kind == "proxy" and "407" in self.reason:
            return proxy_auth_fix(proxy)
        return proxy_fix(proxy, _host(url))

    def say(self, url: str) -> str:
        host = _host(url)
        if self.kind == "dns":
            return f"cannot resolve {host} (no DNS answer: {self.reason})"
        if self.kind == "refused":
            return f"nothing answers at {url} (connection refused)"
        if self.kind == "tls":
            return f"TLS with {host} failed ({self.reason})"
        if self.kind == "timeout":
            return f"no answer from {host} within {PREFLIGHT_SECONDS:g} s ({self.reason})"
        if self.kind == "reset":
            return (f"the connection to {url} was reset before it answered{self._times()} "
                    f"({self.reason})")
        return f"no HTTP answer from {url}{self._times()} ({self.reason})"

    def hint(self, where: str) -> str:
        """The fix: `where` (the address to check), after trying again when the exchange
        only broke (a host that resets a connection is there, at that address)."""
        if self.kind in _TRANSIENT_KINDS:
            return f"try again in a minute; if it keeps happening, {where}"
        return where

    def _times(self) -> str:
        return f", {self.attempts} times in a row" if self.attempts > 1 else ""


def _ask(get: Get, url: str, headers: Mapping[str, str]) -> tuple[int | None, Failure | None]:
    """GET `url` within PREFLIGHT_SECONDS: (status, None), or (None, why not).

    A connection reset or closed before the answer is asked again (PREFLIGHT_ATTEMPTS
    in all, all within the one deadline); DNS, a refusal, TLS and a timeout are not:
    they say the same thing a second later."""
    box: dict[str, Any] = {}
    deadline = time.monotonic() + PREFLIGHT_SECONDS - 1.0

    def attempt() -> None:
        for n in range(1, PREFLIGHT_ATTEMPTS + 1):
            left = deadline - time.monotonic()
            try:
                box["status"] = get(url, headers, max(0.5, left))
                box.pop("error", None)
                return
            except BaseException as exc:  # reported below, in this thread
                box["error"], box["attempts"] = exc, n
                if not isinstance(exc, Exception) or classify(exc).kind not in _TRANSIENT_KINDS:
                    return
            if deadline - time.monotonic() < 1.0 + PREFLIGHT_PAUSE_SECONDS:
                return
            time.sleep(PREFLIGHT_PAUSE_SECONDS)

    worker = threading.Thread(target=attempt, name="learn-preflight", daemon=True)
    worker.start()
    from learn.waiting import join

    join(worker, PREFLIGHT_SECONDS)  # in slices: Ctrl-C is not held (learn.waiting)
    if worker.is_alive():
        return None, Failure("timeout", "DNS or the network hangs")
    if "error" in box:
        failure = classify(box["error"])
        return None, replace(failure, attempts=int(box.get("attempts") or 1))
    return int(box["status"]), None


def classify(exc: BaseException) -> Failure:
    """A transport error as what went wrong: DNS, refused, TLS, timeout, or other."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and seen not in chain:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    text = " | ".join(str(e) for e in chain)
    lowered = text.lower()
    first = _first_line(str(chain[-1]) or type(chain[-1]).__name__)
    if any(type(e).__name__ == "ProxyError" for e in chain):  # httpx: the proxy said no
        return Failure("proxy", first)
    if any(isinstance(e, socket.gaierror) for e in chain) or any(
            m in lowered for m in ("name or service not known", "temporary failure in name",
                                   "nodename nor servname", "no address associated",
                                   "getaddrinfo failed", "name resolution")):
        return Failure("dns", first)
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "connection refused" in lowered:
        return Failure("refused", first)
    if any(isinstance(e, ssl.SSLError) for e in chain) or any(
            m in lowered for m in ("certificate", "ssl", "tls")):
        return Failure("tls", first)
    if any(isinstance(e, TimeoutError) for e in chain) or "timed out" in lowered or any(
            "Timeout" in type(e).__name__ for e in chain):
        return Failure("timeout", first)
    if any(isinstance(e, (ConnectionResetError, ConnectionAbortedError, BrokenPipeError))
           for e in chain) or any(m in lowered for m in (
               "connection reset", "reset by peer", "server disconnected",
               "connection aborted", "remote end closed", "broken pipe")):
        return Failure("reset", first)
    return Failure("other", first)


def http_get(url: str, headers: Mapping[str, str], timeout: float) -> int:
    """The status of one GET (proxies from the environment, as the SDKs use them)."""
    import httpx

    return httpx.get(url, headers=dict(headers), timeout=timeout).status_code


# -- claude's login, asked locally -----------------------------------------------

# `claude auth status` reads local credentials (0.35 s measured on 2.1.332): it
# prints JSON with "loggedIn" and exits 1 when logged out.
LOGIN_TIMEOUT: Final = 15.0


def claude_login(binary: str) -> LoginState:
    """What `<binary> auth status` says; LoginState(None) when it cannot say."""
    from learn.models.claude_cli import child_env

    try:
        proc = subprocess.run([binary, "auth", "status"], capture_output=True,
                              timeout=LOGIN_TIMEOUT, env=child_env(), stdin=subprocess.DEVNULL,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return LoginState(None)
    return parse_login(proc.stdout)


def parse_login(raw: bytes) -> LoginState:
    """The login state in `claude auth status` output (JSON with loggedIn, authMethod)."""
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return LoginState(None)
    if not isinstance(data, dict) or not isinstance(data.get("loggedIn"), bool):
        return LoginState(None)
    method = data.get("authMethod")
    return LoginState(data["loggedIn"], method if isinstance(method, str) else "")


def _host(url: str) -> str:
    return urlsplit(url).hostname or url


def _valid(url: str) -> bool:
    # urlsplit raises on what it cannot split (`http://[::1:8080`, an unclosed IPv6
    # bracket): a traceback in `learn run` and `learn doctor`, where it is a URL to fix.
    # `.port` raises on a port that is no number below 65536, which the request then
    # reported as "connection refused" (:99999) or an int() error (:abc).
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- read for the ValueError it raises
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _first_line(text: str) -> str:
    # Redacted whole, then cut (`error_line`): a proxy's or endpoint's error can hold a
    # key or a URL's password across the cut.
    from learn.models.base import error_line

    return error_line(text, 160) or "no detail"
