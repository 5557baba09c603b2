"""A password typed in answer to the agent, in the words people use: with words around
it, on any line, after a question or a statement of need in English, German, Spanish,
Portuguese or French. The privacy audit (/tmp/audit3/probe_answers.py) found 15 of 19
such replies kept in clear; the person's own words around the value stay."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.fidelity.writers import Chain, claude_path

from learn.secret_answers import MARKER, redact_answer
from learn.transcripts.parser import parse
from learn.transcripts.view.session import build_session

PW = "Ans-Pw-" + "1001x"
CHOSEN = "Hunter2" + "Secret9"
KEY = "a8F3kL9zQ2" + "mX7vB1nR4t"
ASKED = "What is the staging database password?"


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        (f"here you go: {PW}", "here you go: "),
        (f"{PW} (it's the staging one, don't commit it)", " (it's the staging one, don't commit it)"),
        (f"it's {PW}", "it's "),
        (f"use {CHOSEN}", "use "),
        (f"it is {CHOSEN} - don't commit it", " - don't commit it"),
        (f"sure, {CHOSEN}.", "sure, "),
        (f"ok so {CHOSEN}! thanks", "ok so "),
        (f"try `{CHOSEN}` please", "try `"),
        (f"the password is {PW}, the user is admin", ", the user is admin"),
    ],
)
def test_a_password_among_the_replys_words_is_replaced_and_the_words_stay(answer: str, kept: str) -> None:
    out = redact_answer(ASKED, answer)
    assert PW not in out and CHOSEN not in out
    assert MARKER in out and kept in out


def test_a_password_on_any_line_of_a_reply_is_replaced() -> None:
    out = redact_answer(ASKED, f"{CHOSEN}\nand the user is admin")
    assert out == f"{MARKER}\nand the user is admin"
    out = redact_answer(ASKED, f"ok, the user is admin\nand the password: {PW}\nthanks")
    assert out == f"ok, the user is admin\nand the password: {MARKER}\nthanks"


def test_a_short_password_right_after_is_or_a_colon_is_replaced() -> None:
    short = "hunt" + "er22"
    assert redact_answer(ASKED, f"it's {short}") == f"it's {MARKER}"
    assert redact_answer(ASKED, f"pw: {short} for now") == f"pw: {MARKER} for now"


@pytest.mark.parametrize(
    "question",
    [
        "Could you let me know the admin password?",
        "Mind sharing the DB password?",
        "Password?",
        "DB password?",
        "I'm connecting to the staging database now.\n\nPassword?",
        "I need the sudo password to continue.",
        "The deploy needs your sudo password to continue.",
        "I can't connect without the root password.",
        "Can you share the API token?",
        "Please send me the credentials for the staging box.",
        "Wie lautet das Passwort für den Server?",
        "Ich brauche das Passwort für den Server.",
        "¿Cuál es la contraseña?",
        "Necesito la contraseña del servidor.",
        "Qual é a senha?",
        "Qual é a senha do banco?",
        "Preciso da senha do banco.",
        "Quel est le mot de passe ?",
        "J'ai besoin du mot de passe du serveur.",
        "服务器的密码是多少？",
    ],
)
def test_a_question_or_need_naming_a_password_is_read_as_asking(question: str) -> None:
    assert redact_answer(question, CHOSEN) == MARKER
    assert redact_answer(question, f"here you go: {CHOSEN}") == f"here you go: {MARKER}"


@pytest.mark.parametrize(
    "question",
    [
        "What's the API key for the staging environment?",
        "Quelle est la clé API ?",
        "¿Cuál es la clave de la API?",
        "Qual é a chave da API?",
        "Wie lautet der API-Schlüssel?",
        "Can you share the API token?",
    ],
)
def test_a_key_with_words_around_it_is_replaced(question: str) -> None:
    assert redact_answer(question, KEY) == MARKER
    assert redact_answer(question, f"here it is {KEY} thanks") == f"here it is {MARKER} thanks"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (ASKED, "use the one in 1Password"),
        (ASKED, "don't put passwords in the repo, use env vars"),
        (ASKED, "I'll type it myself"),
        (ASKED, "no, skip that step"),
        (ASKED, "run npm test first"),
        (ASKED, "it's in config/secrets.yml, read it from there"),
        (ASKED, "use $DB_PASSWORD from .env.staging"),
        (ASKED, "it's the same as on db.internal.example.com:5432"),
        (ASKED, "install python3.11 first, then ask again"),
        (ASKED, "wait, I'll check\nand get back to you"),
        ("Could you let me know the admin password?", "I'll type it myself in the terminal"),
        ("I need the sudo password to continue.", "don't use sudo, use the docker group"),
        ("Wie lautet das Passwort für den Server?", "Das gebe ich selbst ein."),
        ("What port should it use?", "8080"),
        ("What port should it use?", f"use {CHOSEN}"),  # no secret was asked for
        ("Which branch should I deploy?", f"deploy {PW} please"),
        ("Should I rotate the API token now?", f"yes, and name it {PW}"),
    ],
)
def test_a_reply_that_gives_no_secret_keeps_its_words(question: str, answer: str) -> None:
    assert redact_answer(question, answer) == answer


def test_the_audits_replies_are_gone_from_the_session_view(tmp_path: Path) -> None:
    sid = "00000000-0021-4000-8000-0000000000ac"
    c = Chain(sid, cwd=str(tmp_path))
    c.user("connect to staging", parent=False)
    c.assistant("I need to connect to the staging database. What is the database password?")
    c.user(f"here you go: {PW}")
    c.assistant("Could you let me know the admin password for the dashboard?")
    c.user(CHOSEN)
    c.assistant("Wie lautet das Passwort für den Server?")
    c.user(f"{KEY}\ndas ist das alte")
    c.assistant("What's the password for the staging Redis?")
    c.user(f"{PW} (it's the staging one, don't commit it)")
    c.assistant("What port should Redis use?")
    c.user("6380 like before")
    path = c.write(claude_path(tmp_path, sid, str(tmp_path)))
    typed = [t.text for t in build_session(parse(path)).human_turns]
    assert typed == [
        "connect to staging",
        f"here you go: {MARKER}",
        MARKER,
        f"{MARKER}\ndas ist das alte",
        f"{MARKER} (it's the staging one, don't commit it)",
        "6380 like before",
    ]


def _chosen_words_word_by_word(answer: str) -> list[tuple[int, int]]:
    """The plain reading `_chosen_words` must agree with: every word, in order, the
    word before it remembered (the module reads only words with a digit or symbol)."""
    import re

    from learn import secret_answers as sa

    spans: list[tuple[int, int]] = []
    previous = ""
    for m in re.finditer(r"\S+", answer):
        token = m.group()
        word = token.lstrip(sa._LEADING)
        quoted = len(word) < len(token)
        start = m.start() + len(token) - len(word)
        word = word.rstrip(sa._TRAILING)
        headed = (m.start() == 0 or answer[m.start() - 1] == "\n" or quoted
                  or previous.endswith((":", "="))
                  or previous.casefold().strip(sa._LEADING + sa._TRAILING) in sa._VALUE_HEADS)
        if word and sa._chosen(word, headed):
            spans.append((start, start + len(word)))
        previous = token
    return spans


def test_chosen_words_agree_with_reading_every_word() -> None:
    import random

    from learn.secret_answers import _chosen_words

    pieces = [*"abcXYZ019!#$%&*+=@^|~\\<>[]{}`'\"().,;:?-/_ \n\t\u00a0é",
              "password: ", "it's ", "use ", "Hunter2Secret9", "key=", "python3.11",
              "$DB_PW", "[REDACTED:x]", "\r\n", "２０２６"]
    rng = random.Random(7)
    for _ in range(20_000):
        answer = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        assert _chosen_words(answer) == _chosen_words_word_by_word(answer), repr(answer)


def test_the_quick_search_misses_no_reply_with_a_chosen_word() -> None:
    """`_could_answer` reads a reply's words only when `_VALUE_CHAR_RE` finds a character
    that trimming leaves: it must find one in every reply `_chosen_spans` takes a word of,
    and none in a reply whose only symbols are a tag's brackets."""
    import random

    from learn import secret_answers as sa

    # What makes a bracket a word's own or trimmed: an opener is never trimmed from the
    # end, a closer never from the start.
    assert not set(sa._OPENERS) & set(sa._TRAILING)
    assert not set(sa._CLOSERS) & set(sa._LEADING)
    pieces = [*"abcXYZ019!#$%&*+=@^|~\\<>[]{}`'\"().,;:?-/_ \n\t\u00a0é",
              "password: ", "it's ", "Hunter2Secret9", "<summary>", "abcdefg", "２０２６"]
    rng = random.Random(11)
    taken = 0
    for _ in range(50_000):
        answer = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        if next(sa._chosen_spans(answer), None) is not None:
            taken += 1
            assert sa._VALUE_CHAR_RE.search(answer), repr(answer)
    assert taken > 1_000  # the property was tried on many replies that have one
    for answer in ("Write one <summary> element, as before.", "see [notes] and {this}",
                   "<tag> done"):
        assert sa._VALUE_CHAR_RE.search(answer) is None, answer
    for answer in ("the pw is abc<def9", "try Hunter!Secret", "key{x}yz", "x]abcdef"):
        assert sa._VALUE_CHAR_RE.search(answer), answer


# A question asks for the secret it names, whatever its verb: an audit found the replies
# to these kept in clear, since none has a verb of asking (`_ASKING`).
NAMED_ASKS = [
    "And the password for the read-only reporting user?",
    "Password for the reporting user?",
    "Do you have the password for the staging box?",
    "The admin password, please?",
    "How about the VPN password?",
    "OK. And the sudo password for the build host?",
    "Do you know the admin password for Grafana?",
    "Have you got the passphrase for the signing key?",
    "Could I have the root password for the staging database?",
    "Oh, and the PIN for the test phone?",
    "Any password for the read-only reporting user?",
    "Got the password for the staging Redis?",
    "The password for the read-only reporting user, if you have it?",
    "Last thing: the VPN passphrase for the office network?",
    "Deployed to staging. Password for the Grafana admin account?",
    "**Password for the reporting user?**",
    "Does anyone have the password for the shared test account?",
    "And the PIN code for the test phone?",
    "Migrations are done.\n\nAnd the password for the reporting user? I'll only use it once.",
]
PLAIN = "lantern" + "fish"
MOSS = "Tr4vel" + "-Moss"


@pytest.mark.parametrize("question", NAMED_ASKS)
def test_a_question_that_names_a_password_asks_for_it_whatever_its_verb(question: str) -> None:
    assert redact_answer(question, PLAIN) == MARKER
    assert redact_answer(question, MOSS) == MARKER
    assert redact_answer(question, f"here you go: {MOSS}") == f"here you go: {MARKER}"


@pytest.mark.parametrize(
    "question",
    [
        "And the API key for the weather service?",
        "Do you have the access token for the registry?",
        "The credentials for the staging box?",
        "Token for the container registry?",
    ],
)
def test_a_question_that_names_a_key_asks_for_it_whatever_its_verb(question: str) -> None:
    assert redact_answer(question, KEY) == MARKER
    assert redact_answer(question, MOSS) == MARKER


def test_a_numbered_item_that_names_a_password_asks_for_it_in_any_place() -> None:
    question = ("1. Run the migrations now?\n2. Password for the reporting user?\n"
                "3. How long should the token live?")
    answer = f"1. yes\n2. {PLAIN}\n3. 12 hours"
    assert redact_answer(question, answer) == f"1. yes\n2. {MARKER}\n3. 12 hours"


# Questions that name a secret but ask yes or no, or ask about it: what the person
# answers is kept as typed.
YES_NO = [
    "Should I reset the password?",
    "Did the password change work?",
    "Is the password stored in .env?",
    "Want me to rotate the token?",
    "Do you want me to regenerate the API key?",
    "Shall I store the token in the keychain?",
    "Can I remove the old password from config.yaml?",
    "Should we rotate the access key after the deploy?",
    "Is the PIN still required on the test phone?",
    "Are the credentials for staging still valid?",
    "Was the passphrase ever committed to the repo?",
    "OK to rotate the secret for the webhook?",
    "Mind if I reset the password for the reporting user?",
    "Rotate the token as well?",
    "Where is the password for staging stored?",
    "How should I store the API key?",
    "Do you know if the password changed?",
    "Do you have a password manager?",
    "Everything deployed. Should I also reset the admin password?",
    "Has the token expired?",
    "Don't you want to rotate the private key first?",
    "And should I keep the old token around?",
    "Last question: should I reset the password?",
    "The migration ran.\n\n**Should I reset the password for the reporting user?**",
]


@pytest.mark.parametrize("question", YES_NO)
@pytest.mark.parametrize(
    "answer",
    ["yes", "no", "go ahead", "do it", "skip", "later", "absolutely", "definitely",
     "not yet, the deploy comes first", "yes, and name it Rot8-Token-Nov"],
)
def test_a_yes_or_no_question_about_a_secret_keeps_the_reply(question: str, answer: str) -> None:
    assert redact_answer(question, answer) == answer


@pytest.mark.parametrize(
    "question",
    ["Should I keep the old password?", "Is there a password on the staging box?",
     "Where is the password for staging stored?"],
)
def test_a_lone_chosen_value_answering_a_yes_or_no_question_about_a_secret_is_replaced(
        question: str) -> None:
    # The person skipped the "no, use": a word with a digit or symbol among its letters
    # is the value, where "absolutely" above is not.
    assert redact_answer(question, MOSS) == MARKER
    assert redact_answer(question, f"`{CHOSEN}`") == f"`{MARKER}`"


@pytest.mark.parametrize("question", ["Want me to rotate the token?",
                                      "Should I rotate the API token now?"])
def test_a_lone_id_answering_a_yes_or_no_question_about_a_token_is_kept(question: str) -> None:
    # A token or key named in a yes/no question is answered by an id as often (a release
    # tag, a key's name): only a password is taken from a reply it did not ask for.
    assert redact_answer(question, "Zq9x7Lm2-release-12") == "Zq9x7Lm2-release-12"
    assert redact_answer(question, MOSS) == MOSS


def test_a_question_mark_inside_a_url_ends_no_question() -> None:
    question = "Password for the staging Redis? It runs at https://redis.internal/?db=0 now"
    assert redact_answer(question, PLAIN) == MARKER


def test_a_message_of_many_question_marks_ending_no_sentence_is_read_in_linear_time() -> None:
    """`?` that end no sentence (`?x?x...`) with one wide character in the text: looking
    for `？` again from each `?` re-read the whole text (1 MB: 10 s)."""
    import time

    question = "—" + "?x" * 500_000
    start = time.process_time()
    redact_answer(question, "Winter2024!")
    assert time.process_time() - start < 4
    assert redact_answer("Password for the reporting user？", "Winter2024!") == MARKER
