"""stream() over many files, and FilterSpec dropping during the parse."""

from __future__ import annotations

import json
import pickle
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from types import GeneratorType
from typing import Any

import pytest

from learn.transcripts import (
    NOISE_SPEC,
    AttachmentEvent,
    FilterSpec,
    OtherEvent,
    SystemEvent,
    UserEvent,
    parse,
    stream,
)
from learn.transcripts import parser as parser_mod
from learn.transcripts.claude import decode as decode_mod

FIX = Path(__file__).parent / "fixtures" / "shapes"
SHAPES = FIX / "claude_shapes.jsonl"


def _copies(tmp_path: Path, n: int) -> list[Path]:
    paths = []
    for i in range(n):
        p = tmp_path / f"s{i}.jsonl"
        shutil.copy(SHAPES, p)
        paths.append(p)
    return paths


def test_stream_parses_every_readable_file(tmp_path: Path) -> None:
    paths = _copies(tmp_path, 7)
    shutil.copy(FIX / "codex_rollout.jsonl", tmp_path / "r.jsonl")
    paths.append(tmp_path / "r.jsonl")
    paths.insert(3, tmp_path / "vanished.jsonl")
    (tmp_path / "dir.jsonl").mkdir()
    paths.append(tmp_path / "dir.jsonl")
    out = list(stream(paths, prefetch=3))
    assert sorted(str(t.path) for t in out) == sorted(
        str(p) for p in paths if p.is_file())
    reference = parse(SHAPES).events
    for t in out:
        if t.provider == "claude":
            assert t.events == reference
    assert {t.provider for t in out} == {"claude", "codex"}


def test_stream_is_lazy_and_bounded(tmp_path: Path) -> None:
    paths = _copies(tmp_path, 20)
    seen: list[Path] = []

    def tracked() -> Iterator[Path]:
        for p in paths:
            seen.append(p)
            yield p

    it = stream(tracked(), prefetch=2)
    first = next(it)
    assert first.path in paths
    assert len(seen) <= 4  # not the whole input up front
    rest = list(it)
    assert len(rest) == 19


def test_stream_skips_file_deleted_between_discovery_and_parse(tmp_path: Path) -> None:
    paths = _copies(tmp_path, 3)
    paths[1].unlink()
    assert len(list(stream(paths))) == 2


def test_filterspec_drops_before_materializing(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []

    def spy(build: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def spied(wire: object) -> object:
            built.append(wire)
            return build(wire)
        return spied

    spec = FilterSpec(
        types=frozenset({"progress", "summary"}), sidechain=True, meta=True,
        system_subtypes=frozenset({"turn_duration"}), attachment_types=frozenset({"skill_listing"}),
    )
    monkeypatch.setattr(parser_mod, "BUILDERS",
                        {kind: spy(build) for kind, build in parser_mod.BUILDERS.items()})
    t = parser_mod.parse(SHAPES, drop=spec)
    events = list(t.events)
    monkeypatch.undo()
    full = list(parse(SHAPES).events)
    # Only kept records were ever built (OtherEvents are born public).
    assert len(built) == sum(1 for e in events if not isinstance(e, OtherEvent))
    assert not any(isinstance(e, OtherEvent) and e.type in {"progress", "summary"} for e in events)
    metas = [e.meta for e in events if isinstance(e, UserEvent | SystemEvent | AttachmentEvent)]
    assert metas and not any(m.is_sidechain or m.is_meta for m in metas)
    assert not any(isinstance(e, SystemEvent) and e.subtype == "turn_duration" for e in events)
    assert not any(isinstance(e, AttachmentEvent) and e.attachment_type == "skill_listing"
                   for e in events)
    assert t.skipped_lines == 0  # dropped is not skipped
    # Exactly the dropped shapes are gone.
    assert len(full) - len(events) == 5  # progress, summary, u7, turn_duration, skill_listing


def test_noise_spec_keeps_what_the_person_typed() -> None:
    events = list(parse(SHAPES, drop=NOISE_SPEC).events)
    texts = [e.text for e in events if isinstance(e, UserEvent)]
    assert "please use uv, never pip" in texts
    assert any(isinstance(e, OtherEvent) and e.type == "queue-operation" for e in events)
    assert not any(isinstance(e, OtherEvent) and e.type in {"progress", "file-history-snapshot"}
                   for e in events)


def test_transcript_pickles_as_materialized_events() -> None:
    t = parse(SHAPES)
    back = pickle.loads(pickle.dumps(t))
    assert back == t
    assert back.events == t.events


def test_parse_accepts_bytes_like() -> None:
    raw = SHAPES.read_bytes()
    t = parse(raw)
    assert t.path is None and t.mtime == 0.0
    assert t.events == parse(SHAPES).events
    assert json.loads(raw.split(b"\n")[0])["uuid"] == t.events[0].meta.uuid  # type: ignore[union-attr]


def test_dropped_unmodeled_types_are_never_decoded_into_objects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slow: list[bytes] = []
    original = decode_mod._slow_path

    def spy(line: bytes) -> object:
        slow.append(line)
        return original(line)

    monkeypatch.setattr(decode_mod, "_slow_path", spy)
    progress = b'{"type":"progress","data":{"message":{"content":"big nested copy"}}}\n'
    truncated = b'{"type":"progress","data":{"message":{"cont'
    t = parse(progress * 3 + b'{"type":"summary","summary":"s"}\n' + truncated, drop=NOISE_SPEC)
    assert [e.type for e in t.events] == ["summary"]  # type: ignore[union-attr]
    # The well-formed progress lines never reached the untyped decoder (their
    # bodies are skipped by the typed decode); the truncated one is still counted,
    # exactly as without a spec.
    assert slow == [b'{"type":"summary","summary":"s"}']
    assert t.skipped == {"undecodable": 1}
    assert parse(truncated).skipped == {"undecodable": 1}


def test_stream_yields_in_input_order(tmp_path: Path) -> None:
    # Sizes vary so a reader racing ahead would finish them out of order.
    lines = SHAPES.read_bytes()
    paths = []
    for i, n in enumerate([9, 1, 5, 1, 12, 3]):
        p = tmp_path / f"o{i}.jsonl"
        p.write_bytes(lines * n)
        paths.append(p)
    paths.insert(2, tmp_path / "missing.jsonl")
    out = [t.path for t in stream(paths, prefetch=3)]
    assert out == [p for p in paths if p.exists()]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd")
def test_stream_closes_files_read_ahead(tmp_path: Path) -> None:
    paths = _copies(tmp_path, 6)
    (tmp_path / "dir.jsonl").mkdir()
    paths.insert(1, tmp_path / "dir.jsonl")
    before = len(list(Path("/proc/self/fd").iterdir()))
    it = stream(paths, prefetch=4)
    assert isinstance(it, GeneratorType)
    next(it)
    assert len(list(Path("/proc/self/fd").iterdir())) > before  # files held open ahead
    it.close()  # abandoned mid-way
    assert len(list(Path("/proc/self/fd").iterdir())) == before
    assert len(list(stream(paths))) == 6
    assert len(list(Path("/proc/self/fd").iterdir())) == before
