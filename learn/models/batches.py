"""Message Batches over the anthropic SDK: submit, poll, read results, at the batch price.

A batch is billed at half the Messages price (Anthropic's published batch
discount), so the usage of every batch result is the normal cost times
`BATCH_PRICE`. The client is the anthropic backend's own SDK client (same key,
base URL and timeout); any other backend has none and cannot batch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from learn.models.anthropic_backend import build_message_params, response_from_message
from learn.models.base import CallUsage, ModelError, ModelRequest, ModelResponse

BATCH_PRICE: Final = 0.5  # of the Messages price, for every token kind


def batch_client(backend: Any) -> Any | None:
    """The anthropic SDK client under `backend` (through meters/wrappers), or None."""
    seen = 0
    while backend is not None and seen < 8:
        # The name first: reading `_client` builds the SDK client (and imports
        # the SDK, 2-3 s) on a backend that has not called yet.
        client = getattr(backend, "_client", None) if getattr(backend, "name", "") == "anthropic" else None
        if client is not None and hasattr(client, "messages"):
            return client
        backend = getattr(backend, "inner", None)
        seen += 1
    return None


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


def submit(client: Any, requests: Sequence[tuple[str, ModelRequest]]) -> str:
    """Create one batch of (custom_id, request); its id."""
    try:
        batch = client.messages.batches.create(requests=[
            {"custom_id": cid, "params": build_message_params(req)} for cid, req in requests
        ])
    except Exception as exc:  # the SDK's errors must not escape as SDK types
        raise ModelError(f"anthropic batches: {type(exc).__name__}: {exc}") from exc
    return str(batch.id)


def status(client: Any, batch_id: str) -> BatchStatus:
    try:
        batch = client.messages.batches.retrieve(batch_id)
    except Exception as exc:
        raise ModelError(f"anthropic batches: {type(exc).__name__}: {exc}") from exc
    rc = batch.request_counts
    counts = {k: int(getattr(rc, k, 0) or 0)
              for k in ("processing", "succeeded", "errored", "canceled", "expired")}
    return BatchStatus(batch_id, str(batch.processing_status) == "ended", counts)


def results(client: Any, batch_id: str,
            requests: Mapping[str, ModelRequest]) -> Iterator[BatchResult]:
    """Each result of an ended batch; usage at the batch price."""
    try:
        stream = client.messages.batches.results(batch_id)
    except Exception as exc:
        raise ModelError(f"anthropic batches: {type(exc).__name__}: {exc}") from exc
    for entry in stream:
        cid = str(entry.custom_id)
        result = entry.result
        kind = str(getattr(result, "type", ""))
        request = requests.get(cid)
        if kind != "succeeded" or request is None:
            err = getattr(result, "error", None)
            yield BatchResult(cid, None, f"{kind}: {err}" if err is not None else kind)
            continue
        try:
            response = response_from_message(request, result.message)
        except ModelError as exc:
            yield BatchResult(cid, None, str(exc))
            continue
        yield BatchResult(cid, dataclasses.replace(response, usage=at_batch_price(response.usage)))
