"""Passwords written where no `name=value` rule sees them: prompts and encoded forms.

Passwords planted as people paste them from a terminal or a browser's network tab went
through in clear in three forms (each pinned by tests/test_render_redact_password_forms.py,
which failed on all of them before): a label ending its line with the value alone on
the next (`Password:` newline `Hunter2Secret9`, as a note or a YAML scalar lays it out),
the prompt of `sudo` or `git` with what was typed after it (`[sudo] password for bob:
Swordfish42!`), and a form body or query percent-encoded a second time
(`…%26password%3DSwordfish42`: `=` and `&` are `%3D` and `%26`, so the assignment rule
saw one long word). (`sudo -S <<< 'pw'` went through too: learn.redaction.stdin_passwords
has it, beside `echo pw | sudo -S`; a GCP key's `private_key_id` is a context rule, in
learn.redaction.secret_rules.)

What follows a label on the next line is as often the prose or the code it introduces
(`Password:` then "we should rotate it next week", a YAML `password:` then
`  secretKeyRef:`), so a prompt's value is one word shaped like a chosen password
(`secret_values.looks_chosen`), and on the next line that word alone on its line; on
2.85 M lines of installed libraries' code, docs and config it changed none. Only after
a label that is its line's whole text is a plain word or a few words taken
(`Password:` then `correct horse battery staple`, `Passwort:` then `geheimnis`), and
not a sentence, a list, a heading, a schema's word, a status or a command's result
(`Permission denied`, `PASSED`, `expired`: _STATUS_WORD_LIST says how); that rule, too, changed none of
those 2.85 M lines nor of 11.3 M lines of /usr (code, docs, config, Perl, HTML).

Each rule is (words one of which the lower-cased text must contain, pattern,
replacement), in the shape of `redact._GATED_RULES`, which runs them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final
from urllib.parse import unquote

from learn.lazy import lazy_pattern
from learn.redaction.secret_rules import PASSWORD_LABELS
from learn.redaction.secret_values import (
    FUNCTION_WORDS,
    MIN_PASSWORD_CHARS,
    is_passphrase,
    is_placeholder,
    looks_chosen,
    looks_secret,
    marker,
)

_LABEL: Final = r"(?:password|passwd|passphrase|pwd)"
# What a prompt names the account with: `bob`, `'https://bob@github.com'`.
_FOR_WHOM: Final = r"(?:[ \t]+for[ \t]+(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s:'\"]+))"

# A label ending its line (whatever comes before it on the line, Markdown bold around
# it), and on the next line one word alone, indented or quoted or not: a YAML scalar
# continued on its next line is written so too.
_NEXT_LINE_RE: Final = lazy_pattern(
    r"(?i)" + _LABEL + _FOR_WHOM + r"?[ \t]*(?:\*\*)?[ \t]*[:=：＝][ \t]*(?:\*\*)?[ \t]*\r?\n[ \t]*[`'\"]?"
    r"(?P<val>[^\s`'\"]+)[`'\"]?[ \t]*(?=\r?\n|\Z)"
)
# `[sudo] password for bob: Swordfish42!`, `Password for 'https://bob@host': …`: the
# word typed after a prompt (as `password: <word>` is taken whatever follows it).
_PROMPT_RE: Final = lazy_pattern(
    r"(?i)\b" + _LABEL + _FOR_WHOM + r"[ \t]*:[ \t]*(?P<val>[^\s`'\"]+)"
)
# What the next line holds when it is the code or config a label introduced: a YAML
# key (`secretKeyRef:`), a list item or flag, a comment, a bracket, a statement's end
# or a call (`makeHash();`), a dotted or snake_case name (`auth.py`, `os.environ`,
# `get_password`), a URL.
_NOT_A_VALUE_RE: Final = lazy_pattern(
    r"^[-#(\[{<]|[:;,]$|\(\)|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|^[a-z]+(?:_[a-z0-9]+)+$|://"
)


def _prompted(m: re.Match[str]) -> str:
    """The value replaced when it reads as a typed password, else the match as it was."""
    value = m.group("val")
    if not looks_chosen(value) or is_placeholder(value) or _NOT_A_VALUE_RE.search(value):
        return m.group(0)
    return m.string[m.start() : m.start("val")] + marker("password") + m.string[m.end("val") : m.end()]


# A label that is its line's whole text (`Password:`, `pw:`, `token:`, `Passwort:`, `Mot
# de passe :`, bold or not), and on the next line a short value: one word or a few,
# plain ones too (`correcthorsebatterystaple`, `correct horse battery staple`), which
# _NEXT_LINE_RE (one word shaped like a password, after a label anywhere on its line)
# leaves. A line that is only the label is a note's or a form's, not code's (`if
# password:`) nor prose's (`the admin password:`), so what follows it is read as a
# value unless it is the sentence, list, heading, YAML key, status or output it
# introduces.
_ALONE_LABELS: Final = ("password", "passwd", "passphrase", "pwd", "pw", "token", *PASSWORD_LABELS)
_MAX_ALONE_CHARS: Final = 64
_MAX_ALONE_WORDS: Final = 5
# Found by the colon that ends a line (a pattern opening with the labels at a line's
# start was 0.07 s on the 712 of 61,858 chunks of installed libraries whose gate opens,
# this one 0.015 s), the label read back from there (_label_alone). The value may not
# end in a colon: the next label line is no value, and a match that took it as one
# would hide it from the match after.
_LABEL_ALONE_RE: Final = lazy_pattern(
    r"[:：][ \t]*(?:\*\*)?[ \t]*\r?\n[ \t]*(?P<q>[`'\"]?)"
    r"(?P<val>[^\s`'\"][^\r\n`]{0," + str(_MAX_ALONE_CHARS - 1) + r"}?)(?<![:：])(?<![:：]\*\*)"
    r"(?P=q)[ \t]*(?=\r?\n|\Z)"
)
_ALONE_LABEL_SET: Final = frozenset(_ALONE_LABELS)
# One word taken alone: letters and digits, `_`, `-`, `'` (a word with other signs in it
# is _NEXT_LINE_RE's, which knows code from a password: `isempty(x)`, `0.0640`, `end.`).
_PLAIN_WORD_RE: Final = lazy_pattern(r"^[\w'’-]+$")
_NOT_PASSPHRASE_RE: Final = lazy_pattern(r"[,'\"]|\s\s")
# Its gate: the label and its colon (one blank before it, as French writes it), as a
# lower-cased text holds them; the pattern takes no other spacing, so the gate is exact.
_ALONE_GATE: Final = tuple(f"{w}{sep}" for w in _ALONE_LABELS for sep in (":", " :", "："))
# The first word of a sentence written to someone (`See the vault`, `Ask ops`), beside
# the function words (`The`, `I`, `Please`, `Use`, `If`).
_SENTENCE_START_LIST: Final = (
    "see ask check enter type leave provide contact refer read find get stored saved kept "
    "generated copy paste look run go same none not n/a tbd todo note"
)
_SENTENCE_STARTS: Final = frozenset(_SENTENCE_START_LIST.split())
# Words of what a schema, a signature or a docstring puts under a label (`string`,
# `required`, `Authentication token`), not of a password: one of them keeps the line.
_DESCRIBING_WORD_LIST: Final = (
    "string str bytes text integer int number float boolean bool object array list dict "
    "optional required default hidden masked empty blank unset unknown omitted nullable "
    "sensitive encrypted deprecated return raise continue break pass password passwords "
    "passwd token tokens key keys secret secrets api auth authentication credential "
    "credentials user username login account vault env environment variable file config "
    # a docstring's sections, and the keywords a line of code opens with
    "parameters returns yields raises examples example notes attributes arguments options "
    "usage description import from yield def class lambda assert await async print const "
    "let var function export echo del global nonlocal else elif "
    # a rule the value must keep to (`minimum eight characters`)
    "minimum maximum min max characters chars length"
)
_DESCRIBING_WORDS: Final = frozenset(_DESCRIBING_WORD_LIST.split())
# What a plain word under a label is when it is no password: the label's state or a
# command's result (`Password:` then `Permission denied`, `PASSED`; `token:` then
# `expired`, `Bearer`; `Mot de passe :` then `Oublié`), or code (`valueFrom`).
#
# The rule: a passphrase (several words) of lower-case words is taken, since people
# type a passphrase in lower case. A capitalised one (`Correct horse battery staple`,
# `Blue Sky Falling`) is taken only in the narrower shape of _CAPITALISED_PASSPHRASE_RE,
# since output, headings, notes and a login form's labels capitalise too (`Access
# granted`, `Fixed reset flow`, `LastPass entry`, `Remember me`, `Sign in`). One word is
# taken when it is a plain word of MIN_PASSWORD_CHARS or more (capitalised too:
# `Swordfish`, a note's real password) unless it is
#   - one of these status or result words (in any case: `PASSED`, `Expired`),
#   - all capitals, letters only (output shouts: `PASSED`, `DENIED`, `NONE`),
#   - a camelCase or PascalCase identifier, letters only (`valueFrom`, `secretKeyRef`,
#     `LastPass`; `Hunter2Secret9`, with digits, is a password, taken by _NEXT_LINE_RE).
# Neither takes a word of this list or of _DESCRIBING_WORD_LIST, even in a passphrase.
_STATUS_WORD_LIST: Final = (
    "denied granted allowed forbidden passed failed failure fails succeeded success "
    "successful ok okay error errors enabled disabled expired expires expiring revoked "
    "changed updated rotated reset unset removed deleted created generated saved stored "
    "accepted rejected verified unverified confirmed locked unlocked active inactive "
    "pending done skipped invalid valid incorrect wrong bearer basic authorized "
    "unauthorized authenticated unauthenticated none null nil true false yes unknown "
    "missing forgotten forgot protected redacted hashed shown visible shared "
    # what a login, ssh or su prints under its prompt (`Connection refused`, `Try again`)
    "refused closed timed timeout aborted cancelled canceled interrupted terminated "
    "exceeded again retry mismatch weak sent received "
    # the same in the languages PASSWORD_LABELS lists
    "oublié oublie vergessen falsch ungültig gültig olvidada olvidado olvidé inválida "
    "inválido incorrecta incorrecto esquecida esquecido esqueci dimenticata "
    "dimenticato errata errato sbagliata vergeten ongeldig geldig"
)
_STATUS_WORDS: Final = frozenset(_STATUS_WORD_LIST.split())
# A capitalised passphrase: three to five words of letters, three or more each, each
# in lower case or with one capital in front, and none of them a function word, a
# sentence's first word, a status, a describing word or one of _NOTE_WORDS. Why so
# narrow: under a label alone on its line, capitalised words are far more often what a
# program, a page or a note put there than a password. Two words are kept whatever
# they are (`Shared drive`, `Remember me`, `Sign in`, `Next steps`, `Connection
# refused`: a login form's label, a heading or a result is one or two words, a
# passphrase as people make one is three or more); a word of capitals (`ACCESS DENIED`,
# `SSH Key`) or digits, a comma or a final `.`, `!`, `?` or `:` (`Sorry, try again.`)
# is output's or a sentence's; a word of two letters is a function word (`in`, `me`,
# `by`, `to`: `Stay signed in`, `Connection closed by peer`). Measured on 16.9 M lines
# (installed libraries, /usr/share/doc, man pages, /usr/lib/python3): it and the status
# words added with it changed nothing, but a label alone above capitalised words is
# rare there (4 times, all man pages' shell lines), so the output and login-page lines
# it must keep are pinned by tests/test_render_redact_password_forms.py instead.
_CAPITALISED_PASSPHRASE_RE: Final = lazy_pattern(r"^[A-Z]?[a-z]{2,}(?: [A-Z]?[a-z]{2,}){2,4}$")
# Words of a note saying where a password is, or of a login form or a heading, that a
# capitalised line under the label holds (`Company wiki page`, `Keep password hidden`,
# `Create new account`): one keeps a capitalised passphrase's line.
_NOTE_WORD_LIST: Final = (
    "team company office wiki page drive folder channel slack email mail chat sheet "
    "spreadsheet doc docs document notion confluence jira ticket bitwarden lastpass "
    "keepass keychain onepassword sign signed signing log logged logging remember keep "
    "stay show hide submit cancel help new current old confirm change create welcome "
    "setup settings reference section step steps next previous back login logout "
    "click press tap here below above via per"
)
_NOTE_WORDS: Final = frozenset(_NOTE_WORD_LIST.split())
# A camelCase or PascalCase name: letters only, a capital after a small letter.
_IDENTIFIER_RE: Final = lazy_pattern(r"^[A-Za-z]*[a-z][A-Z][A-Za-z]*$")
# What the next line holds when it is output, a prompt or Markdown: a shell or REPL
# prompt (`$ `, `> `, `>>>`, `PS C:\>`), a heading, a list item, a table row, a fence.
_OUTPUT_OR_MARKUP_RE: Final = lazy_pattern(
    r"^(?:[$>%#]\s|>>>|\.\.\.|PS [A-Za-z]:|[#*+|=!]|\d+[.)]\s|~~~)|[?!:]$"
)


def _is_capitalised_passphrase(value: str, bare: list[str]) -> bool:
    """Whether capitalised words under a label alone are a passphrase, not what a
    program, a page or a note put there (_CAPITALISED_PASSPHRASE_RE says how)."""
    return _CAPITALISED_PASSPHRASE_RE.match(value) is not None and not any(
        w in FUNCTION_WORDS or w in _SENTENCE_STARTS or w in _NOTE_WORDS for w in bare
    )


def _label_alone(m: re.Match[str]) -> str:
    """The value on the line after a label alone on its own line, unless it reads as the
    prose, output or code the label introduced (see _STATUS_WORD_LIST for the rule)."""
    text = m.string
    label = text[text.rfind("\n", 0, m.start()) + 1 : m.start()].strip(" \t*").lower()
    if label not in _ALONE_LABEL_SET:
        return m.group(0)
    value = m.group("val").strip()
    words = value.split()
    if (
        len(words) > _MAX_ALONE_WORDS
        or is_placeholder(value)
        or _NOT_A_VALUE_RE.search(value)
        or _OUTPUT_OR_MARKUP_RE.search(value)
        or words[0].lower() in FUNCTION_WORDS
        or words[0].lower() in _SENTENCE_STARTS
    ):
        return m.group(0)
    bare = [w.lower().strip(".,;!\"'") for w in words]
    if any(w in _DESCRIBING_WORDS or w in _STATUS_WORDS for w in bare):
        return m.group(0)
    if len(words) > 1:
        # A passphrase is words and single blanks: no list (`a, b`), quotes or columns,
        # no sentence's end; capitalised, only in _CAPITALISED_PASSPHRASE_RE's shape.
        if (
            value.endswith(".")
            or _NOT_PASSPHRASE_RE.search(value)
            or not is_passphrase(value)
            or (value != value.lower() and not _is_capitalised_passphrase(value, bare))
        ):
            return m.group(0)
    elif (
        len(value) < MIN_PASSWORD_CHARS
        or not _PLAIN_WORD_RE.match(value)
        or _IDENTIFIER_RE.match(value)
        or (value.isalpha() and value.isupper())
    ):
        return m.group(0)
    kind = "token" if label == "token" else "password"
    return text[m.start() : m.start("val")] + marker(kind) + text[m.end("val") : m.end()]


# A form body or query encoded once more (inside another parameter, a redirect URL, a
# logged request): `%26` is `&`, `%3F` is `?`, `%3D` is `=`. Found by its `%3D` (a
# literal the regex engine looks for fast: a pattern opening with the name's
# boundary was 0.2 s on 4 MB of code, where `%3d` is a format), then the name is read
# back from there: it starts after one of those or a boundary (`bypass%3D` is no
# `pass`). The value runs to the next `%26` or anything a URL ends at.
_ENCODED_VALUE_RE: Final = lazy_pattern(r"(?i)%3D(?P<val>(?:%(?!26)[0-9A-F]{2}|[^\s&%\"'<>#;,\\])+)")
_ENCODED_NAME_RE: Final = lazy_pattern(
    r"(?i)(?:(?<=%26)|(?<=%3f)|(?<![A-Za-z0-9_.%-]))"
    r"(?:[A-Za-z0-9]+[_.-])*(?:password|passwd|passphrase|pwd|pass|pw)\Z"
)
# The longest name read back (`x_…_password`): a bound on the look back.
_ENCODED_NAME_CHARS: Final = 64


def _encoded_field(m: re.Match[str]) -> str:
    name = _ENCODED_NAME_RE.search(m.string, max(0, m.start() - _ENCODED_NAME_CHARS), m.start())
    # Decoded before it is judged: `%24PW` is `$PW`, a variable, and stays.
    if name is None or not looks_secret(name.group(0), unquote(m.group("val"))):
        return m.group(0)
    return m.group(0)[:3] + marker("password")


_PASSWORD_WORDS: Final = ("password", "passwd", "passphrase", "pwd")

PASSWORD_FORM_RULES: Final[tuple[tuple[tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], str]], ...]] = (
    (_PASSWORD_WORDS, _NEXT_LINE_RE, _prompted),
    (_PASSWORD_WORDS, _PROMPT_RE, _prompted),
    (_ALONE_GATE, _LABEL_ALONE_RE, _label_alone),
    (("%3d",), _ENCODED_VALUE_RE, _encoded_field),
)
