"""The digest and the HTML report laid out for wide characters (issue 19)."""

from __future__ import annotations

import dataclasses

from test_report_digest import sample_result

from learn.records.proposal import Quote
from learn.report.digest import render_digest_markdown
from learn.report.html import render_html
from learn.report.proposal_lines import QUOTE_CHARS
from learn.report.words import flatten
from learn.textunits import cut_to_width, display_width

ZH = "生成的文件不要手改，改了会被 codegen 覆盖"


def test_display_width_counts_wide_characters_twice() -> None:
    assert display_width("use bun") == 7
    assert display_width("别用 mock") == 9
    assert display_width("ＤＢ") == 4
    assert display_width("e\u0301") == 1
    assert display_width("테스트") == 6


def test_cutting_counts_columns_and_keeps_marks_with_their_letter() -> None:
    assert cut_to_width("use bun not npm", 8) == "use bun…"  # as before for ASCII
    cut = cut_to_width("不要" * 30, 11)
    assert cut == "不要不要不…" and display_width(cut) <= 11
    assert cut_to_width("cafe\u0301 now", 6) == "cafe\u0301…"


def test_a_long_chinese_quote_is_cut_at_the_same_width_as_an_english_one() -> None:
    limit = QUOTE_CHARS["directive"]
    english = flatten("x " * 400, limit)
    chinese = flatten(ZH * 40, limit)
    assert display_width(english) <= limit and display_width(chinese) <= limit
    assert display_width(chinese) > limit - 2  # cut near the limit, not at half of it
    assert len(chinese) < len(english)


def _with_chinese_quote() -> object:
    r = sample_result()
    first = r.proposals[0]
    zh = dataclasses.replace(first, quotes=(*first.quotes, Quote("s9", ZH, "2026-11-21T09:00:00Z")))
    return dataclasses.replace(r, proposals=(zh, *r.proposals[1:]))


def test_the_digest_keeps_the_persons_characters() -> None:
    r = sample_result()
    zh = dataclasses.replace(r.proposals[0], text=ZH)
    md = render_digest_markdown(dataclasses.replace(r, proposals=(zh, *r.proposals[1:])))
    assert f'"{ZH}"' in md


def test_the_html_report_marks_the_language_of_cjk_quotes() -> None:
    page = render_html(_with_chinese_quote())  # type: ignore[arg-type]
    assert f'<blockquote lang="zh">“{ZH}”' in page
    assert "overflow-wrap:anywhere" in page
    assert '<blockquote lang="' not in page.replace(f'<blockquote lang="zh">“{ZH}”', "")
