"""Detectors and confidence in any language: the shape is the gate, words only adjust."""

from __future__ import annotations

import json

import pytest
from fixtures.detect.make_fixtures import DENIAL, NOTE, SAID, Session

from learn.detect import MiningSignal, MiningSpec, mine
from learn.detect.confidence import HIGH, NOISE_FLOOR, word_count
from learn.detect.wording import has_approving_words, has_rejecting_words
from learn.transcripts.models import TranscriptEvent
from learn.transcripts.parser import parse_events_from_bytes


def _mine(s: Session, *detectors: str) -> list[MiningSignal]:
    buf = "".join(json.dumps(line) + "\n" for line in s.lines).encode()
    events: list[TranscriptEvent] = list(parse_events_from_bytes(buf))
    spec = MiningSpec(detectors=frozenset(detectors))  # type: ignore[arg-type]
    return list(mine(events, spec))


REJECTIONS = [
    "不要加新的依赖，用标准库就行",
    "Keine neue Abhängigkeit dafür, nimm die Standardbibliothek",
    "新しい依存関係は追加しないで、標準ライブラリで",
    "새 의존성은 추가하지 마세요 표준 라이브러리로 하세요",
    "No agregues dependencias nuevas, usa la biblioteca estándar",
    "Не добавляй новые зависимости, используй стандартную библиотеку",
    "Não adicione dependências novas, use a biblioteca padrão",
]


@pytest.mark.parametrize("reason", REJECTIONS)
def test_a_plan_rejection_in_any_language_scores_like_english(reason: str) -> None:
    s = Session("u7000000-0000-4000-8000-000000000007")
    s.user("plan the export")
    s.assistant("Plan.", [("tu_p", "ExitPlanMode", {"plan": "1. add reportlab"})])
    s.result("tu_p", DENIAL + SAID + reason + NOTE, is_error=True, denial_kind="user-rejected")
    [signal] = _mine(s, "exit_plan_rejection")
    assert signal.text == reason
    assert signal.signal.confidence >= HIGH
    assert signal.signal.reasons == ("embedded_text", "substantive")


def test_a_rejection_with_no_listed_word_still_counts() -> None:
    # Structure is the gate: no word of this reason is in any list.
    reason = "把导出放到后台任务里做"
    assert not has_rejecting_words(reason) and not has_approving_words(reason)
    s = Session("u7100000-0000-4000-8000-000000000071")
    s.assistant("Plan.", [("tu_p", "ExitPlanMode", {"plan": "1. export inline"})])
    s.result("tu_p", DENIAL + SAID + reason + NOTE, is_error=True, denial_kind="user-rejected")
    [signal] = _mine(s, "exit_plan_rejection")
    assert signal.signal.confidence >= HIGH


@pytest.mark.parametrize("reason", ["这个计划很好，没问题", "Sieht gut aus, einverstanden",
                                    "looks great, ship it"])
def test_an_approval_in_any_language_is_noise(reason: str) -> None:
    s = Session("u7200000-0000-4000-8000-000000000072")
    s.assistant("Plan.", [("tu_p", "ExitPlanMode", {"plan": "1. lru"})])
    s.result("tu_p", DENIAL + SAID + reason + NOTE, is_error=True, denial_kind="user-rejected")
    [signal] = _mine(s, "exit_plan_rejection")
    assert signal.signal.confidence < NOISE_FLOOR
    assert signal.signal.reasons[-1] == "approving_words"


@pytest.mark.parametrize("reason", ["别删这个文件，先备份到 backup 目录",
                                    "Bitte nicht löschen, erst ein Backup machen"])
def test_a_denial_reason_in_any_language_is_high(reason: str) -> None:
    s = Session("u7300000-0000-4000-8000-000000000073")
    s.assistant(None, [("tu1", "Bash", {"command": "rm -rf data/"})])
    s.result("tu1", DENIAL + SAID + reason + NOTE, is_error=True, denial_kind="user-rejected")
    [signal] = _mine(s, "denial")
    assert signal.text == reason and signal.signal.confidence >= HIGH


def test_a_hedged_reason_is_one_band_down_in_any_language() -> None:
    s = Session("u7400000-0000-4000-8000-000000000074")
    s.assistant(None, [("tu1", "Bash", {"command": "npm i"})])
    s.result("tu1", DENIAL + SAID + "也许可以用 pnpm 来装这个依赖" + NOTE, is_error=True,
             denial_kind="user-rejected")
    [signal] = _mine(s, "denial")
    assert signal.signal.reasons == ("embedded_text", "substantive", "hedged")


def test_confidence_counts_unspaced_words_without_changing_latin_counts() -> None:
    assert word_count("no stop") == 2
    assert word_count("don't - do that") == 4  # as split()
    assert word_count("不要") == 1
    assert word_count("不要加新的依赖") == 4
    assert word_count("别用 mock") == 2


@pytest.mark.parametrize("reply", ["Стоп, вместо print используй модуль logging",
                                   "停，别跑整个测试套件只跑改过的"])
def test_an_interrupt_followed_by_a_correction_counts_in_any_language(reply: str) -> None:
    s = Session("u7500000-0000-4000-8000-000000000075")
    s.user("run the tests")
    s.assistant(None, [("tu_t", "Bash", {"command": "make test"})])
    s.result("tu_t", "[Request interrupted by user for tool use]", is_error=True)
    s.user("[Request interrupted by user for tool use]")
    s.user(reply)
    [signal] = _mine(s, "interrupt")
    assert signal.text == reply and signal.signal.reasons == ("bare_marker",)
    [message] = [x for x in _mine(s, "transcript_message") if x.text == reply]
    assert "short_followup" not in message.signal.reasons  # not "two words": split() saw one
