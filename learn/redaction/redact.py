"""Secret redaction: applied before any text is rendered for a model, cached, or stored.

Transcripts are full of secrets the user never meant to share with anyone: a
key pasted into a prompt to "just try it", an `.env` the agent cat'ed that then
failed, a database URL in a traceback. Everything learn sends to the model or
writes to disk goes through `redact` first, so a secret can leave the machine
only if no rule here recognises it.

Each secret is replaced by a stable marker (`[REDACTED:<kind>]`). Stable, not
random, because the same function runs over what the user typed (spoken text)
and over what the model saw (the rendered chunk): a quote that spans a redacted
key must still be found verbatim when it is checked. The function is
deterministic and idempotent (`redact(redact(x)) == redact(x)`): markers match
no rule, so text redacted when it was cached is unchanged when it is read back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Final

from learn.lazy import lazy_pattern
from learn.redaction.assignments import (
    ASSIGN_GATE,
    ASSIGN_RE,
    QUOTED_ASSIGN_RE,
    could_name_secret,
    sub_assignments,
)
from learn.redaction.gate_words import GatePlans, WordFinder
from learn.redaction.password_forms import PASSWORD_FORM_RULES
from learn.redaction.scanner import GATE_WORDS as SCANNER_GATE_WORDS
from learn.redaction.scanner import scanner_spans
from learn.redaction.secret_rules import CONTEXT_RULES, LABELLED_PASSWORD_RE, VENDOR_RULES
from learn.redaction.secret_values import (
    FUNCTION_WORDS,
    MARKER_PREFIX,
    entropy,
    is_passphrase,
    is_placeholder,
    looks_chosen,
    marker,
)
from learn.redaction.stdin_passwords import STDIN_RULES
from learn.render_version import REDACT_VERSION

__all__ = ["MARKER_PREFIX", "REDACT_VERSION", "marker", "redact", "redact_message"]

# REDACT_VERSION (learn.render_version, bumped there when the rules change) is part
# of the render version: cached mining answers are not reused across rule sets.

# (kind, pattern). Order matters: specific shapes before the generic assignment
# rule, so a key in `ANTHROPIC_API_KEY=sk-ant-…` is named for what it is.
_TOKEN_RULES: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    # A PEM block, or its head when an excerpt was cut before the END line: a
    # half key is still a key.
    (
        "private-key",
        lazy_pattern(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
            re.S,
        ),
    ),
    ("anthropic-key", lazy_pattern(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{16,}")),
    (
        "openai-key",
        lazy_pattern(r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ),
    ("github-token", lazy_pattern(r"\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}")),
    ("github-token", lazy_pattern(r"\bgithub_pat_[A-Za-z0-9_]{20,}")),
    ("gitlab-token", lazy_pattern(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("npm-token", lazy_pattern(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("huggingface-token", lazy_pattern(r"\bhf_[A-Za-z0-9]{34,}\b")),
    ("aws-access-key", lazy_pattern(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("slack-token", lazy_pattern(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("google-api-key", lazy_pattern(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("stripe-key", lazy_pattern(r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}")),
    # A crypt(3) hash as in /etc/shadow, htpasswd or a users table: md5-crypt,
    # bcrypt, sha256/512-crypt, yescrypt, scrypt, argon2. It stops at `:`, the
    # shadow field separator, so the user name and ageing fields stay. A hash
    # is as good as the password to anyone with a cracking rig.
    (
        "password-hash",
        lazy_pattern(
            r"(?<![\w$])\$(?:1|2[abxy]|5|6|7|y|gy|apr1|argon2(?:id|i|d)|sha1|md5)\$"
            # Not ending in `.` or `,`: that is the sentence's, not the hash's.
            r"[A-Za-z0-9./$=,+-]{15,}[A-Za-z0-9/$=+-]"
        ),
    ),
    (
        "jwt",
        lazy_pattern(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),
)

# Rules that keep a prefix (the name, the scheme and user) and replace only the value.
# `aws configure set aws_secret_access_key <key>` names it with a blank, not `=`.
_AWS_SECRET_RE: Final = lazy_pattern(
    r"(?i)(aws_secret_access_key[\"']?(?:\s*[:=]\s*|[ \t]+)[\"']?)(?!\[REDACTED)[A-Za-z0-9/+=]{40,}"
)
_BEARER_RE: Final = lazy_pattern(r"(?i)(\bbearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/-]{20,}=*")
# An Authorization header names its credential whatever its length, so any
# length counts here (`Bearer abc.def` too); a bare word ("an Authorization:
# Bearer header") or a `$TOKEN` reference is prose or a placeholder and stays.
_AUTH_HEADER_RE: Final = lazy_pattern(
    r"(?i)(\b(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?:(?:bearer|basic|token|bot|apikey|api-key|sso-key)[ \t]+)?)"
    r"(?!\[REDACTED)([^\s\"',;]+)"
)
# scheme://user:password@host (the user may be empty: redis://:pw@host); the
# password runs to the last `@` before the host, so `p@ss@host` loses `p@ss` whole
# (a password with an unescaped `@` is common, and stopping at the first left `ss`).
_URL_PASSWORD_RE: Final = lazy_pattern(
    r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@\[\]]*:)(?!\[REDACTED)([^\s/]+)(@)(?=[^\s@/]*[A-Za-z0-9\]])"
)
# scheme://token@host: a token as the user, no password (`git clone https://<token>@host`,
# GitHub's and GitLab's documented form). Only a user shaped like a token (see
# _url_token): `https://git@github.com`, `ssh://deploy-bot@host` are users.
_URL_TOKEN_USER_RE: Final = lazy_pattern(
    r"(\b[A-Za-z][A-Za-z0-9+.-]*://)(?!\[REDACTED)([A-Za-z0-9_.~-]{20,})(@)(?=[^\s@/]*[A-Za-z0-9\]])"
)
# A secret cut by a shell line continuation (`KEY=sk-proj-abc\` + newline + `def`): the
# rule that took the head left the tail in clear. The tail starts its line (a wrapped
# key, not an indented next argument) and ends at a blank or a quote. `\ ` too: an
# escaped blank, and a continuation in a call's one-line summary.
_CONTINUED_RE: Final = lazy_pattern(
    r"(\[REDACTED:[a-z0-9-]+\])\\(?:\r?\n| )(?![ \t-])[A-Za-z0-9_/+=.-]+(?=[\s\"'`;&|]|\Z)"
)
# Passwords on a command line: `mysql -pSECRET` (no space: `-p` alone prompts) and
# `sshpass -p SECRET`. (What is piped into a command that reads a password from stdin,
# `echo pw | sudo -S`, is learn.redaction.stdin_passwords'.)
_MYSQL_P_RE: Final = lazy_pattern(
    r"(\b(?:mysql(?:dump|admin|import|show|check)?|mariadb(?:-dump|-admin)?)\b[^\n|;&]*?[ \t]-p)"
    r"(?!\[REDACTED)([^\s\"']+|\"[^\"\n]*\"|'[^'\n]*')"
)
_SSHPASS_RE: Final = lazy_pattern(
    r"(\bsshpass[ \t]+-p[ \t]*)(?!\[REDACTED)([^\s\"']+|\"[^\"\n]*\"|'[^'\n]*')"
)
# `htpasswd -b[c|n|B...] [file] user password`: in batch mode (`-b`) the password is the
# last argument on the command line (without `-b` htpasswd prompts for it).
_HTPASSWD_RE: Final = lazy_pattern(
    r"\bhtpasswd\b(?P<args>(?:[ \t]+(?!(?:sudo[ \t]+)?htpasswd\b)(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s|;&<>'\"]+))+)")
_ARG_RE: Final = lazy_pattern(r"'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+")
# A bare AWS secret key beside its access key id ("AKIA… / wJalr…", a CLAUDE.md line):
# 40 characters of base64 within a line or two of the id, which an earlier rule has
# already replaced by its marker. An AWS secret mixes lower case, upper case and
# digits: a 40-character hex run (a commit) or one word is not it, and is not matched
# at all, since a match that is then kept as it was still takes the id with it. A
# commit before the id took it, and the key after the id was never redacted (found
# by tests/test_render_redact_corpus.py: "git checkout <sha> … AKIA… / <secret>").
_AWS_VALUE: Final = (
    r"(?<![A-Za-z0-9/+=])"
    r"(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[0-9])"
    r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
)
_AWS_PAIR_RE: Final = lazy_pattern(
    r"(?P<id>\[REDACTED:aws-access-key\])(?P<gap>[^\n]{0,160}?(?:\n[^\n]{0,160}?)?)"
    rf"(?P<val>{_AWS_VALUE})"
    rf"|(?P<val2>{_AWS_VALUE})"
    r"(?P<gap2>[^\n]{0,160}?(?:\n[^\n]{0,160}?)?)(?P<id2>\[REDACTED:aws-access-key\])"
)
# "my password is hunter2": only a value that looks like one (see _strong).
_PASSWORD_IS_RE: Final = lazy_pattern(
    r"(?i)(\b(?:password|passwd|passphrase|pwd)[ \t]+(?:is|was)[ \t]+[\"'`]?)(?!\[REDACTED)"
    r"([^\s\"'`]+?)(?=[\"'`]?(?:[.,;!?]?(?:\s|$)))"
)

# A password field holds the rest of its line, spaces and all ("Password:
# correct horse battery staple", "root passwd = two words"): the assignment
# rule would take the first word only and leave the rest in clear.
_PASSWORD_FIELD_RE: Final = lazy_pattern(
    r"(?im)(?P<head>\b(?:password|passwd|passphrase|pwd)[ \t\u00a0\u3000]*[:=：＝][ \t\u00a0\u3000]*)"
    r"(?P<val>[^\r\n]*?\S)[ \t]*$"
)
def _password_field(m: re.Match[str]) -> str:
    if not is_passphrase(m.group("val")):
        return m.group(0)
    return m.group("head") + marker("password")


def _auth_header(m: re.Match[str]) -> str:
    credential = m.group(2)
    if is_placeholder(credential) or re.fullmatch(r"[A-Za-z][a-z]*[`'\"]?", credential):
        return m.group(0)
    return m.group(1) + marker("authorization")


def _password_is(m: re.Match[str]) -> str:
    if not looks_chosen(m.group(2)) or is_placeholder(m.group(2)):
        return m.group(0)
    return m.group(1) + marker("password")


def _htpasswd(m: re.Match[str]) -> str:
    args = list(_ARG_RE.finditer(m.group("args")))
    flags = [a.group(0) for a in args if a.group(0).startswith("-")]
    values = [a for a in args if not a.group(0).startswith("-")]
    if not any("b" in f.lstrip("-") for f in flags if not f.startswith("--")):
        return m.group(0)  # no batch flag: htpasswd prompts, nothing here is the password
    wanted = 2 if any("n" in f.lstrip("-") for f in flags if not f.startswith("--")) else 3
    if len(values) < wanted or is_placeholder(values[wanted - 1].group(0)):
        return m.group(0)
    pw = values[wanted - 1]
    quote = pw.group(0)[0] if pw.group(0)[0] in "'\"" else ""
    start = m.start("args") - m.start() + pw.start()
    end = m.start("args") - m.start() + pw.end()
    whole = m.group(0)
    return whole[:start] + quote + marker("password") + quote + whole[end:]


def _aws_pair(m: re.Match[str]) -> str:
    # The value is one (_AWS_VALUE says what an AWS secret looks like).
    if m.group("val") is not None:
        return m.group("id") + m.group("gap") + marker("aws-secret-key")
    return marker("aws-secret-key") + m.group("gap2") + m.group("id2")


def _url_token(m: re.Match[str]) -> str:
    """A user part that is a token: digits among letters, random enough for a key
    (`ghp_…`, a 40-hex OAuth token, `Zq8vN2mK…`), not a name (`deploy-bot-2024`)."""
    user = m.group(2)
    digits = sum(c.isdigit() for c in user)
    if digits < 3 or digits == len(user) or entropy(user) < 3.3 or is_placeholder(user):
        return m.group(0)
    return m.group(1) + marker("token") + m.group(3)


def _keep_prefix(kind: str) -> Callable[[re.Match[str]], str]:
    def replace(m: re.Match[str]) -> str:
        if m.re.groups >= 2 and is_placeholder(m.group(2)):  # `-p${DB_PASSWORD}`, `u:$PW@h`
            return m.group(0)
        suffix = m.group(3) if m.lastindex and m.lastindex >= 3 else ""
        return m.group(1) + marker(kind) + suffix

    return replace


_PASSWORD_WORDS: Final = ("password", "passwd", "passphrase", "pwd")

# (words one of which a match must contain, lower-cased; rule; replacement), in order.
_GATED_RULES: Final[tuple[tuple[tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], str]], ...]] = (
    # First: the token and vendor rules before it have just made the head a marker.
    (("\\\n", "\\ "), _CONTINUED_RE, lambda m: m.group(1)),
    (("aws_secret_access_key",), _AWS_SECRET_RE, _keep_prefix("aws-secret-key")),
    (("authorization",), _AUTH_HEADER_RE, _auth_header),
    (("bearer",), _BEARER_RE, _keep_prefix("bearer-token")),
    (("://",), _URL_PASSWORD_RE, _keep_prefix("password")),
    (("://",), _URL_TOKEN_USER_RE, _url_token),
    (("mysql", "mariadb"), _MYSQL_P_RE, _keep_prefix("password")),
    (("sshpass",), _SSHPASS_RE, _keep_prefix("password")),
    # `echo pw | sudo -S`, `printf 'pw\\n' | chpasswd`, `sudo -S <<< pw`.
    *STDIN_RULES,
    (("htpasswd",), _HTPASSWD_RE, _htpasswd),
    # Its own marker too: a pass that took the id with a key before it leaves the next
    # pass (redact's fixed point) a key after it, and no AKIA left to open the gate.
    (("AKIA", "ASIA", "aws-access-key"), _AWS_PAIR_RE, _aws_pair),
    (_PASSWORD_WORDS, _PASSWORD_FIELD_RE, _password_field),
    (_PASSWORD_WORDS, _PASSWORD_IS_RE, _password_is),
    # A label with its value on the next line, a prompt's typed answer, a form encoded twice.
    *PASSWORD_FORM_RULES,
)


def _sentence(value: str) -> bool:
    """`'Password used to generate key'`: words with a function word among them."""
    words = value.split()
    return len(words) > 2 and any(w.lower().strip(".,;:!?") in FUNCTION_WORDS for w in words)


def _context_value(kind: str) -> Callable[[re.Match[str]], str]:
    """Replace whichever value group (`val`, `val2`, `val3`) matched, or the whole match."""

    def replace(m: re.Match[str]) -> str:
        names = [g for g in ("val", "val2", "val3") if g in m.re.groupindex and m.group(g) is not None]
        if not names:
            return marker(kind)
        value = m.group(names[0])
        if is_placeholder(value) or _sentence(value):
            return m.group(0)
        start, end = m.span(names[0])
        return m.string[m.start() : start] + marker(kind) + m.string[end : m.end()]

    return replace


def _labelled_password(m: re.Match[str]) -> str:
    """`Passwort: geheim123`, `密码：Abc123`: a value shaped like a password, or a lone
    word ending the line; `Passwort: muss lang sein` is a sentence and stays."""
    value = m.group("val")
    if is_placeholder(value):
        return m.group(0)
    end = m.string.find("\n", m.end())
    rest = m.string[m.end() : end if end >= 0 else len(m.string)]
    alone = not any(c.isalnum() for c in rest) and len(value) >= 4
    if not (looks_chosen(value) or alone):
        return m.group(0)
    start, stop = m.span("val")
    return m.string[m.start() : start] + marker("password") + m.string[stop : m.end()]


_CONTEXT_REPLACERS: Final = tuple(
    (gate, pattern, _context_value(kind)) for kind, pattern, gate in CONTEXT_RULES
)
_LABEL_GATE: Final = tuple(
    w for w in ("密", "口令", "passw", "kennw", "contrase", "clave", "пароль", "mot de passe", "mdp",
                "パスワード", "暗証", "비밀번호", "암호", "senha", "wachtw", "has", "ifre", "parola",
                "mật", "mat khau", "รหัส", "كلمة", "סיסמה", "पासवर्ड", "lösen", "adgangs", "passord",
                "salasana", "jelsz", "heslo", "κωδικ")
)


def _replace_spans(text: str, spans: list[tuple[int, int, str]]) -> str:
    out: list[str] = []
    pos = 0
    for start, end, kind in sorted(spans):
        if start < pos:  # overlapping finds: the first one already covers it
            continue
        out.append(text[pos:start])
        out.append(marker(kind))
        pos = end
    out.append(text[pos:])
    return "".join(out)


# What each token rule needs in the text before it runs (see _gate_words_in).
_TOKEN_GATES: Final[dict[str, tuple[str, ...]]] = {
    "private-key": ("private key",), "anthropic-key": ("sk-ant-",), "openai-key": ("sk-",),
    "github-token": ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"), "gitlab-token": ("glpat-",),
    "npm-token": ("npm_",), "huggingface-token": ("hf_",), "aws-access-key": ("AKIA", "ASIA"),
    "slack-token": ("xox",), "google-api-key": ("AIza",), "stripe-key": ("_live_", "_test_"),
    "password-hash": ("$",), "jwt": ("eyJ",),
}
_ALL_GATE_WORDS: Final = frozenset(
    [w for gate in _TOKEN_GATES.values() for w in gate]
    + [w for _, _, gate in VENDOR_RULES for w in gate]
    + [w for needles, _, _ in _GATED_RULES for w in needles]
    + [w for needles, _, _ in _CONTEXT_REPLACERS for w in needles]
    + list(_LABEL_GATE) + list(ASSIGN_GATE)
) | SCANNER_GATE_WORDS
# A word with capitals is looked for as written (`AKIA`, `AIza`), the others in the
# lower-cased text.
_CASED_GATE_WORDS: Final = tuple(w for w in _ALL_GATE_WORDS if w != w.lower())
_LOWER_GATE_WORDS: Final = tuple(w for w in _ALL_GATE_WORDS if w == w.lower())
_FIND_LOWER: Final = WordFinder(_LOWER_GATE_WORDS)
_FIND_CASED: Final = WordFinder(_CASED_GATE_WORDS)
# Every cased word holds one of the capitals `A`, `J`, `S` (checked here): a text with
# none of them holds no cased word and is not searched for one. Most turns have none
# (none of the spread bench home's 10,609 distinct turns): three scans in C against a
# call into the automaton, whose prefilter stops at every `e` (`eyJ`). callgrind:
# redacting those turns 0.90x the instructions.
if not all("A" in w or "J" in w or "S" in w for w in _CASED_GATE_WORDS):
    raise ValueError("a cased gate word holds none of A, J, S: widen _gate_words_in's test")


def _gate_words_in(text: str) -> frozenset[str]:
    """The gate words `text` contains (one regex pass: learn.redaction.gate_words). Each
    rule runs only when one of its words is here: finding the words is much cheaper
    than a regex scan per rule, and gating kept the ~80 rules from making redaction of
    a tool line 4x slower (measured on benchmarks/render.py: 0.77 s ungated against
    0.2 s for 20 MB of transcripts)."""
    # One frozenset of both finders' occurrences and the empty gate (a rule that always
    # runs), not a set of each joined: 0.3 µs less a text (timeit).
    if "A" in text or "J" in text or "S" in text:
        return frozenset([*_FIND_LOWER.occurrences(text.lower()), *_FIND_CASED.occurrences(text), ""])
    return frozenset([*_FIND_LOWER.occurrences(text.lower()), ""])


def _sub(pattern: re.Pattern[str], replace: str | Callable[[re.Match[str]], str]) -> Callable[[str], str]:
    return lambda text: pattern.sub(replace, text)


# learn's own rules in the order they run (gate words, step): token shapes, vendor
# prefixes, then the rules that keep a prefix, the context rules, the labels.
_STEPS_GATED: Final[tuple[tuple[tuple[str, ...], Callable[[str], str]], ...]] = (
    *((_TOKEN_GATES[kind], _sub(pattern, marker(kind))) for kind, pattern in _TOKEN_RULES),
    *((gate, _sub(pattern, marker(kind))) for kind, pattern, gate in VENDOR_RULES),
    *((needles, _sub(pattern, replace)) for needles, pattern, replace in _GATED_RULES),
    *((needles, _sub(pattern, replace)) for needles, pattern, replace in _CONTEXT_REPLACERS),
    (_LABEL_GATE, _sub(LABELLED_PASSWORD_RE, _labelled_password)),
)
_STEPS: Final = tuple(step for _, step in _STEPS_GATED)


def _by_gate_word(gated: Iterable[tuple[tuple[str, ...], object]]) -> dict[str, tuple[int, ...]]:
    """gate word -> the positions of the steps whose gate holds it, in order. One pass
    over the gates: asking each of the 289 words whether each of the 100 gates holds it
    was 5.9 ms of every import of this module, a listing's included (1% of the CPU of a
    first listing of 250 sessions)."""
    steps: dict[str, list[int]] = {}
    for i, (gate, _) in enumerate(gated):
        for word in dict.fromkeys(gate):  # a word twice in one gate: the step once
            steps.setdefault(word, []).append(i)
    return {word: tuple(at) for word, at in steps.items()}


# gate word -> the steps it lets run. A text reaches only the steps of the words it
# holds: checking all ~80 rules' gates on every text was a third of redacting a
# typical turn (issue 21's first scan redacts every human turn).
_STEPS_FOR: Final = _by_gate_word(_STEPS_GATED)


# The steps each set of gate words lets run, worked out once a set (`GatePlans`).
_steps_for = GatePlans(lambda: _STEPS_FOR).of


def redact(text: str) -> str:
    """`text` with every recognised secret replaced by `[REDACTED:<kind>]`."""
    # To a fixed point: one rule's match can hide another's (a vendor key run into the
    # `curl` after it, a command anchor consumed by the previous match), and what the
    # first pass leaves a second takes. A text with no secret costs one pass.
    for _ in range(_MAX_PASSES):
        once = _redact_once(text)
        if once == text:
            break
        text = once
    return text


_MAX_PASSES: Final = 4


def redact_message(text: str) -> str:
    """What learn writes about a failure (an error line, hook.log, the queue, a run's
    record): the credentials learn holds replaced by their value
    (learn.held_secrets), then every shape `redact` knows.

    Not part of `redact`: that is a function of the text alone (its memo, the cached
    mining answers keyed on REDACT_VERSION rely on it), and a session's turns pay
    nothing for a check that only an error needs. Held values go first, so a key
    that a shape rule would cut in two (its head a marker, its tail left) goes whole.
    Imported here, not at the top: `learn sessions` imports this module and never
    writes an error."""
    from learn.held_secrets import redact_held

    return redact(redact_held(text))


# How many characters of texts (given and redacted) the memo of `redactor` holds in
# one process before it starts again: ~60 MB of str at most, while a first listing of
# the 1,000-session tree home redacts 3,324 texts (2,133 distinct).
MEMO_CHARS: Final = 16_000_000
_memo: dict[str, str] = {}
_memo_chars = 0


def redactor() -> Callable[[str], str]:
    """`redact`, redacting each distinct text once in this process (up to MEMO_CHARS).

    One session repeats its texts (the same tool line, the same pasted prompt; the
    6 MB benchmark session's 2,795 texts are 1,459 distinct ones), its turns and its
    view hold the same texts, and sessions repeat each other's: in the 1,000-session
    tree home two thirds of the characters a first listing redacts are texts another
    session already had (a plugin's observer prompt, quoted again and again), 0.2 s
    of 0.31 s of redacting. `redact` is a function of the text alone, so a text's
    redaction holds for every session; the memo is bounded, not per session, so a
    long process keeps at most MEMO_CHARS characters in it."""
    return _remembered


def forget_redactions() -> None:
    """Empty `redactor`'s memo, as a process starts with it (a benchmark that times a
    repeat as a new process would run it)."""
    global _memo_chars
    _memo.clear()
    _memo_chars = 0


def _remembered(text: str) -> str:
    global _memo_chars
    got = _memo.get(text)
    if got is None:
        got = redact(text)
        size = len(text) + (len(got) if got is not text else 0)
        if _memo_chars + size > MEMO_CHARS:
            # Started again, not evicted one by one: the texts that repeat come back.
            _memo.clear()
            _memo_chars = 0
        if size <= MEMO_CHARS:
            _memo[text] = got
            _memo_chars += size
    return got


def _redact_once(text: str) -> str:
    if not text:
        return text
    # Gates are read on the text as given: a replacement only removes a secret (and
    # a marker's words find nothing, every rule skips `[REDACTED`).
    present = _gate_words_in(text)
    for step in _steps_for(present):
        text = _STEPS[step](text)
    # The maintained rule set after learn's own, so a value learn names (a URL's
    # password, a curl credential) keeps learn's kind.
    spans = [(a, b, k) for a, b, k in scanner_spans(text, present) if not is_placeholder(text[a:b])]
    if spans:
        text = _replace_spans(text, spans)
    if present.isdisjoint(ASSIGN_GATE) or not could_name_secret(text):
        return text
    text = sub_assignments(QUOTED_ASSIGN_RE, text)
    return sub_assignments(ASSIGN_RE, text)
