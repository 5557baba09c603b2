"""Reading the rows of a forced-tool answer tolerantly.

Models sometimes send a nested array as a JSON string (`"labels": "[{...}]"`),
and an answer cut off by max_tokens can end mid-row. Either way the complete
rows are still good: a 200-item batch that fell back entirely because its last
row was cut is the failure this avoids.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError, field_validator

from learn.models.base import ModelRequest


def recover_rows(text: str) -> list[Any]:
    """The complete JSON objects at the top level of a (possibly truncated) JSON array."""
    decoder = json.JSONDecoder()
    start = text.find("[")
    if start < 0:
        return []
    pos, out = start + 1, []
    while pos < len(text):
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            value, pos = decoder.raw_decode(text, pos)
        except (json.JSONDecodeError, RecursionError):  # a row nested past ~1,000 levels
            break
        out.append(value)
    return out


def rows_of(value: Any) -> list[Any]:
    """A list of rows from what the model put under the answer's array key."""
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return recover_rows(value)  # the rows before a cut, or before one nested too deep
        return parsed if isinstance(parsed, list) else [parsed] if isinstance(parsed, dict) else []
    if isinstance(value, dict):
        return [value]
    return []


def rows_schema(
    key: str, row_properties: Mapping[str, Any], required: Sequence[str]
) -> dict[str, Any]:
    """The input schema of a forced tool whose answer is one array of rows under `key`."""
    return {
        "type": "object",
        "properties": {
            key: {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": dict(row_properties),
                    "required": list(required),
                },
            }
        },
        "required": [key],
    }


class RowsAnswer(BaseModel):
    """A forced-tool answer whose every field is an array of rows, read with `rows_of`.

    Rows stay untyped here and the caller checks them one by one (`valid_rows`,
    or naming's stricter reader): one bad row must not cost the batch.
    """

    @field_validator("*", mode="before")
    @classmethod
    def _tolerant(cls, value: Any) -> list[Any]:
        return rows_of(value)


class VerdictsAnswer(RowsAnswer):
    verdicts: list[Any] = Field(default_factory=list)


class LabelsAnswer(RowsAnswer):
    labels: list[Any] = Field(default_factory=list)


RowT = TypeVar("RowT", bound=BaseModel)


def valid_rows(rows: Iterable[Any], model: type[RowT]) -> Iterator[RowT]:
    """Each row that validates as `model`, in order; the others are skipped."""
    for raw in rows:
        try:
            yield model.model_validate(raw)
        except ValidationError:
            continue


def request_key(request: ModelRequest) -> str:
    """The key of an answer kept by its request (learn.reduce.protocols.AnswerMemory):
    sha256 over everything that shapes the answer, so it is never reused for another
    model, another prompt (its whole text: a prompt edited without a new version is
    another prompt), another tool schema, other items or another output budget."""
    import hashlib

    body = [request.step, request.model, request.system, request.tool.name,
            request.tool.input_schema, request.user, request.max_tokens]
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False)
                          .encode("utf-8")).hexdigest()
