"""The fake Messages server with Message Batches: create, retrieve and the JSONL results.

`FakeBatchServer` is a `FakeAnthropicServer` (the direct `/v1/messages` route is
unchanged) that also serves

- `POST /v1/messages/batches`: answers every item at once with the responder,
  holds the results back for `processing_seconds`;
- `GET /v1/messages/batches/{id}`: `in_progress` until then, `ended` after,
  with `request_counts` and a `results_url`;
- `GET /v1/messages/batches/{id}/results`: one JSON line per item.

`errored(params) -> bool` picks items that come back `errored` (their answer
is not counted); `outcome(params) -> "succeeded" | "errored" | "expired" |
"canceled"` picks any ending. `answered` counts the answers given per user
text, batch and direct alike: a session mined twice shows as a count of 2.

Faults, for the retry and recovery paths:

- `fail(route, status, times)` / `drop(route, times)`: the next calls to one
  route ("create", "poll", "results" or "messages") answer an error status
  (with `retry-after-ms: 0`, so a test does not sleep) or drop the connection;
- `trickle(route, pace, times)`: the next calls to one route answer as usual, a
  byte every `pace` seconds (each read within a client's timeout, the whole reply
  far past it);
- `flaky=0.5`: half of all calls, on every route, fail transiently (529, 500,
  429 with retry-after 0, or a dropped connection), drawn from `seed`;
- `max_requests` / `max_bytes`: a batch over either limit is refused (400 /
  413), as the real API refuses one over 100,000 requests or 256 MB.
"""

from __future__ import annotations

import dataclasses
import json
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from typing import Any

from fakes.anthropic_server import FakeAnthropicServer, Responder
from fakes.http_server import RecordedRequest, Reply


@dataclasses.dataclass
class _Batch:
    id: str
    created: float
    lines: list[dict[str, Any]]
    counts: dict[str, int]


class FakeBatchServer(FakeAnthropicServer):
    def __init__(
        self,
        responder: Responder | None = None,
        *,
        usage: Mapping[str, int] | None = None,
        processing_seconds: float = 0.0,
        errored: Callable[[Mapping[str, Any]], bool] | None = None,
        outcome: Callable[[Mapping[str, Any]], str] | None = None,
        flaky: float = 0.0,
        seed: int = 0,
        max_requests: int | None = None,
        max_bytes: int | None = None,
    ) -> None:
        super().__init__(responder, usage=usage)
        self.processing_seconds = processing_seconds
        self.errored = errored or (lambda params: False)
        self.outcome = outcome
        self.flaky = flaky
        self.max_requests = max_requests
        self.max_bytes = max_bytes
        self.batches: dict[str, _Batch] = {}
        self.answered: Counter[str] = Counter()
        self.faults_served: Counter[str] = Counter()  # per route
        self._faults: dict[str, deque[Reply]] = {}
        self._paces: dict[str, deque[float]] = {}
        self._rng = random.Random(seed)
        self._batch_lock = threading.Lock()
        # Direct calls forcing one of these tools answer 529 (no retry-after): a step
        # (naming, say) that fails while the others work.
        self.failing_tools: set[str] = set()

    # -- faults ------------------------------------------------------------------
    def fail(self, route: str, status: int, *, times: int = 1, retry_after: bool = True,
             message: str | None = None) -> None:
        """The next `times` calls to `route` answer `status` (with retry-after-ms: 0, so
        nobody sleeps; `retry_after=False` leaves the client to its own backoff), the
        error's message `message` when given."""
        reply = self.error_reply(status, headers={"retry-after-ms": "0"} if retry_after else {},
                                 message=message)
        self._faults.setdefault(route, deque()).extend([reply] * times)

    def drop(self, route: str, *, times: int = 1) -> None:
        """The next `times` calls to `route` get their connection closed unanswered."""
        self._faults.setdefault(route, deque()).extend([Reply(drop=True)] * times)

    def trickle(self, route: str, pace: float, *, times: int = 1) -> None:
        """The next `times` calls to `route` get their usual reply, one byte every `pace` s."""
        self._paces.setdefault(route, deque()).extend([pace] * times)

    @staticmethod
    def route(request: RecordedRequest) -> str:
        path = request.path.split("?")[0].rstrip("/")
        if "/v1/messages/batches" not in path:
            return "messages"
        if request.method == "POST":
            return "create"
        return "results" if path.endswith("/results") else "poll"

    def _fault(self, route: str, request: RecordedRequest | None = None) -> Reply | None:
        if route == "messages" and request is not None and request.tool_name in self.failing_tools:
            return self.error_reply(529)
        with self._batch_lock:
            queued = self._faults.get(route)
            if queued:
                self.faults_served[route] += 1
                return queued.popleft()
            if self.flaky and self._rng.random() < self.flaky:
                self.faults_served[route] += 1
                pick = self._rng.randrange(4)
                if pick == 3:
                    return Reply(drop=True)
                status = (529, 500, 429)[pick]
                return self.error_reply(status, headers={"retry-after": "0"})
        return None

    def _as_request(self, params: Mapping[str, Any]) -> RecordedRequest:
        return RecordedRequest(method="POST", path="/v1/messages", headers={}, body=dict(params),
                               raw=json.dumps(params).encode())

    def default_reply(self, request: RecordedRequest) -> Reply:
        reply = self._usual_reply(request)
        with self._batch_lock:
            paces = self._paces.get(self.route(request))
            pace = paces.popleft() if paces else 0.0
        return dataclasses.replace(reply, trickle=pace) if pace else reply

    def _usual_reply(self, request: RecordedRequest) -> Reply:
        path = request.path.split("?")[0].rstrip("/")
        if path.endswith(("/v1/messages", "/v1/messages/batches")) or "/v1/messages/batches/" in path:
            fault = self._fault(self.route(request), request)
            if fault is not None:
                return fault
        if "/v1/messages/batches" not in path:
            reply = super().default_reply(request)
            if reply.status == 200 and path.endswith("/v1/messages"):
                with self._batch_lock:
                    self.answered[request.user_text] += 1
            return reply
        if request.method == "POST" and path.endswith("/v1/messages/batches"):
            items = request.json.get("requests") or []
            if self.max_requests is not None and len(items) > self.max_requests:
                return self.error_reply(400, message=f"too many requests in a batch: {len(items)}")
            if self.max_bytes is not None and len(request.raw) > self.max_bytes:
                return self.error_reply(413, message=f"batch too large: {len(request.raw)} bytes")
            return Reply(200, self._create(items))
        parts = path.split("/")
        if path.endswith("/results"):
            batch = self.batches.get(parts[-2])
            if batch is None:
                return self.error_reply(404, message="no such batch")
            data = "".join(json.dumps(line) + "\n" for line in batch.lines).encode()
            return Reply(200, data, headers={"content-type": "application/binary"})
        batch = self.batches.get(parts[-1])
        if batch is None:
            return self.error_reply(404, message="no such batch")
        return Reply(200, self._batch_body(batch))

    def _create(self, requests: list[dict[str, Any]]) -> dict[str, Any]:
        lines: list[dict[str, Any]] = []
        counts = Counter({"succeeded": 0, "errored": 0, "expired": 0, "canceled": 0})
        for item in requests:
            params = item["params"]
            recorded = self._as_request(params)
            ending = "errored" if self.errored(params) else (
                self.outcome(params) if self.outcome is not None else "succeeded")
            if ending == "errored":
                counts["errored"] += 1
                lines.append({"custom_id": item["custom_id"], "result": {
                    "type": "errored",
                    "error": {"type": "error", "error": {"type": "overloaded_error",
                                                         "message": "Overloaded"}}}})
                continue
            if ending in ("expired", "canceled"):
                counts[ending] += 1
                lines.append({"custom_id": item["custom_id"], "result": {"type": ending}})
                continue
            reply = self.tool_reply(self.responder(recorded))  # type: ignore[arg-type]
            body = reply.body(recorded) if callable(reply.body) else reply.body
            counts["succeeded"] += 1
            with self._batch_lock:
                self.answered[recorded.user_text] += 1
            lines.append({"custom_id": item["custom_id"],
                          "result": {"type": "succeeded", "message": body}})
        with self._batch_lock:
            batch = _Batch(f"msgbatch_fake_{len(self.batches) + 1:04d}", time.monotonic(), lines,
                           dict(counts))
            self.batches[batch.id] = batch
        return self._batch_body(batch)

    def _batch_body(self, batch: _Batch) -> dict[str, Any]:
        ended = time.monotonic() - batch.created >= self.processing_seconds
        total = len(batch.lines)
        counts = {"processing": 0 if ended else total,
                  "succeeded": batch.counts.get("succeeded", 0) if ended else 0,
                  "errored": batch.counts.get("errored", 0) if ended else 0,
                  "canceled": batch.counts.get("canceled", 0) if ended else 0,
                  "expired": batch.counts.get("expired", 0) if ended else 0}
        stamp = "2026-11-30T00:00:00Z"
        return {
            "id": batch.id, "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts, "created_at": stamp, "expires_at": "2026-12-01T00:00:00Z",
            "ended_at": stamp if ended else None, "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.base_url}/v1/messages/batches/{batch.id}/results" if ended else None,
        }
