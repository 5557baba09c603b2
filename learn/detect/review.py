"""Turning review-format matches into ReviewComments."""

from __future__ import annotations

import re
from collections.abc import Iterator

from learn.detect.spec import CallableReviewFormat, RegexReviewFormat, ReviewComment, ReviewFormat


def _group(match: re.Match[str], key: str | int | None) -> str | None:
    if key is None:
        return None
    try:
        value = match.group(key)
    except IndexError:  # an unknown group name or number: the format cites nothing there
        return None
    return value if isinstance(value, str) else None


def _line(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


def _regex_comment(fmt: RegexReviewFormat, match: re.Match[str]) -> ReviewComment | None:
    parts = [_group(match, key) for key in fmt.comment_groups]
    comment = fmt.join.join(p.strip() for p in parts if p and p.strip())
    if not comment:
        return None
    start = _line(_group(match, fmt.line_start_group))
    end = _line(_group(match, fmt.line_end_group))
    file = _group(match, fmt.file_group)
    return ReviewComment(
        file=file.strip() if file else None, line_start=start, line_end=end, comment=comment
    )


def extract_comments(
    fmt: ReviewFormat, text: str, compiled: re.Pattern[str] | None = None
) -> Iterator[ReviewComment]:
    """Every comment `fmt` finds in `text`, in order."""
    pattern = compiled if compiled is not None else fmt.compile()
    for match in pattern.finditer(text):
        if isinstance(fmt, CallableReviewFormat):
            comment = fmt.extract(match)
        else:
            comment = _regex_comment(fmt, match)
        if comment is not None and comment.comment.strip():
            yield comment
