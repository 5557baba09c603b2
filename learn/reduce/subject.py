"""Whether a rule line and a proposal are about the same thing, read off their words.

Coverage (learn.reduce.coverage) is a model's answer, and the model reads
transcript text: a steered answer calling the person's "Never push to main"
contradicted by "Use bun for installs" had `learn apply` replace the safety rule
with the unrelated one (audit of 2026-12). A rule line is rewritten only when this
check agrees the two share a subject; nothing here judges meaning, it only refuses
a replacement that has nothing in common with the line it would delete.

A subject is shared when the line and any of the proposal's texts (the rule to be
written, the person's quotes) have a content term in common: a 5-letter stem of a
word that is no stopword, negation cue or rule-making verb ("use", "always",
"run": "Use npm" and "Use bun" share no subject by them), a character bigram of
unspaced text (learn.reduce.contrast.lexical_grams), or a tool of one family
(`FAMILIES`): "Use npm for installs" -> "Use bun", "Run the tests with jest" ->
"Use vitest" replace nothing by their words and are the same subject, the tool
picked for one job.

Calibrated on every contradicted or restated pair of the eval corpora and the
tests (tests/test_guard_replace_subject.py): all share a subject; of the pairs of
distinct gold points (evals/corpora) none of which restates another, those sharing
a term are the ones naming a tool of the same family or a word of the same
subject, counted there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from learn.reduce.contrast import NEGATION_CUES, lexical_grams

# Words any rule may use whatever it is about, as 5-letter stems (lexical_grams):
# the verbs that make a sentence a rule, frequency and manner words, and the nouns
# of every rule ("file", "code", "change"). "Never push to main" and "Never commit
# secrets" share "never"; "Keep files small" and "Never edit generated files" share
# "files": neither is a subject.
_GENERIC_WORDS: Final = """
    use uses used using run runs ran running always usually prefer preferred make makes
    keep keeps add adds write writes written writing ensure sure need needs want wants
    like only instead first again now ever good better best right properly correct
    correctly new old file files code change changes changed project projects repo
    repository thing things way time user agent rule rules work works one two every
    same other another more less before after when while then there via without with
    don't dont do does please thanks ok yes start stop put take give set check checks
    let call calls go going tell say said ask edit edits through explain help think wait
    src
    总是 永远 一定 使用 不要 请用 要用 不用 别用 記得 记得 ください しない する
"""
_JOINERS: Final = re.compile(r"[-_/.:]+")
_GENERIC: Final = frozenset(g for w in _GENERIC_WORDS.split() for g in lexical_grams(w))
_NEGATIONS: Final = frozenset(g for w in NEGATION_CUES for g in lexical_grams(w))

# Tools that do one job, one picked over another: a rule naming one and a rule naming
# another of the same row are about the same choice. A tool may sit in two rows (bun
# installs packages and runs scripts).
FAMILIES: Final[dict[str, str]] = {
    "js-packages": "npm npx pnpm pnpx yarn bun bunx",
    "py-packages": "pip pip3 pipenv poetry uv conda mamba pdm hatch pipx",
    "js-runtime": "node nodejs deno bun",
    "js-tests": "jest vitest mocha jasmine karma",
    "e2e-tests": "playwright cypress puppeteer selenium",
    "py-tests": "pytest nose nose2 unittest tox nox",
    "py-format": "black ruff yapf autopep8 isort flake8 pylint pyflakes",
    "js-format": "prettier eslint biome dprint tslint oxlint",
    "py-types": "mypy pyright pyre pytype",
    "bundlers": "webpack vite rollup esbuild parcel turbopack rspack",
    "docstrings": "google numpy sphinx restructuredtext epytext",
    "logging": "print logging logger structlog loguru console.log",
    "http": "requests httpx aiohttp urllib axios fetch superagent",
    "indent": "tabs tab spaces space",
    "case": "camelcase snake_case kebab-case pascalcase",
    "languages": "javascript typescript js ts",
    "ui": "react vue svelte angular preact",
    "css": "tailwind css scss sass",
    "databases": "postgres postgresql mysql sqlite mariadb mongodb",
    "vcs": "merge rebase squash",
    "shells": "bash zsh sh fish powershell",
}
_FAMILY_OF: Final[dict[str, frozenset[str]]] = {
    g: frozenset(name for name, tools in FAMILIES.items()
                 if g in {t for tool in tools.split() for t in lexical_grams(tool)})
    for tools in FAMILIES.values() for tool in tools.split() for g in lexical_grams(tool)}


def subject_terms(text: str) -> frozenset[str]:
    """`text`'s content terms (stems, bigrams of unspaced text) and its tools' families
    (`family:<name>`), without the words every rule uses."""
    # A name's parts too: `use-bun` (a label), `src/generated`, `console.log`.
    found = lexical_grams(text) | lexical_grams(_JOINERS.sub(" ", text))
    grams = found - _GENERIC - _NEGATIONS
    families = {f"family:{name}" for g in found for name in _FAMILY_OF.get(g, ())}
    return frozenset({g for g in grams if len(g) > 1 or not g.isascii()} | families)


def shared_subject(line: str, texts: Iterable[str]) -> frozenset[str]:
    """The terms `line` shares with any of `texts` (empty: no subject in common)."""
    own = subject_terms(line)
    out: set[str] = set()
    for text in texts:
        out |= own & subject_terms(text)
    return frozenset(out)
