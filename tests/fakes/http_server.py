"""The machinery under the fake model servers: a real HTTP server on 127.0.0.1.

A real socket, not a mocked transport, because the Anthropic SDK (2.x) talks
through httpx2, which respx cannot intercept, and because the point is to run
the real client end to end. `serve_forever(poll_interval=0.02)`: the default
0.5 s poll adds half a second to every teardown (measured).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the fake received. Header names are lower-cased."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or None when the body was not JSON
    raw: bytes

    @property
    def json(self) -> dict[str, Any]:
        return self.body if isinstance(self.body, dict) else {}

    @property
    def tool_name(self) -> str | None:
        """The forced tool: Messages `tool_choice.name` or chat `tool_choice.function.name`."""
        choice = self.json.get("tool_choice")
        if isinstance(choice, dict):
            if choice.get("name"):
                return str(choice["name"])
            function = choice.get("function")
            if isinstance(function, dict) and function.get("name"):
                return str(function["name"])
        tools = self.json.get("tools") or []
        if tools and isinstance(tools[0], dict):
            first = tools[0].get("function", tools[0])
            return str(first.get("name")) if isinstance(first, dict) else None
        return None

    @property
    def user_text(self) -> str:
        """The text of the last user message (string content or text blocks joined).

        A user turn holding only tool results (the follow-up that sends a
        validation error back) is skipped: the question is still the chunk or
        the item list asked before it.
        """
        for message in reversed(self.json.get("messages") or []):
            if isinstance(message, dict) and message.get("role") == "user":
                if _only_tool_results(message.get("content")):
                    continue
                return _text_of(message.get("content"))
        return ""

    @property
    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool_result block sent in the request's user turns, in order."""
        out: list[dict[str, Any]] = []
        for message in self.json.get("messages") or []:
            if isinstance(message, dict) and isinstance(message.get("content"), list):
                out.extend(b for b in message["content"]
                           if isinstance(b, dict) and b.get("type") == "tool_result")
        return out

    @property
    def system_text(self) -> str:
        """Messages `system` (string or blocks), or a chat request's system message."""
        if "system" in self.json:
            return _text_of(self.json["system"])
        for message in self.json.get("messages") or []:
            if isinstance(message, dict) and message.get("role") == "system":
                return _text_of(message.get("content"))
        return ""


def _only_tool_results(content: Any) -> bool:
    return isinstance(content, list) and bool(content) and all(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


# A reply body is JSON (a mapping), raw bytes, or a function of the request,
# for answers that echo something from it (the tool name, the model).
Body = Mapping[str, Any] | bytes | Callable[[RecordedRequest], Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Reply:
    status: int = 200
    body: Body = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    # Seconds to stall before answering: exercises client timeouts.
    delay: float = 0.0
    # Close the connection without answering: a dropped connection.
    drop: bool = False
    # Wire faults (tests/test_network_audit.py). `cut`: send the status line, the
    # headers (content-length of the whole body) and only the first `cut` bytes of
    # the body, then close: 0 is a server closing after the headers.
    cut: int | None = None
    # Close with a TCP reset (RST) instead of a FIN, after whatever was sent.
    reset: bool = False
    # Seconds between the bytes of the body: a reply that trickles in.
    trickle: float = 0.0


class FakeHTTPServer:
    """A threaded HTTP server answering scripted replies, then a default.

    Subclasses implement `default_reply(request)`. Replies queued with
    `enqueue` are served first, in order, one per request.
    """

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        # Requests `direct_reply` answered (a client's preflight): kept apart, so
        # they neither take a scripted reply nor count among `requests`.
        self.probes: list[RecordedRequest] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> Self:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                fake._serve(self)

            def do_GET(self) -> None:
                fake._serve(self)

            def do_CONNECT(self) -> None:  # as a proxy is asked for an https tunnel
                fake._serve(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep pytest output clean

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        thread.start()
        self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- scripting -----------------------------------------------------------
    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Scripted replies not yet served (a test can assert all were used)."""
        with self._lock:
            return len(self._queue)

    def default_reply(self, request: RecordedRequest) -> Reply:
        raise NotImplementedError

    def direct_reply(self, request: RecordedRequest) -> Reply | None:
        """A reply served before the script (None: the script, then `default_reply`)."""
        return None

    # -- serving -------------------------------------------------------------
    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(
            method=handler.command,
            path=handler.path,
            headers={k.lower(): v for k, v in handler.headers.items()},
            body=body,
            raw=raw,
        )
        direct = self.direct_reply(request)
        if direct is not None:
            with self._lock:
                self.probes.append(request)
            reply = direct
        else:
            with self._lock:
                self.requests.append(request)
                scripted = self._queue.popleft() if self._queue else None
            reply = scripted if scripted is not None else self.default_reply(request)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.drop:
            handler.close_connection = True
            return
        payload = reply.body(request) if callable(reply.body) else reply.body
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            handler.send_response(reply.status)
            headers = {k.lower(): v for k, v in reply.headers.items()}
            headers.setdefault("content-type", "application/json")
            for name, value in headers.items():
                handler.send_header(name, value)
            handler.send_header("content-length", str(len(data)))
            handler.end_headers()
            if reply.cut is not None:
                data = data[:reply.cut]
                handler.close_connection = True
            if reply.trickle:
                for i in range(len(data)):
                    if self._server is None:
                        break  # stopped: the test is over
                    handler.wfile.write(data[i:i + 1])
                    time.sleep(reply.trickle)
            else:
                handler.wfile.write(data)
            if reply.reset:
                _reset(handler)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to answer


def _reset(handler: BaseHTTPRequestHandler) -> None:
    """Close the connection with an RST: linger 0, and every file on the socket closed
    first, or the close is deferred to the handler's end and goes out as a FIN."""
    handler.close_connection = True
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.wfile.close()
    handler.rfile.close()
    handler.connection.close()


def free_port() -> int:
    """A port nothing listens on (bound then released): for connection-refused tests."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
