"""What a value is: a secret, a chosen password, or a placeholder standing for one.

Shared by the redaction rules (`redact`, `assignments`): the same value tests decide
whether `API_KEY=...`, `-p'...'` and `Passwort: ...` hold a secret, so `YOUR_API_KEY`,
`$DB_PASSWORD` and `os.environ["KEY"]` survive every rule alike.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Final

from learn.lazy import lazy_pattern
from learn.secret_fields import PASSWORD_NAME_RE as _PASSWORD_NAME_RE
from learn.secret_fields import SECRET_NAME_RE as _SECRET_NAME_RE
from learn.secret_fields import is_variable_ref

MARKER_PREFIX: Final = "[REDACTED:"


def marker(kind: str) -> str:
    return f"{MARKER_PREFIX}{kind}]"


# Names that announce a secret (`learn.secret_fields`: the session view reads them too).
SECRET_NAME_RE: Final = _SECRET_NAME_RE
PASSWORD_NAME_RE: Final = _PASSWORD_NAME_RE

# Below these, a value is a word or a placeholder, not a credential. Measured by
# eye on config files: real tokens are >=16 chars of >=2 character classes with
# ~4 bits/char; identifiers like `my_token_name` sit near 3.0 with one class.
MIN_SECRET_CHARS: Final = 12
MIN_ENTROPY_BITS: Final = 3.0
MIN_PASSWORD_CHARS: Final = 6
# Some vendors issue keys of digits only; a database id or a timestamp is shorter.
MIN_NUMERIC_KEY_DIGITS: Final = 16

def entropy(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def char_classes(value: str) -> int:
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )


# A value that stands for a secret without being one: `YOUR_API_KEY`, `<token>`,
# `xxxx`, `changeme`, `process.env.API_KEY`, `os.environ["KEY"]`, `settings.SECRET`.
_PLACEHOLDER_RE: Final = lazy_pattern(
    r"(?i)^(?:your|example|sample|dummy|fake|placeholder|insert|replace|put|enter)"
    r"[-_ ]|[-_](?:here|placeholder)$|^(?:changeme|change_me|redacted|secret|password|token|none|null"
    r"|nil|undefined|true|false|todo|tbd|xxx+|\.\.\.|…)$"
)
_REFERENCE_RE: Final = lazy_pattern(
    r"^(?:[A-Za-z_]\w*\.)*(?:env|environ|getenv|settings|config|secrets|vault|credentials|process"
    r"|self|this|ctx|context|args|opts|options|params|cfg|conf)(?:\.\w+)*(?:\.|\[|\(|$)|^ENV\[|\(\)?$"
)


_SUBSCRIPT_RE: Final = lazy_pattern(r"^[A-Za-z_][\w.]*\[")


def is_placeholder(value: str) -> bool:
    # An env reference, a template hole or a marker is not the secret itself.
    v = value.strip("\"'`")
    if is_variable_ref(v):
        return True  # `$DB_PASSWORD`, `${PW}`: a reference (a `$` password is not one)
    if v.startswith(("%", "<", "{", "[REDACTED", "*", "@", "/", "~/", "./")) or set(v) <= {"x", "X", "*", ".", "-", "_"}:
        return True  # a template hole, a marker, a path
    if _SUBSCRIPT_RE.match(v):
        return True  # `parts['password']`, `auth[1]`, `Optional[str]`: code, not a value
    return bool(_PLACEHOLDER_RE.search(v) or _REFERENCE_RE.search(v))


# `_pass`/`_pw` names say less than `password`: their value must look chosen, not be code.
_WEAK_PASSWORD_NAME_RE: Final = lazy_pattern(r"(?i)(?:^|_)(?:pass|pw)$")
# A dotted path or a snake_case name: code (`ihook.pytest_assertion_pass`, `saved_hooks`).
_DOTTED_RE: Final = lazy_pattern(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|^[a-z]+(?:_[a-z0-9]+)+$")
# The shell's working directories, not passwords.
_SHELL_DIRS: Final = frozenset({"PWD", "OLDPWD"})


def looks_secret(name: str, value: str) -> bool:
    # The name first: most assignments (`sort=name`, `a=b`) stop there, cheaply.
    if not SECRET_NAME_RE.search(name) or name in _SHELL_DIRS or is_placeholder(value):
        return False
    if PASSWORD_NAME_RE.search(name):
        if _WEAK_PASSWORD_NAME_RE.search(name) and (_DOTTED_RE.match(value) or not looks_chosen(value)):
            # `db_pass=hunter22` yes; `_assertion_pass = ihook.pytest_assertion_pass` and
            # `statements_pass: list` (code, in every library) no.
            return False
        return len(value) >= MIN_PASSWORD_CHARS
    if value.isdigit():  # a numeric key (`API_KEY=83749201847562019384`): ids are shorter
        return len(value) >= MIN_NUMERIC_KEY_DIGITS
    return (
        len(value) >= MIN_SECRET_CHARS
        and char_classes(value) >= 2
        and entropy(value) >= MIN_ENTROPY_BITS
    )


# Whether several words are a passphrase or a sentence about passwords ("Password:
# must be at least 12 characters"): a sentence has function words, a passphrase
# (random dictionary words) rarely does.
_FUNCTION_WORD_LIST: Final = (
    "a an the is are was were be been must should shall will would can could may might "
    "not no never always only also and or but if then than so to of in on at for by with "
    "from into about as it its this that these those there here we you they he she i me my "
    "our your their do does did have has had just every each all any some same one ones "
    "please use using set"
)
FUNCTION_WORDS: Final = frozenset(_FUNCTION_WORD_LIST.split())
_MAX_PASSPHRASE_WORDS: Final = 8
_PASSPHRASE_WORD_RE: Final = lazy_pattern(r"^[\w'’-]*[^\W\d_][\w'’-]*[.,;!?]?$")


def is_passphrase(value: str) -> bool:
    """`correct horse battery staple`, `Blue Horse 42x`: 2-8 words, none of them a
    function word, each holding a letter (`str | None = None` is code, not words)."""
    words = value.split()
    if not 2 <= len(words) <= _MAX_PASSPHRASE_WORDS or is_placeholder(value):
        return False
    if not all(_PASSPHRASE_WORD_RE.match(w) for w in words):
        return False
    return not any(w.lower().strip(".,;:!?\"'") in FUNCTION_WORDS for w in words)


def looks_chosen(value: str) -> bool:
    """A value shaped like a chosen password: long enough, and not one plain word."""
    return len(value) >= MIN_PASSWORD_CHARS and (
        char_classes(value) >= 2 or any(not c.isalnum() for c in value)
    )
