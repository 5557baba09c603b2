"""Build a MiningSignal: the one constructor every detector uses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from learn.detect.confidence import CandidateSignal, ConfidenceSpec, firm, score
from learn.detect.signals import MiningSignal, SourceKind
from learn.detect.spec import DetectorName
from learn.detect.structural import is_structural
from learn.transcripts.models import UserEvent


def emit(
    event: UserEvent,
    index: int,
    *,
    kind: SourceKind,
    detector: DetectorName,
    text: str,
    trigger_index: int | None,
    signal: CandidateSignal,
    lower_bound: int | None = None,
    evidence: Mapping[str, Any] | None = None,
) -> MiningSignal:
    meta = event.meta
    return MiningSignal(
        kind=kind,
        detector=detector,
        session_id=meta.session_id,
        event_index=index,
        event_uuid=meta.uuid,
        occurred_at=meta.timestamp,
        text=text,
        cc_version=meta.cc_version,
        trigger_index=trigger_index,
        signal=signal,
        lower_bound=lower_bound,
        evidence=dict(evidence or {}),
    )


def calibrated(spec: ConfidenceSpec, seed: str, text: str) -> CandidateSignal:
    return score(spec, text, start=firm(seed), is_structural=is_structural)
