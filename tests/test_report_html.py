"""The HTML report: self-contained, escapes what the user typed, and its chart really draws
(checked in headless Chromium: the DOM the script writes, console errors, and pixels)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_report_digest import sample_result

from learn.records.proposal import Quote, RunResult
from learn.report import runs
from learn.report.html import _script_json, render_html
from learn.visible import hidden

CHROMIUM = next((p for name in ("chromium", "chromium-browser", "google-chrome")
                 if (p := shutil.which(name))), None)
if CHROMIUM is None and os.environ.get("LEARN_REQUIRE_CHROMIUM"):
    # CI installs Chromium and sets this: a missing browser there is a failure,
    # not a quiet skip.
    raise RuntimeError("LEARN_REQUIRE_CHROMIUM is set but no chromium is on PATH")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium on PATH (CI installs Debian's `chromium`; apt-get install -y chromium)")

HOSTILE = "</script><script>document.title='pwned'</script><img src=x onerror=alert(1)>"


def hostile_result() -> RunResult:
    r = sample_result()
    first = r.proposals[0]
    evil = dataclasses.replace(first, quotes=(*first.quotes, Quote("s8", HOSTILE, "2026-11-21")))
    return dataclasses.replace(r, proposals=(evil, *r.proposals[1:]))


def test_report_is_self_contained() -> None:
    page = render_html(sample_result())
    # The only URL in the page is the SVG namespace, which is a name, not a fetch.
    urls = set(re.findall(r"https?://[^\s'\"<>)]+", page))
    assert urls == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"\s(src|href)\s*=", page)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    for needle in ("use-uv-not-pip", "Use uv for every Python install", "session <code>s1</code>",
                   "2026-11-02", "$0.4200", "Verified occurrences", "Judged not worth a rule",
                   "Already written in <code>/p/CLAUDE.md</code>"):
        assert needle in page, needle


def test_user_text_is_escaped_in_markup_and_embedded_json() -> None:
    page = render_html(hostile_result())
    assert HOSTILE not in page
    assert "<img src=x" not in page
    # The embedded JSON cannot close its script element early.
    data = page.split('id="learn-data">', 1)[1].split("</script>", 1)[0]
    assert "</" not in data


def test_no_hidden_character_reaches_the_page_not_even_in_its_data() -> None:
    """A bidi override or an escape in a quote or a label shows nowhere: the markup has a
    space for it (learn.visible), and the embedded JSON, read as a file's text, its \\u
    escape (the same data for the page's script)."""
    r = sample_result()
    first = r.proposals[0]
    evil = dataclasses.replace(first, label="use uv \u202eyadot",
                               quotes=(*first.quotes, Quote("s9", "pip \x1b[8m hid \u202e", "2026-11-22")))
    page = render_html(dataclasses.replace(r, proposals=(evil, *r.proposals[1:])))
    assert "\u202e" not in page and "\x1b" not in page
    value = {"quote": "a \u202eb \x9b2J \U000e0041 </script>"}
    data = _script_json(value)
    assert not any(hidden(c) for c in data) and "</" not in data
    assert json.loads(data) == value


def test_report_command_writes_file(tmp_path: Path) -> None:
    from learn.commands.report import command

    runs.set_proposal_loader(lambda since, project, every_state: sample_result())
    try:
        out = tmp_path / "r.html"
        res = CliRunner().invoke(command, ["--out", str(out)])
        assert res.exit_code == 0, res.output
        assert out.read_text().startswith("<!doctype html>")
        assert out.stat().st_mode & 0o777 == 0o600
    finally:
        runs.set_proposal_loader(None)


def test_report_command_without_a_run_says_so_and_writes_nothing(tmp_path: Path) -> None:
    from learn.commands.report import command

    # No session learn can read in this project, so nothing to show: not a failure (exit
    # 0, docs/usage.md), and no empty report is written.
    res = CliRunner().invoke(command, ["--out", str(tmp_path / "r.html"),
                                       "--project", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "no run has anything to show here" in res.output and "nothing written" in res.output
    assert not (tmp_path / "r.html").exists()


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
           "--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000", *args]
    # Its own session, so a hung browser is killed with its zygote and GPU children
    # instead of outliving the test.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("chromium did not finish in 120 s (about 1 s normally): machine overloaded?")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines()
            if "Uncaught" in line or ("CONSOLE" in line and "ERROR" in line.upper())]


@needs_chromium
def test_chart_draws_in_headless_chromium(tmp_path: Path) -> None:
    result = hostile_result()
    page = tmp_path / "report.html"
    page.write_text(render_html(result), encoding="utf-8")
    url = page.as_uri()

    dom = _chromium(tmp_path, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert not _console_errors(dom.stderr), _console_errors(dom.stderr)
    chart = re.search(r'<div id="chart"[^>]*>', dom.stdout)
    assert chart is not None
    assert 'data-chart-ready="1"' in chart.group(0)
    # One dot per (proposal, day) with dated quotes.
    expected = sum(len({q.at[:10] for q in p.quotes if q.at}) for p in result.proposals)
    assert f'data-points="{expected}"' in chart.group(0)
    assert dom.stdout.count("<circle") == expected + 3  # + the three legend dots
    assert "<title>pwned" not in dom.stdout and "<title>learn report</title>" in dom.stdout

    shot = tmp_path / "shot.png"
    run = _chromium(tmp_path, "--window-size=1100,900", f"--screenshot={shot}", url)
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    width, height, pixels = _decode_png(shot.read_bytes())
    assert (width, height) == (1100, 900)
    # The directive dots are the only orange on the page above the cards' fold: count them.
    orange = sum(1 for (r, g, b) in pixels if r > 200 and 60 < g < 120 and b < 60)
    blue = sum(1 for (r, g, b) in pixels if r < 60 and 90 < g < 140 and b > 170)
    assert orange > 300, f"chart dots not drawn (orange pixels: {orange})"
    assert blue > 100, f"fix dots not drawn (blue pixels: {blue})"


def _decode_png(data: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Just enough PNG (8-bit RGB/RGBA, non-interlaced) to count pixels without Pillow."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    height = depth = ctype = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
    assert depth == 8 and ctype in (2, 6), (depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), width * bpp
    prev, i = bytearray(stride), 0
    out: list[tuple[int, int, int]] = []
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.extend((line[x], line[x + 1], line[x + 2]) for x in range(0, stride, bpp))
        prev = line
    return width, height, out


@needs_chromium
def test_a_broken_script_is_caught_by_these_checks(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # Negative control: the checks above must fail when the chart script throws.
    from learn.report import html

    monkeypatch.setattr(html, "JS", html.JS.replace("var series=data.series",
                                                    "var series=data.nope.series"))
    page = tmp_path / "broken.html"
    page.write_text(render_html(sample_result()), encoding="utf-8")
    dom = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert _console_errors(dom.stderr)
    assert 'data-chart-ready="error"' in dom.stdout


def test_empty_run_and_undated_quotes_render() -> None:
    from learn.records.proposal import Funnel, RunUsage

    empty = RunResult(proposals=(), funnel=Funnel(candidates=3, points=3, below_threshold=3),
                      usage=RunUsage(sessions_seen=5, sessions_mined=5))
    page = render_html(empty)
    assert "Nothing to propose." in page and "3 verified occurrences in 3 groups" in page
    assert "unknown window" in page
    r = sample_result()
    undated = dataclasses.replace(r.proposals[0], quotes=(Quote("s1", "no date", None),))
    page = render_html(dataclasses.replace(r, proposals=(undated,)))
    assert "undated" in page
    assert '"points": []' in page.split('id="learn-data">', 1)[1]
