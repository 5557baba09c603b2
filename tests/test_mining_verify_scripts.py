"""Quote verification in every script: unspaced text, CJK punctuation, width drift."""

from __future__ import annotations

from learn.mining.verify import anchor_quote
from learn.textfold import fold_typography
from learn.textunits import word_count


def test_a_chinese_quote_is_counted_in_characters_not_as_one_word() -> None:
    assert word_count("给我一个脚本让我填写") == 5
    assert word_count("别用 mock") == 2
    assert word_count("别用mock") == 2
    assert word_count("테스트를 먼저 실행해") == 3  # Hangul is spaced: words are words
    assert word_count("don't use npm") == 4  # \w+ runs, as before
    assert anchor_quote("给我一个脚本让我填写", ["给我一个脚本让我填写"]).text == "给我一个脚本让我填写"


def test_a_quote_inside_a_longer_unspaced_sentence_is_found() -> None:
    turn = "好的，但是以后不要再用全局变量了，改成参数传进去。"
    assert anchor_quote("以后不要再用全局变量了", [turn]).text == "以后不要再用全局变量了"
    japanese = "それと、テストではモックを使わないでください。本物のDBで。"
    assert anchor_quote("テストではモックを使わないでください", [japanese]).text == (
        "テストではモックを使わないでください"
    )


def test_latin_words_keep_their_boundaries() -> None:
    assert anchor_quote("use bun", ["we reuse bundle files"]).reason == "too_short"
    assert anchor_quote("use bun now", ["we reuse bun nowhere"]).reason == "paraphrase"
    # a Latin word against a Han character is a boundary
    assert anchor_quote("mock 数据库连接", ["不要mock 数据库连接"]).text == "mock 数据库连接"


def test_a_quote_without_its_final_cjk_full_stop_is_the_whole_turn() -> None:
    turn = "不要直接推到主分支。"
    found = anchor_quote("不要直接推到主分支", [turn])
    assert found.text == "不要直接推到主分支"
    ended = anchor_quote("不要直接推到主分支。", [turn])
    assert ended.text == "不要直接推到主分支。"


def test_full_and_half_width_drift_is_forgiven_and_the_typed_characters_kept() -> None:
    turn = "不要改ＤＢ的schema，先问我！"
    got = anchor_quote("不要改DB的schema,先问我!", [turn])
    assert got.text == turn
    got = anchor_quote("不要改ＤＢ的schema，先问我", ["不要改DB的schema,先问我"])
    assert got.text == "不要改DB的schema,先问我"
    kana = anchor_quote("ﾃｽﾄを先に実行して", ["テストを先に実行してください"])
    assert kana.text == "テストを先に実行して"


def test_cjk_quotation_marks_fold_like_any_other() -> None:
    turn = "我说过「不要用 mock 测试数据库」了"
    assert anchor_quote('"不要用 mock 测试数据库"', [turn]).text == "不要用 mock 测试数据库"
    assert anchor_quote('我说过"不要用 mock 测试数据库"了', [turn]).text == turn
    # half a pair is widened to the whole pair, as with curly quotes
    assert anchor_quote('不要用 mock 测试数据库"了', [turn]).text == "「不要用 mock 测试数据库」了"


def test_a_short_directive_typed_alone_is_whole() -> None:
    assert anchor_quote("别用 mock", ["别用 mock"]).text == "别用 mock"
    assert anchor_quote("别用 mock", ["这个测试别用 mock 了吧"]).reason == "too_short"
    assert anchor_quote("不行", ["不行"]).reason == "too_short"


def test_spanish_and_other_scripts_sentence_marks() -> None:
    # ¡…! is a pair: a model that drops either half still gets the person's whole sentence
    assert anchor_quote("no uses mocks en los tests", ["¡No uses mocks en los tests!"]).text == (
        "¡No uses mocks en los tests!"
    )
    assert anchor_quote("no uses mocks", ["Vale. ¡No uses mocks! Gracias"]).text == "¡No uses mocks!"
    assert anchor_quote("no uses mocks en los tests!", ["¡No uses mocks en los tests!"]).text == (
        "¡No uses mocks en los tests!"
    )
    assert anchor_quote("не используй моки в тестах", ["Не используй моки в тестах."]).text == (
        "Не используй моки в тестах"
    )


def test_the_offset_map_survives_a_fold_that_changes_lengths() -> None:
    typed = "ｶﾞｲﾄﾞを読んで……ＯＫ？"
    folded = fold_typography(typed)
    assert folded.text == "ガイドを読んで…ok?"
    at = folded.text.index("ガイド")
    assert typed[slice(*folded.span(at, at + 3))] == "ｶﾞｲﾄﾞ"
    at = folded.text.index("…")
    assert typed[slice(*folded.span(at, at + 1))] == "……"
    at = folded.text.index("ok?")
    assert typed[slice(*folded.span(at, at + 3))] == "ＯＫ？"
