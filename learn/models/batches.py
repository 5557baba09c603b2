"""Message Batches over the anthropic SDK: submit, poll, read results, at the batch price.

A batch is billed at half the Messages price (Anthropic's published batch
discount), so the usage of every batch result is the normal cost times
`BATCH_PRICE`. Every call goes through the anthropic backend's `batch_call`:
its SDK client (same key, base URL and timeout), its overall per-call deadline
(learn.models.retry.within), its retry budget and its rate limiter, so a 529 or
a trickled reply on create or on a status poll is retried like a mining call and
a call that still fails is a one-line `ModelError`. Any other backend
cannot batch.

Per-batch limits are the API's published ones (the Message Batches guide: at
most 100,000 requests or 256 MB per batch, whichever comes first; the API
reference: `requests` maxItems 100000); `learn.mining.batch` splits to them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from learn.models.anthropic_backend import build_message_params, response_from_message
from learn.models.base import CallUsage, ModelError, ModelRequest, ModelResponse

BATCH_PRICE: Final = 0.5  # of the Messages price, for every token kind
MAX_BATCH_REQUESTS: Final = 100_000
# 256 MB read as decimal megabytes, the smaller reading, with room for the envelope.
MAX_BATCH_BYTES: Final = 256_000_000 - 64_000


def batch_backend(backend: Any) -> Any | None:
    """The anthropic backend under `backend` (through meters/wrappers), or None.

    Only its `batch_call` is used: the SDK client is built (and the SDK imported,
    2-3 s) at the first batch call, not here.
    """
    seen = 0
    while backend is not None and seen < 8:
        if getattr(backend, "name", "") == "anthropic" and hasattr(backend, "batch_call"):
            return backend
        backend = getattr(backend, "inner", None)
        seen += 1
    return None


def request_entry(custom_id: str, request: ModelRequest) -> dict[str, Any]:
    """One item of a `batches.create` call."""
    return {"custom_id": custom_id, "params": build_message_params(request)}


def entry_bytes(entry: Mapping[str, Any]) -> int:
    """What one item adds to the create request's body (JSON, plus its comma)."""
    return len(json.dumps(entry, ensure_ascii=False).encode("utf-8")) + 1


def at_batch_price(usage: CallUsage) -> CallUsage:
    return dataclasses.replace(usage, cost_usd=usage.cost_usd * BATCH_PRICE)


@dataclass(frozen=True, slots=True)
class BatchStatus:
    batch_id: str
    ended: bool
    counts: Mapping[str, int]  # processing, succeeded, errored, canceled, expired


@dataclass(frozen=True, slots=True)
class BatchResult:
    custom_id: str
    response: ModelResponse | None  # None: errored, expired or canceled
    error: str | None = None


def submit(backend: Any, entries: Sequence[Mapping[str, Any]]) -> str:
    """Create one batch of `request_entry` items; its id. Retried like a direct call."""
    batch = backend.batch_call("create", lambda c: c.messages.batches.create(requests=list(entries)))
    return str(batch.id)


def status(backend: Any, batch_id: str) -> BatchStatus:
    batch = backend.batch_call("status", lambda c: c.messages.batches.retrieve(batch_id))
    rc = batch.request_counts
    counts = {k: int(getattr(rc, k, 0) or 0)
              for k in ("processing", "succeeded", "errored", "canceled", "expired")}
    return BatchStatus(batch_id, str(batch.processing_status) == "ended", counts)


def results(backend: Any, batch_id: str,
            requests: Mapping[str, ModelRequest]) -> list[BatchResult]:
    """Each result of an ended batch; usage at the batch price.

    The whole stream is read inside one attempt: a connection cut half-way
    reads it again from the start, rather than leaving the rest unread.
    """
    entries = backend.batch_call("results", lambda c: list(c.messages.batches.results(batch_id)))
    out: list[BatchResult] = []
    for entry in entries:
        cid = str(entry.custom_id)
        result = entry.result
        kind = str(getattr(result, "type", ""))
        request = requests.get(cid)
        if kind != "succeeded" or request is None:
            err = getattr(result, "error", None)
            out.append(BatchResult(cid, None, f"{kind}: {err}" if err is not None else kind))
            continue
        try:
            response = response_from_message(request, result.message)
        except ModelError as exc:
            out.append(BatchResult(cid, None, str(exc)))
            continue
        out.append(BatchResult(cid, dataclasses.replace(response, usage=at_batch_price(response.usage))))
    return out
