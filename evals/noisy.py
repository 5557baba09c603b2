"""A noisy model: the gold oracle's answers, carrying a real model's ordinary faults.

The oracle (evals/oracle.py) reads the gold the metrics score against, so with
it naming, coverage and judge agreement are 1.0 by construction and the eval
cannot fail for the reasons a real run does. This model answers from the same
gold but, seeded, damages its answers the way real models were measured to
(issue 11: recall fell from 1.0 to 0.4 under these faults together):

- `typography`: about a quarter of quotes come back with curly quotes and
  apostrophes, a capital first letter, surrounding quotation marks, a dash or
  ellipsis restyled, a terminal period added or dropped — every word intact;
- `ellipsis`: a long quote comes back as its first and last words joined by "…";
- `label_drift`: a group already named in an earlier naming call gets a reworded
  label when the label it had is not offered back under KNOWN LABELS, and a
  third of the time even when it is;
- `partial`: naming and judging answers leave out some items;
- `truncated`: one mining answer stops at max_tokens with half its candidates
  (the last one cut mid-quote); asked again with a larger budget, it answers;
- `malformed`: one mining answer has the wrong shape; asked again, it answers;
- `wrong_kind`: one directive is reported as a request;
- `paraphrase`: one quote is also reported with a word changed (must be dropped).
- `command_quote`: a command's body comes back as one of its quotes, word for word
  (measured on two real projects: the body was one specific ask while the general
  one sat unused in the group); told so and asked again, it writes the instruction.

The faults above only damage gold answers, so nothing they do can lower
precision: a pipeline that lets anything through looks as good as one that
defends. These report things that are not the person's corrections, each a
thing one of the pipeline's defences is there to stop (issue: audit 57):

- `distractor`: reports lines of the chunk that are no gold quote: every
  rule-like USER line (always/never/don't/must...: the corpora's traps, and
  compaction summaries, relays, injected instructions when the session view
  wrongly shows them as typed), a share of the other USER lines as requests
  (one-off task asks), one pasted log/ERROR line as a directive, and the gold's
  `distractors` (assistant prose that reads like a rule). Defences: quote
  verification against typed text (log lines, assistant prose), the session
  view's exclusions (machinery never reaches the chunk as USER), distinct-session
  counting and thresholds (one-off asks said once stay unproposed);
- `missed`: a quote repeated within one chunk is reported once, not every time
  (the later repeats dropped at MISSED_RATE): costs nothing while counting is by
  distinct session;
- `wrong_fix`: reports a fix whose command ran in the chunk but never failed
  there. Defence: fix verification (the command must have run and failed);
- `name_merge`: a naming call whose items are two different gold points gets
  one label for all of them at NAME_MERGE_RATE (a model lumping the unrelated
  items it is shown together); `name_split`: a call that holds several items
  of one point words one of them apart (a label from its own words) at
  NAME_SPLIT_RATE. Defences: pre-clustering, which fills a call with one point's
  paraphrases and keeps unrelated points out of it, the label-drift merge, and
  learn/reduce/regroup.py (a quote far from its label-mates asked again alone,
  a lone label rejoined to its call's and pre-cluster's point, a quote moved
  to the label all of whose quotes are near it);
- `judge_flip`: a seeded JUDGE_FLIP_RATE of verdicts come back inverted, the
  accepted rejected and the rejected accepted (with the gold's groups that
  must be rejected, evals/corpora/adversarial.py, a judge that accepts all shows).
  The judge reads each item's whole turn where the line carries it (`said in
  full:`, learn/reduce/windows.py): a quote whose turn limits it ("only", "just
  this once", "for now") and that the gold rejects, as a careful judge reading
  the turn does, is accepted at LIMIT_MISS_RATE instead (a judge that read the
  fragment alone and missed the limit).

Not a fault, what any judge can know: a quote of a gold group marked `limited`
(its quotes are fragments of messages that limit them) whose line does NOT carry
the message in full is accepted, faults on or off: the fragment alone reads as
a rule ("run the migration against the staging database"). So the eval counts
the line's `said in full:` part (`judge.limited_accepted`, `judge.agreement`):
without it the limited point is accepted in every run, with it only when the
judge misses the limit.

Each fault can be switched on alone, so the eval reports what each one costs.
The model implements the `Backend` protocol and is called by the real pipeline
(mining, verification, caching, naming, coverage, judging) like any backend.
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
from collections import Counter
from collections.abc import Iterable
from typing import Any

from evals.gold import Gold
from evals.oracle import GoldOracle, _section
from learn.models.base import CallUsage, ModelRequest, ModelResponse
from learn.textfold import fold as _norm

FAULTS: tuple[str, ...] = (
    "typography", "ellipsis", "label_drift", "partial", "truncated", "malformed",
    "wrong_kind", "paraphrase", "width", "command_quote",
    "distractor", "missed", "wrong_fix", "name_merge", "name_split", "judge_flip",
)
# Faults left out of the all-faults run: learn's defence against a namer that
# lumps or splits inside one call (learn/reduce/regroup.py) overrules it only
# where the quotes' vectors are clear, so they still cost something on correct
# code (`hard`, name_split: recall 0.75 at seed 0) and would fail issue 11's
# acceptance bar, which is about ordinary faults. Each alone is still gated
# against its baseline (`noisy.<fault>:` names).
ALONE: tuple[str, ...] = ("name_merge", "name_split")
TYPOGRAPHY_RATE = 0.25
PARTIAL_RATE = 0.2
# Offered its earlier label, the model still rewords it this often.
DRIFT_DESPITE_OFFER = 0.34
ELLIPSIS_MIN_WORDS = 9
# How often a quote comes back in the other width (issue 19).
WIDTH_RATE = 0.3
# The precision faults' rates (see the module docstring).
ONE_OFF_RATE = 0.5  # a USER line that is no gold quote and reads like no rule
LOG_LINE_RATE = 0.5  # a chunk's ERROR line, reported as a directive
MISSED_RATE = 0.5
NAME_MERGE_RATE = 0.5
NAME_SPLIT_RATE = 0.5
JUDGE_FLIP_RATE = 0.2
LIMIT_MISS_RATE = 0.5
# What limits a quote to the moment when the rest of its turn says it.
_LIMITS = re.compile(r"\b(only|just (?:this|for|once|today|now)|this (?:once|time)|for now|for today|"
                     r"for this (?:one|script|file|task|pr|branch)|temporar(?:y|ily))\b|只此一次|暂时",
                     re.IGNORECASE)
_ITEM_QUOTE = re.compile(r'^[^:]+: "(.*?)"; said ')
_SAID_IN_FULL = re.compile(r'; context: said in full: "(.*?)"(?:; |$)')
_RULE_LIKE = re.compile(r"\b(always|never|don'?t|do not|must|should|prefer|avoid|no more)\b|不要|请勿|总是",
                        re.IGNORECASE)
_USER_LINE = re.compile(r"^USER(?: \([^)]*\))?: (.*)$")
_TOOL_CMD = re.compile(r"^TOOL: (?:Bash|shell)\((.*)\)$")
# Word swaps for the paraphrase fault: each changes one word, never typography.
_SWAPS = (("never", "do not ever"), ("always", "every time"), ("the", "all the"),
          ("use", "prefer"), ("run", "execute"), ("don't", "do not"), ("no", "zero"))


def _rng(*parts: object) -> random.Random:
    # String seeds hash with SHA-512 inside random: the same draw in every process.
    return random.Random(":".join(str(p) for p in parts))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def restyle(text: str, rng: random.Random) -> str:
    """The quote in another typography: every word kept, in order."""
    out = text.replace("'", "\u2019").replace('"', "\u201c")
    out = out.replace(" - ", " \u2014 ").replace("...", "\u2026")
    if out[:1].isalpha() and rng.random() < 0.7:
        out = out[0].upper() + out[1:]
    if out.endswith((".", "!", "?")):
        out = out[:-1]
    elif rng.random() < 0.6:
        out += "."
    if rng.random() < 0.5:
        out = f"\u201c{out}\u201d"
    return out


def elide(text: str) -> str | None:
    """First three and last three words joined by an ellipsis, or None when short."""
    words = text.split()
    if len(words) < ELLIPSIS_MIN_WORDS:
        return None
    return " ".join(words[:3]) + " \u2026 " + " ".join(words[-3:])


_NARROW_PUNCT = {"，": ",", "！": "!", "？": "?", "：": ":", "；": ";", "（": "(", "）": ")"}
_WIDE_PUNCT = {v: k for k, v in _NARROW_PUNCT.items()} | {".": "．"}


def _half_width_katakana() -> dict[str, str]:
    """Full-width katakana (and the voicing marks) -> half-width forms."""
    import unicodedata

    out = {unicodedata.normalize("NFKC", chr(cp)): chr(cp) for cp in range(0xFF66, 0xFF9E)}
    out["\u3099"], out["\u309a"] = "\uff9e", "\uff9f"  # combining (han)dakuten
    return {k: v for k, v in out.items() if len(k) == 1}


_HALF_KATAKANA = _half_width_katakana()


def _wide(ch: str) -> str:
    return chr(ord(ch) + 0xFEE0) if ch.isascii() and ch.isalnum() else ch


def rewiden(text: str) -> str | None:
    """The quote in the other width, every character the same up to width:
    what a model does when it retypes a quote from a CJK conversation.

    Chinese/Japanese text: full-width punctuation narrowed (`，` -> `,`), ASCII
    letters and digits widened (`DB` -> `ＤＢ`), katakana halved (`テスト` ->
    `ﾃｽﾄ`). Other text: punctuation and its first ASCII word widened.
    None when nothing would change.
    """
    import re as _re
    import unicodedata

    from learn.textunits import has_unspaced

    if has_unspaced(text) or any(ch in _NARROW_PUNCT for ch in text):
        decomposed = unicodedata.normalize("NFD", text)
        out = "".join(_NARROW_PUNCT.get(ch) or _HALF_KATAKANA.get(ch) or _wide(ch) for ch in decomposed)
        out = unicodedata.normalize("NFC", out)
    else:
        out = "".join(_WIDE_PUNCT.get(ch, ch) for ch in text)
        out = _re.sub(r"[A-Za-z0-9]+", lambda m: "".join(_wide(c) for c in m.group()), out, count=1)
    return out if out != text else None


def reword(text: str) -> str | None:
    """The quote with one word changed: a paraphrase verification must drop."""
    for old, new in _SWAPS:
        pattern = re.compile(rf"\b{re.escape(old)}\b", re.IGNORECASE)
        if pattern.search(text):
            return pattern.sub(new, text, count=1)
    return None


def limited(item: str) -> bool:
    """Whether a judge item's quote is a fragment of a turn that limits it: the
    turn in full (`said in full:`) says "only", "for now", "just this once"...
    where the quote does not."""
    full = _SAID_IN_FULL.search(item)
    if full is None:
        return False
    quote = _ITEM_QUOTE.match(item)
    rest = _norm(full.group(1))
    for part in _norm(quote.group(1) if quote else "").replace("...", "…").split("…"):
        if part.strip():
            rest = rest.replace(part.strip(), " ", 1)
    return _LIMITS.search(rest) is not None


def drift(label: str, n: int) -> str:
    """The `n`-th rewording of a label (n >= 1): same point, other words."""
    words = label.split("-")
    variants = ["-".join(reversed(words)), "always-" + label, label + "-rule", "prefer-" + label]
    return variants[(n - 1) % len(variants)]


class NoisyModel:
    """`Backend`: the oracle's answers with the switched-on `faults` applied."""

    name = "noisy"

    def __init__(self, gold: Gold, faults: Iterable[str] = FAULTS, *, seed: int = 0) -> None:
        unknown = set(faults) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown fault(s) {sorted(unknown)}; choose from {FAULTS}")
        self.gold = gold
        self.faults = frozenset(faults)
        self.seed = seed
        self.oracle = GoldOracle(gold)
        self._lock = threading.Lock()
        self._attempts: Counter[str] = Counter()
        # (kind, gold group) -> labels given so far. Per kind: a naming call sees
        # one kind's items and known labels, so its first label for a group in
        # a kind is a fresh coinage, not drift.
        self._labels: dict[tuple[str, str], list[str]] = {}
        self.injected: Counter[str] = Counter()  # fault -> how often it fired
        self._pick_sessions()

    def _pick_sessions(self) -> None:
        """The session whose mining answer is truncated, the one malformed, the
        quote reported with the wrong kind and the one also paraphrased."""
        rng = _rng("noisy", self.seed, self.gold.corpus)
        by_session: Counter[str] = Counter(q.session for q in self.gold.quotes if q.kind != "fix")
        eligible = sorted(s for s, n in by_session.items()
                          if n >= 2 and s not in self.gold.malformed_sessions)
        picks = rng.sample(eligible, min(2, len(eligible)))
        self.truncate_session = picks[0] if picks else None
        self.malform_session = picks[1] if len(picks) > 1 else None
        directives = sorted((q.session, q.text) for q in self.gold.quotes if q.kind == "directive")
        self.wrong_kind_quote = rng.choice(directives)[1] if directives else None
        rewordable = [t for _, t in directives if reword(t) is not None]
        self.paraphrase_quote = rng.choice(rewordable) if rewordable else None

    # -- Backend protocol ------------------------------------------------------------
    def call(self, request: ModelRequest) -> ModelResponse:
        tool, user = request.tool.name, request.user
        with self._lock:
            key = f"{tool}:{_digest(user)}"
            self._attempts[key] += 1
            attempt = self._attempts[key]
            answer = self.oracle.answer(tool, user)
            stop = "tool_use"
            if tool == "record_candidates":
                answer, stop = self._mine(user, answer, attempt)
            elif tool == "assign_labels":
                answer = self._name(user, answer)
            elif tool == "record_verdicts":
                answer = self._flip(user, self._partial(user, self._unseen_limits(user, answer),
                                                        "verdicts"))
            elif tool == "write_commands":
                answer = self._commands(user, answer)
        return ModelResponse(tool_input=answer, model="noisy-oracle", usage=CallUsage(calls=1),
                             stop_reason=stop)

    def _on(self, fault: str) -> bool:
        return fault in self.faults

    def _fired(self, fault: str) -> None:
        self.injected[fault] += 1

    def _session_in(self, session: str | None, chunk: str) -> bool:
        if session is None:
            return False
        seen = _norm(chunk)
        return any(q.session == session and q.kind != "fix" and _norm(q.text) in seen
                   for q in self.gold.quotes)

    # -- mining --------------------------------------------------------------------------
    def _mine(self, user: str, answer: dict[str, Any], attempt: int) -> tuple[dict[str, Any], str]:
        cands = answer.get("candidates")
        if not isinstance(cands, list):
            return answer, "tool_use"  # the gold's own malformed session: left as it is
        if self._on("malformed") and attempt == 1 and self._session_in(self.malform_session, user):
            self._fired("malformed")
            # The right tool, a wrong shape: one row per line of prose.
            return {"candidates": [{"quote": c.get("text", "")} for c in cands]}, "tool_use"
        out: list[dict[str, Any]] = []
        for c in cands:
            text = c.get("text", "")
            if c.get("kind") == "fix" or not isinstance(text, str):
                out.append(c)
                continue
            row = dict(c)
            rng = _rng("quote", self.seed, text)
            if self._on("wrong_kind") and text == self.wrong_kind_quote:
                self._fired("wrong_kind")
                row["kind"] = "request"
            if self._on("paraphrase") and text == self.paraphrase_quote:
                changed = reword(text)
                if changed is not None:
                    self._fired("paraphrase")
                    out.append({**row, "text": changed})
            short = elide(text) if self._on("ellipsis") and rng.random() < 0.5 else None
            if short is not None:
                self._fired("ellipsis")
                row["text"] = short
            elif self._on("typography") and rng.random() < TYPOGRAPHY_RATE:
                self._fired("typography")
                row["text"] = restyle(text, rng)
            # Its own draw, so switching it on moves no other fault's.
            if self._on("width") and _rng("width", self.seed, text).random() < WIDTH_RATE:
                drifted = rewiden(str(row["text"]))
                if drifted is not None:
                    self._fired("width")
                    row["text"] = drifted
            out.append(row)
        if self._on("missed"):
            out = self._miss(out)
        if self._on("distractor"):
            out += self._distractors(user, out)
        if self._on("wrong_fix"):
            out += self._wrong_fix(user)
        if self._on("truncated") and attempt == 1 and self._session_in(self.truncate_session, user) and out:
            self._fired("truncated")
            keep = out[: max(1, len(out) // 2)]
            last = dict(keep[-1])
            last["text"] = str(last.get("text", ""))[: max(3, len(str(last.get("text", ""))) // 2)]
            return {"candidates": [*keep[:-1], last]}, "max_tokens"
        return {"candidates": out}, "tool_use"

    def _miss(self, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The chunk's later repeats of a gold point, dropped at MISSED_RATE."""
        seen: set[str] = set()
        kept = []
        for c in out:
            q = self.oracle._by_text.get(_norm(str(c.get("text", "")))) if c.get("kind") != "fix" else None
            if q is not None and q.group in seen and _rng("missed", self.seed, q.text).random() < MISSED_RATE:
                self._fired("missed")
                continue
            if q is not None:
                seen.add(q.group)
            kept.append(c)
        return kept

    def _distractors(self, user: str, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What a model reports that is no correction: see `distractor` above."""
        gold = [k for k in self.oracle._by_text if k]
        reported = {_norm(str(c.get("text", ""))) for c in out}
        extra: list[dict[str, Any]] = []

        def add(kind: str, text: str, why: str) -> None:
            if text.strip() and _norm(text) not in reported:
                reported.add(_norm(text))
                self._fired("distractor")
                extra.append({"kind": kind, "text": text.strip(), "rationale": f"({why})"})

        errors: list[str] = []
        for line in user.splitlines():
            if line.startswith("ERROR: "):
                errors.append(line.removeprefix("ERROR: "))
            m = _USER_LINE.match(line)
            if m is None:
                continue
            text = m.group(1)
            folded = _norm(text)
            if any(k in folded for k in gold) or "[REDACTED" in text:
                continue  # a gold quote's turn (or a secret's): not a distractor
            if _RULE_LIKE.search(text):
                add("directive", text, "rule-like line")
            elif len(text.split()) >= 3 and _rng("one-off", self.seed, text).random() < ONE_OFF_RATE:
                add("request", text, "one-off task")
        if errors and _rng("log", self.seed, _digest(user)).random() < LOG_LINE_RATE:
            add("directive", errors[0], "pasted log line")
        seen = _norm(user)
        for d in self.gold.distractors:
            if self._session_in(d.session, user) or _norm(d.text) in seen:
                add(d.kind, d.text, d.why)
        return extra

    def _wrong_fix(self, user: str) -> list[dict[str, Any]]:
        """A fix for a command that ran in the chunk and never failed there."""
        lines = user.splitlines()
        ran: list[str] = []
        failed: set[str] = set()
        for i, line in enumerate(lines):
            m = _TOOL_CMD.match(line)
            if m is None:
                continue
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            (failed.add if nxt.startswith("ERROR") else ran.append)(m.group(1))
        fine = sorted({c for c in ran if c not in failed})
        if not fine:
            return []
        cmd = _rng("wrong-fix", self.seed, _digest(user)).choice(fine)
        self._fired("wrong_fix")
        return [{"kind": "fix", "text": f"`{cmd}` failed until the environment was set up",
                 "command": cmd, "error_excerpt": "exit status 1",
                 "rationale": "failed, then passed after a change"}]

    # -- naming ----------------------------------------------------------------------------
    def _name(self, user: str, answer: dict[str, Any]) -> dict[str, Any]:
        answer = self._partial(user, answer, "labels")
        answer = self._merge_split(user, answer)
        if not self._on("label_drift"):
            return answer
        known = {re.sub(r"^\d+\.\s*", "", line).strip() for line in _section(user, "KNOWN LABELS")}
        rows = []
        given_now: dict[str, str] = {}
        kinds = {item_id: kind for item_id, kind, _ in self.oracle._items(user)}
        for row in answer.get("labels", []):
            group = row["label"]
            slot = (kinds.get(row["id"], ""), group)
            earlier = self._labels.get(slot, [])
            if group in given_now:
                label = given_now[group]  # one call words one group one way
            elif not earlier:
                label = group
            else:
                offered = [lab for lab in earlier if lab in known]
                if offered and _rng("drift", self.seed, slot, _digest(user)).random() >= DRIFT_DESPITE_OFFER:
                    label = offered[0]  # a known label, offered back, is reused
                else:
                    label = drift(group, len(earlier))
                    self._fired("label_drift")
            given_now[group] = label
            if label not in earlier:
                self._labels.setdefault(slot, []).append(label)
            rows.append({**row, "label": label})
        return {"labels": rows}

    # -- commands --------------------------------------------------------------------------
    def _commands(self, user: str, answer: dict[str, Any]) -> dict[str, Any]:
        if not self._on("command_quote") or "copied one quote" in user:
            return answer
        quotes = {item_id: re.findall(r'"([^"]+)"', text)
                  for item_id, _, text in self.oracle._items(user)}
        rows = []
        for row in answer.get("commands", []):
            asked = quotes.get(row.get("id"), [])
            if asked:
                self._fired("command_quote")
                row = {**row, "body": max(asked, key=len)}
            rows.append(row)
        return {"commands": rows}

    def _merge_split(self, user: str, answer: dict[str, Any]) -> dict[str, Any]:
        """`name_merge` and `name_split` (see the module docstring) on one naming answer."""
        rows = [dict(r) for r in answer.get("labels", [])]
        points = [r["label"] for r in rows if r.get("label") in self.gold.groups]
        if self._on("name_merge") and len(set(points)) >= 2 \
                and _rng("merge", self.seed, _digest(user)).random() < NAME_MERGE_RATE:
            for r in rows:
                if r.get("label") in self.gold.groups and r["label"] != points[0]:
                    self._fired("name_merge")
                    r["label"] = points[0]
        if self._on("name_split"):
            texts = {item_id: text for item_id, _, text in self.oracle._items(user)}
            counts = Counter(r.get("label") for r in rows)
            for r in reversed(rows):
                label = r.get("label")
                if label in self.gold.groups and counts[label] >= 2 \
                        and _rng("split", self.seed, _digest(user), label).random() < NAME_SPLIT_RATE:
                    words = re.findall(r"\w+", texts.get(r["id"], "").casefold())
                    own = "-".join(words[-4:]) or "apart"
                    self._fired("name_split")
                    r["label"] = own
                    counts[label] = 0  # one item of a point worded apart per call
        return {**answer, "labels": rows}

    def _unseen_limits(self, user: str, answer: dict[str, Any]) -> dict[str, Any]:
        """A `limited` gold group's item accepted when its line does not say the
        message in full: the limit is not in view (see the module docstring)."""
        rows = answer.get("verdicts")
        if not isinstance(rows, list):
            return answer
        texts = {item_id: text for item_id, _, text in self.oracle._items(user)}
        out = []
        for r in rows:
            g = self.gold.groups.get(str(r.get("canonical_key", "")))
            if g is not None and g.limited and not _SAID_IN_FULL.search(texts.get(r.get("id"), "")):
                r = {**r, "accepted": True, "rationale": "reads as a rule"}
            out.append(r)
        return {**answer, "verdicts": out}

    def _flip(self, user: str, answer: dict[str, Any]) -> dict[str, Any]:
        """`judge_flip`: a seeded share of verdicts inverted, and a rejected quote
        whose whole turn limits it accepted at LIMIT_MISS_RATE."""
        rows = answer.get("verdicts")
        if not self._on("judge_flip") or not isinstance(rows, list):
            return answer
        texts = {item_id: text for item_id, _, text in self.oracle._items(user)}
        out = []
        for r in rows:
            key = texts.get(r.get("id"), str(r.get("id")))
            if not isinstance(r.get("accepted"), bool):
                pass
            elif not r["accepted"] and limited(key):
                if _rng("limit", self.seed, key).random() < LIMIT_MISS_RATE:
                    self._fired("judge_flip")
                    r = {**r, "accepted": True}
            elif _rng("flip", self.seed, key).random() < JUDGE_FLIP_RATE:
                self._fired("judge_flip")
                r = {**r, "accepted": not r["accepted"]}
            out.append(r)
        return {**answer, "verdicts": out}

    def _partial(self, user: str, answer: dict[str, Any], field: str) -> dict[str, Any]:
        rows = answer.get(field)
        if not self._on("partial") or not isinstance(rows, list) or len(rows) < 2:
            return answer
        rng = _rng("partial", self.seed, field, _digest(user))
        kept = [r for r in rows if rng.random() >= PARTIAL_RATE]
        if len(kept) == len(rows):
            return answer
        self.injected["partial"] += len(rows) - len(kept)
        return {**answer, field: kept}


# The faults the outcomes and rules-work scenarios run with: their checks are
# exact outcomes of ordinary faults the pipeline absorbs; a flipped verdict or a
# lumped/split label changes which rules exist, which is not what they test.
SCENARIO_FAULTS: tuple[str, ...] = tuple(f for f in FAULTS if f not in (*ALONE, "judge_flip"))
# The all-faults run (gated, and held to issue 11's acceptance bar).
ALL_RUN = tuple(f for f in FAULTS if f not in ALONE)
