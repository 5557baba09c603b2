"""What an agent's question asks for: a password, a key, or nothing.

A value the person typed in answer to the agent is a secret only because of the
question (learn.secret_answers reads the reply). This reads the question: whether it
asks for a password, passphrase, PIN, key, token, secret or credential, by a verb of
asking ("What is the database password?", "Enter your API key"), by naming the secret
in a question that is not put as yes or no ("Password for the reporting user?"), or by
a numbered item of a list of questions.

A leaf module (it imports nothing of learn's): the session view reads it while it
builds the typed turns.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final, NamedTuple

__all__ = ["NUMBERED_RE", "asks_for", "last_question", "numbered", "question_names"]

# What a question asks for when it asks for a secret, in the languages of
# render/secret_rules.PASSWORD_LABELS plus the English words for keys and tokens.
_ASKS_PASSWORD: Final = (
    r"(?i)\b(?:password|passphrase|passwd|passcode|pass\s*phrase|pin(?:\s*code)?|2fa|otp"
    r"|one[\s-]*time\s*code)\b"
    r"|密码|密碼|口令|パスワード|비밀번호|пароль|passwort|kennwort|contraseña|mot de passe|senha"
    r"|wachtwoord|hasło|şifre|parola|clave\s+de\s+acceso"
)
# A key or token: the reply must also look like one (see _looks_like_key), since
# "Which token format?" is answered "JWT".
_ASKS_KEY: Final = (
    r"(?i)\b(?:secret|api[\s_-]*key|access[\s_-]*key|secret[\s_-]*key|private[\s_-]*key"
    r"|license[\s_-]*key|token|credentials?|key)\b"
    r"|clé|schlüssel|zugangsdaten|clave|chave|credenciales|credenciais|identifiants|jeton"
)
NUMBERED_RE: Final = re.compile(r"^[ \t]*(?:\*\*)?(\d{1,2})[.)][ \t]*(?:\*\*)?[ \t]*(.*)$", re.M)
# A question that asks for the value itself ("What is the password?", "Enter your API
# key"), not about it ("Should I add password reset?", answered "please").
_ASKING: Final = (
    r"(?i)\b(?:what|what's|whats|which|enter|provide|give|share|send|type|paste|tell|need|supply"
    r"|input|set|choose|pick"
    # A request put politely or as a need: "Could you let me know the admin password?",
    # "The deploy needs your sudo password to continue." (the audit's misses).
    r"|providing|sharing|sending|let\s+me\s+know|could\s+you|can\s+you|would\s+you)\b"
    # A need stated near the thing needed, not any "missing" or "required" in the agent's
    # prose ("I will keep this in mind: export GITHUB_TOKEN=<token>" asks for nothing).
    r"|\b(?:needs|needed|requires?|required|without|missing)\s+(?:\S+\s+){0,3}?"
    r"(?:\S*(?:password|passphrase|passcode|token|key|secret|credential)|pin\b)"
    r"|教えて|入力|请|請|提供|输入|輸入|告诉|多少|什么|bitte|geben|angeben|introduce|proporciona|cuál|quel"
    r"|какой|введите|укажите|입력|알려"
    r"|lautet|brauche|benötige|nenn|welche|\bwas\s+ist|\bcual\b|necesito|\bdime\b|\bdame\b"
    r"|\bindica\b|\bqual\b|preciso|\binforme\b|\bpassa\b|besoin|\bdonne|indique|fourni"
)
# A question that is only the noun ("Password?", "DB password?"), on the message's last
# line: it asks too.
_BARE_QUESTION_WORDS: Final = 3


@cache
def _question_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The three above, compiled when a reply to a question is first read: most
    processes read none, and compiling them was ~2-5 ms of every `learn show`."""
    return re.compile(_ASKING), re.compile(_ASKS_PASSWORD), re.compile(_ASKS_KEY)


def asks_for(question: str) -> str | None:
    """"password", "key" or None: what kind of secret `question` asks for."""
    asking, asks_password, asks_key = _question_patterns()
    last = question.strip().rsplit("\n", 1)[-1].strip()
    if not asking.search(question) and not (
            last.endswith(("?", "？")) and len(last.split()) <= _BARE_QUESTION_WORDS):
        # No verb of asking: the question may still ask by naming the secret.
        named = question_names(question)
        return named[0] if named is not None and named[1] else None
    if asks_password.search(question):
        return "password"
    if asks_key.search(question):
        return "key"
    return None


# A question asks for the secret it names, whatever its verb. An audit found replies
# kept in clear after "Password for the reporting user?", "And the password for the
# read-only reporting user?", "Do you have the password for the staging box?", "The
# admin password, please?" and "How about the VPN password?": none has a verb of
# `_ASKING`. So the last sentence that ends in a question mark (its clause after a
# colon) asks for a password, passphrase, PIN, secret, token, key or credential it
# names, unless it is put as yes or no or asks about the secret:
# - it opens (after "and", "so", "ok," ...) with an auxiliary or modal verb ("Should I
#   reset the password?", "Did the password change work?", "Is the password stored in
#   .env?"), with "want", "mind", "ok to" ("Want me to rotate the token?"), or with a
#   bare verb proposing an action ("Rotate the token too?");
# - except "do you have/know/remember", "have you got", "can/could/may I have/get":
#   the polite form of a request, so those ask ("Do you have the password for ...?");
# - it opens with how/where/when/why/who ("Where is the password stored?", "How long
#   should the token live?"), but "how about the VPN password?" asks;
# - the name is a modifier of another noun ("a password manager", "the token expiry").
# A question put as a statement ("The token expired?") is read as asking: the reply
# is redacted only if shaped like a value, so a wrong "asks" costs a word such as
# "absolutely", where a wrong "does not ask" costs the secret. A question that names
# a secret without asking for it still gets a lone reply shaped like a chosen value
# (`_lone_value`). Yes/no openers are English; in other languages a question that
# names a password asks (the side that keeps the secret).
_QUESTION_END: Final = r"[?？][*_`)\]\"'’”]*(?=\s|$)"
_SENTENCE_START: Final = r"(?:[.!?;。！？][*_`)\]\"'’”]*\s|\n)"
_FILLER: Final = (
    r"(?:[\s*_>#`\-•(\"'“]+|\d{1,2}[.)]\s"
    r"|(?:and|also|so|then|now|but|plus|lastly|finally|next|oh|btw|great|thanks|perfect"
    r"|(?:ok|okay|alright|cool|fine)(?!\s+(?:to|if|with)\b))\b[\s,]*)+")
_YES_NO: Final = (
    r"(?:is|are|was|were|am|do|does|did|have|has|had|can|could|shall|should|will|would"
    r"|may|might|must|ought|want|wanna|mind|isn't|aren't|wasn't|weren't|don't|doesn't"
    r"|didn't|haven't|hasn't|hadn't|can't|couldn't|shouldn't|won't|wouldn't"
    r"|(?:ok|okay|alright|all\s+right|fine|safe|good|cool)\s+(?:to|if|with)"
    r"|any\s+objections?|how(?!\s+about)|where|when|why|who|whom|whose|how's|where's|when's"
    r"|who's|why's"
    # A bare verb proposing an action on the secret.
    r"|rotate|reset|regenerate|renew|refresh|revoke|change|update|remove|delete|drop|store"
    r"|save|keep|use|reuse|add|commit|push|export|move|copy|rename|encrypt|hash|generate"
    r"|create|disable|enable|require|test|check|verify|validate|try|retry|skip|include"
    r"|exclude|hardcode|log|mask|hide|clear|unset|replace|fix|leave|stick)\b")
_REQUEST: Final = (
    r"(?:do|does|would|will|can|could)\s+(?:you|u|anyone|someone|somebody)\s+"
    r"(?:(?:still|already|also|maybe|perhaps|happen\s+to|by\s+any\s+chance)\s+)*"
    r"(?:have|know|remember|recall|got)\b(?!\s+(?:if|whether|why|how|where|when|who|that)\b)"
    r"|(?:can|could|may|might)\s+(?:i|we)\s+(?:(?:please|also|just)\s+)*"
    r"(?:have|get|grab|borrow|see)\b"
    r"|(?:have|has)\s+(?:you|anyone|someone|somebody)\s+got\b")
# The nouns a secret's name modifies when the question is about something else.
_ABOUT_NOUNS: Final = frozenset(
    ["manager", "managers", "reset", "resets", "policy", "policies", "rotation", "change",
     "changes", "expiry", "expiration", "length", "format", "field", "fields", "prompt",
     "requirement", "requirements", "rule", "rules", "strength", "file", "files", "path",
     "store", "storage", "scope", "scopes", "permission", "permissions", "lifetime", "ttl",
     "type", "provider", "flow", "name", "id", "endpoint", "url", "variable", "env", "login",
     "authentication", "auth", "hashing", "hash", "complexity", "settings", "setting"])
_NEXT_WORD: Final = r"[\s-]*([a-z]+)"


# A question sentence is read from at most this many characters before its mark: an
# agent's message can run to many kilobytes, and this is read for each value-shaped reply.
_QUESTION_CHARS: Final = 400


class _Sentence(NamedTuple):
    end: re.Pattern[str]
    start: re.Pattern[str]
    filler: re.Pattern[str]
    yes_no: re.Pattern[str]
    request: re.Pattern[str]
    next_word: re.Pattern[str]


@cache
def _sentence_patterns() -> _Sentence:
    """The patterns above, compiled on the first question read this way: ~2.5 ms that a
    process reading no such question (most of them) would pay at import."""
    return _Sentence(*(re.compile(p) for p in (
        _QUESTION_END, _SENTENCE_START, _FILLER, _YES_NO, _REQUEST, _NEXT_WORD)))


def question_names(question: str) -> tuple[str, bool] | None:
    """(kind, whether it asks) for the secret the last sentence ending in a question
    mark names, or None when it names none (see the rule above)."""
    patterns = _sentence_patterns()
    end = _last_question_end(question, patterns.end)
    if end < 0:
        return None
    start = max(0, end - _QUESTION_CHARS)
    for m in patterns.start.finditer(question, start, end):
        start = m.end()
    sentence = question[start:end].casefold().replace("’", "'")
    kind = _names(sentence, patterns.next_word)
    if kind is None:
        return None
    # "Last question: should I reset the password?" opens at its clause.
    clause = sentence.rsplit(": ", 1)[-1]
    filler = patterns.filler.match(clause)
    if filler:
        clause = clause[filler.end() :]
    return kind, patterns.request.match(clause) is not None or patterns.yes_no.match(clause) is None


def _last_question_end(text: str, ends: re.Pattern[str]) -> int:
    """Where the last question mark that ends a sentence is ("?token=" in a URL does
    not), or -1."""
    # Each mark found once, from the end: taking the later of a fresh search for each
    # kind at every step re-read the whole text for the kind not in it, quadratic on a
    # message of many `?` that end no sentence (1 MB: 5 s).
    marks = {"?": text.rfind("?"), "？": text.rfind("？")}
    while True:
        mark = "?" if marks["?"] >= marks["？"] else "？"
        at = marks[mark]
        if at < 0 or ends.match(text, at):
            return at
        marks[mark] = text.rfind(mark, 0, at)


def _names(sentence: str, next_word: re.Pattern[str]) -> str | None:
    """"password" or "key": the secret `sentence` (casefolded) names, not as the modifier
    of another noun ("password manager"); a password before a key."""
    _, asks_password, asks_key = _question_patterns()
    for kind, pattern in (("password", asks_password), ("key", asks_key)):
        for m in pattern.finditer(sentence):
            after = next_word.match(sentence, m.end())
            if after is None or after.group(1) not in _ABOUT_NOUNS:
                return kind
    return None


def numbered(text: str) -> dict[str, str]:
    """{number: the item's text, continuation lines included} of a numbered list."""
    items: dict[str, str] = {}
    matches = list(NUMBERED_RE.finditer(text))
    for n, m in enumerate(matches):
        end = matches[n + 1].start() if n + 1 < len(matches) else len(text)
        items.setdefault(m.group(1), text[m.start(2) : end])
    return items


def last_question(question: str) -> str:
    """The asking part of an agent message: its last paragraph that ends in `?`, else all."""
    paragraphs = [p for p in re.split(r"\n\s*\n", question) if p.strip()]
    for p in reversed(paragraphs):
        if "?" in p or "？" in p:
            return p
    return question
