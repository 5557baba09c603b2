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
)
TYPOGRAPHY_RATE = 0.25
PARTIAL_RATE = 0.2
# Offered its earlier label, the model still rewords it this often.
DRIFT_DESPITE_OFFER = 0.34
ELLIPSIS_MIN_WORDS = 9
# How often a quote comes back in the other width (issue 19).
WIDTH_RATE = 0.3
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
                answer = self._partial(user, answer, "verdicts")
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
        if self._on("truncated") and attempt == 1 and self._session_in(self.truncate_session, user) and out:
            self._fired("truncated")
            keep = out[: max(1, len(out) // 2)]
            last = dict(keep[-1])
            last["text"] = str(last.get("text", ""))[: max(3, len(str(last.get("text", ""))) // 2)]
            return {"candidates": [*keep[:-1], last]}, "max_tokens"
        return {"candidates": out}, "tool_use"

    # -- naming ----------------------------------------------------------------------------
    def _name(self, user: str, answer: dict[str, Any]) -> dict[str, Any]:
        answer = self._partial(user, answer, "labels")
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
