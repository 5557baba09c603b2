"""The shared answer models and row reader used by naming, coverage and judging."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from learn.reduce.answers import LabelsAnswer, VerdictsAnswer, rows_schema, valid_rows


class _Row(BaseModel):
    id: int
    verdict: Literal["rule", "new"]


def test_answers_read_string_arrays_and_truncated_rows() -> None:
    cut = '[{"id": 0, "verdict": "new"}, {"id": 1, "verd'
    assert VerdictsAnswer.model_validate({"verdicts": cut}).verdicts == [{"id": 0, "verdict": "new"}]
    assert LabelsAnswer.model_validate({"labels": {"id": 2, "label": "x"}}).labels == [
        {"id": 2, "label": "x"}
    ]
    assert VerdictsAnswer.model_validate({}).verdicts == []


def test_valid_rows_skips_bad_rows_and_keeps_order() -> None:
    raw = [{"id": 2, "verdict": "rule"}, {"id": "x"}, "junk", {"id": 0, "verdict": "maybe"}, {"id": 1, "verdict": "new"}]
    assert [(r.id, r.verdict) for r in valid_rows(raw, _Row)] == [(2, "rule"), (1, "new")]


def test_rows_schema_shape() -> None:
    schema = rows_schema("labels", {"id": {"type": "integer"}}, required=["id"])
    assert schema == {
        "type": "object",
        "properties": {
            "labels": {
                "type": "array",
                "items": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
            }
        },
        "required": ["labels"],
    }
