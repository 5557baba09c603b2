"""The fake Messages server with Message Batches: create, retrieve and the JSONL results.

`FakeBatchServer` is a `FakeAnthropicServer` (the direct `/v1/messages` route is
unchanged) that also serves

- `POST /v1/messages/batches`: answers every item at once with the responder,
  holds the results back for `processing_seconds`;
- `GET /v1/messages/batches/{id}`: `in_progress` until then, `ended` after,
  with `request_counts` and a `results_url`;
- `GET /v1/messages/batches/{id}/results`: one JSON line per item.

`errored(params) -> bool` picks items that come back `errored` (their answer
is not counted). `answered` counts the answers given per user text, batch and
direct alike: a session mined twice shows as a count of 2.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections import Counter
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
    ) -> None:
        super().__init__(responder, usage=usage)
        self.processing_seconds = processing_seconds
        self.errored = errored or (lambda params: False)
        self.batches: dict[str, _Batch] = {}
        self.answered: Counter[str] = Counter()
        self._batch_lock = threading.Lock()

    def _as_request(self, params: Mapping[str, Any]) -> RecordedRequest:
        return RecordedRequest(method="POST", path="/v1/messages", headers={}, body=dict(params),
                               raw=json.dumps(params).encode())

    def default_reply(self, request: RecordedRequest) -> Reply:
        path = request.path.split("?")[0].rstrip("/")
        if "/v1/messages/batches" not in path:
            reply = super().default_reply(request)
            if reply.status == 200 and path.endswith("/v1/messages"):
                with self._batch_lock:
                    self.answered[request.user_text] += 1
            return reply
        if request.method == "POST" and path.endswith("/v1/messages/batches"):
            return Reply(200, self._create(request.json.get("requests") or []))
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
        counts = Counter({"succeeded": 0, "errored": 0})
        for item in requests:
            params = item["params"]
            recorded = self._as_request(params)
            if self.errored(params):
                counts["errored"] += 1
                lines.append({"custom_id": item["custom_id"], "result": {
                    "type": "errored",
                    "error": {"type": "error", "error": {"type": "overloaded_error",
                                                         "message": "Overloaded"}}}})
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
                  "canceled": 0, "expired": 0}
        stamp = "2026-11-30T00:00:00Z"
        return {
            "id": batch.id, "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts, "created_at": stamp, "expires_at": "2026-12-01T00:00:00Z",
            "ended_at": stamp if ended else None, "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.base_url}/v1/messages/batches/{batch.id}/results" if ended else None,
        }
