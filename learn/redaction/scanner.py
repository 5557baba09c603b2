"""The maintained rule set: detect-secrets' vendor detectors, run beside learn's own rules.

detect-secrets (Yelp; the scanner most pre-commit setups use) keeps a rule per vendor
(AWS, Azure storage, GitHub, GitLab, Slack, Stripe, Twilio, SendGrid, Mailchimp, npm,
PyPI, Telegram, Discord, IBM, SoftLayer, Cloudant, Artifactory, OpenAI, JWT, private
keys, basic-auth URLs); when it learns a vendor, learn does too. Only its regex
detectors are used. Left out, and why (measured on the secrets corpus in
tests/test_redact_corpus.py):
- the keyword and high-entropy detectors: they flagged `YOUR_API_KEY` and would take
  every commit sha, UUID and checksum; learn's own assignment rule, which looks at the
  name *and* the value, does that job (`redact._looks_secret`);
- the public-IP detector: an address is not a credential and is evidence in a traceback.
Alone, the library found 27 of the issue's 51 planted secrets, and 13 of the 47 kinds in
tests/secrets_corpus.py (it detects a private key by its header and leaves the body; it
has no rule for SQL or shell passwords, webhooks, signatures or most AI vendors). learn's
rules take all 47; the library adds the vendors learn has no rule of its own for
(Mailchimp, Square, IBM, SoftLayer, Cloudant, Artifactory, Discord bot tokens, ...).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any, Final

from learn.redaction.gate_words import GatePlans

# Detectors whose findings are not secrets in a transcript (see above).
_LEFT_OUT: Final = frozenset({"KeywordDetector", "Base64HighEntropyString", "HexHighEntropyString",
                              "IPPublicDetector"})
# Words one of which a text must contain for a detector to run (matched against the
# lower-cased text, or the text itself for a word with capitals): a
# substring test costs ~1% of a regex scan, and npm's pattern (`//.+/:_authToken=`)
# is quadratic on a long line (0.3 s on 120 KB). A detector not listed (one a newer
# release adds) always runs.
_GATES: Final[dict[str, tuple[str, ...]]] = {
    "artifactory-credentials": ("AKC", "AP"),
    "aws-access-key": ("A3T", "ABIA", "ACCA", "AKIA", "ASIA", "aws"),
    "azure-storage-account-access-key": ("accountkey",),
    "basic-auth-credentials": ("://",),
    "cloudant-credentials": ("cl_", "cl-", "clapi", "clkey", "clpw", "clpass", "cltoken", "clou"),
    # Its token holds two dots (`[MNO]...{23,25}\.{6}\.{27}`): it ran on every text.
    "discord-bot-token": (".",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "gitlab-token": ("gl", "gr1348941"),
    # IBM's keyword rules also match a bare `api_key = <44 chars>`: learn's own
    # assignment rule takes those; gated on the vendor they cost 0.5 s per 2.4 MB less.
    "ibm-cloud-iam-key": ("ibm", "iam", "cloud"),
    "ibm-cos-hmac-credentials": ("ibm", "cos", "hmac"),
    "json-web-token": ("eyj",),
    "mailchimp-access-key": ("-us",),
    "npm-tokens": ("_authtoken",),
    "openai-token": ("t3blbkfj",),
    "private-key": ("private key", "putty", "ssh2 encrypted"),
    "pypi-token": ("pypi-",),
    "sendgrid-api-key": ("sg.",),
    "slack-token": ("xox", "hooks.slack"),
    "softlayer-credentials": ("softlayer", "sl_", "sl-", "slapi", "slkey", "slpw", "slpass", "sltoken"),
    "square-oauth-secret": ("sq0csp-",),
    "stripe-access-key": ("k_live_",),
    "telegram-bot-token": (":",),
    "twilio-api-key": ("AC", "SK"),
}
# A pattern (as written: another release's is not listed) that matches only a text
# holding a character twice, and that character: Discord's token holds two dots, and
# its gate, one dot, let it run on nearly every text (10,602 of the 1,000-session
# spread home's 10,609 distinct turns, 1,259 of them with two dots). Counting the dots
# first took its 15 ms of regex over those turns to 2 ms.
_TWICE: Final[dict[str, str]] = {
    r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}": ".",
}
# Characters a detector's pattern may take around the value (its delimiters).
_EDGES: Final = " \t\r\n\"'=:,;`"


_Detector = tuple[str, tuple[re.Pattern[str], ...], tuple[str, ...]]
# (kind, ((pattern, flags), ...), gate): a detector before its patterns are compiled.
_Source = tuple[str, tuple[tuple[str, int], ...], tuple[str, ...]]


@cache
def _sources() -> tuple[_Source, ...]:
    """(kind, patterns, gate) of every regex detector the installed library has, the
    patterns as source: each detector's are compiled when a text's gate words first
    call on it (`_patterns`). Compiling all 45 took ~7 ms in `learn show`, whose turns
    call on a few (issue 32).

    From learn.redaction.scanner_snapshot when the installed release is the one it was
    taken from: importing detect_secrets costs ~0.1 s of CPU (it pulls in requests
    and urllib3 for its verifiers), a third of what `learn show` may take (issue 21).
    Any other release is read live."""
    from learn.redaction.scanner_snapshot import DETECTORS, VERSION

    if installed_version() == VERSION:
        return tuple((kind, patterns, _GATES.get(kind, ("",))) for kind, patterns in DETECTORS)
    return tuple((kind, tuple((p.pattern, int(p.flags)) for p in patterns), gate)
                 for kind, patterns, gate in live_detectors())


@cache
def _patterns(i: int) -> tuple[re.Pattern[str], ...]:
    """The compiled patterns of the `i`th detector of `_sources()`."""
    return tuple(re.compile(p, f) for p, f in _sources()[i][1])


def _detectors() -> tuple[_Detector, ...]:
    """(kind, patterns, gate) of every regex detector, compiled."""
    return tuple((kind, _patterns(i), gate) for i, (kind, _, gate) in enumerate(_sources()))


def _forget() -> None:
    """Read the detectors again on next use (tests that change the installed release)."""
    _sources.cache_clear()
    _patterns.cache_clear()
    _by_gate_word.cache_clear()
    _plans.clear()
    _runs.cache_clear()


def installed_version() -> str | None:
    """The installed detect-secrets release, read from its `__version__.py` without
    importing the package (None when it is not installed)."""
    import importlib.util
    from pathlib import Path

    try:
        spec = importlib.util.find_spec("detect_secrets")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        text = (Path(next(iter(spec.submodule_search_locations))) / "__version__.py").read_text(encoding="utf-8")
    except OSError:
        return None
    found = re.search(r"""VERSION\s*=\s*['"]([^'"]+)['"]""", text)
    return found.group(1) if found else None


def live_detectors() -> tuple[_Detector, ...]:
    """(kind, patterns, gate) of every regex detector, from the library itself."""
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.plugins.base import RegexBasedDetector
    except ImportError:  # a broken install: learn's own rules still run
        return ()
    out: list[_Detector] = []
    mapping: dict[str, type[Any]] = dict(get_mapping_from_secret_type_to_class())
    for secret_type, cls in sorted(mapping.items()):
        if cls.__name__ in _LEFT_OUT or not issubclass(cls, RegexBasedDetector):
            continue
        kind = re.sub(r"[^a-z0-9]+", "-", str(secret_type).lower()).strip("-")
        out.append((kind, tuple(cls().denylist), _GATES.get(kind, ("",))))
    return tuple(out)


def snapshot_source() -> str:
    """The text of learn/redaction/scanner_snapshot.py for the installed release
    (tests/test_render_scanner_snapshot.py checks the file against it)."""
    lines = [
        '"""detect-secrets\' regex detectors as `scanner.live_detectors` reads them: generated, do not edit.',
        "",
        "Regenerate after upgrading detect-secrets:",
        "    .venv/bin/python -c 'from learn.redaction.scanner import snapshot_source as s; "
        "print(s(), end=\"\")' > learn/redaction/scanner_snapshot.py",
        "Used only while the installed release is VERSION (scanner._detectors).",
        '"""',
        "",
        "from typing import Final",
        "",
        f"VERSION: Final = {installed_version()!r}",
        "# (kind, ((pattern, flags), ...))",
        "DETECTORS: Final[tuple[tuple[str, tuple[tuple[str, int], ...]], ...]] = (",
    ]
    for kind, patterns, _ in live_detectors():
        lines.append(f"    ({kind!r}, (")
        lines.extend(f"        ({p.pattern!r}, {int(p.flags)})," for p in patterns)
        lines.append("    )),")
    lines.append(")")
    return "\n".join(lines) + "\n"


GATE_WORDS: Final = frozenset(w for gate in _GATES.values() for w in gate) | {""}


def scanner_spans(text: str, present: frozenset[str]) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every value the library's detectors find in `text`;
    `present`: the gate words `text` contains (see redact.gate_words_in)."""
    found: list[tuple[int, int, str]] = []
    # Only the detectors of the words present, in their own order: testing every
    # detector's gate on every text was half of redacting a typical turn (issue 21).
    for kind, pattern, twice in _runs(_plans.of(present)):
        if twice is not None and text.count(twice) < 2:
            continue
        for match in pattern.finditer(text):
            start, end = _secret_span(match)
            # Trim the delimiters a detector takes around the value.
            while start < end and text[start] in _EDGES:
                start += 1
            while end > start and text[end - 1] in _EDGES:
                end -= 1
            if end - start >= 8 and "[REDACTED" not in text[start:end]:
                found.append((start, end, kind))
    return found


_Run = tuple[str, re.Pattern[str], str | None]
# A plan's detectors as they run, by plan: (kind, pattern, the character its match
# holds twice or None), each pattern compiled when a plan first asks for it. Looked up,
# not rebuilt for each text from `_sources()`, `_patterns` and `_TWICE` (nearly every
# text runs Discord's detector): 0.6x the time of the scanner's share of redacting the
# spread home's turns. As bounded as `_plans`, whose plans are its keys.
@lru_cache(maxsize=4096)
def _runs(plan: tuple[int, ...]) -> tuple[_Run, ...]:
    detectors = _sources()
    return tuple((detectors[i][0], pattern, _TWICE.get(pattern.pattern))
                 for i in plan for pattern in _patterns(i))


@cache
def _by_gate_word() -> dict[str, tuple[int, ...]]:
    """gate word -> the positions in `_detectors()` of the detectors it lets run."""
    words = {w for _, _, gate in _sources() for w in gate}
    return {w: tuple(i for i, (_, _, gate) in enumerate(_sources()) if w in gate) for w in words}


# The detectors each set of gate words lets run, worked out once a set (`GatePlans`).
_plans = GatePlans(_by_gate_word)


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The secret in a detector's match: its longest group when that is value-sized
    (a keyword rule's `name = "(value)"`), else the whole match (GitHub's `(ghp|gho)_...`
    groups only the prefix)."""
    best = (match.start(), match.end())
    longest = 0
    for n in range(1, (match.re.groups or 0) + 1):
        if match.group(n) and match.end(n) - match.start(n) > longest:
            longest = match.end(n) - match.start(n)
            if longest >= 8:
                best = match.span(n)
    return best
