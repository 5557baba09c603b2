"""A scripted model that answers from a corpus's gold file.

It stands in for a careful but imperfect model: it reports the gold quotes it
can see in a chunk, and also the `mistakes` the gold lists for that session
(paraphrased quotes, lines lifted from tool output, template text), and it
returns a malformed answer for the sessions the gold marks. Its answers are
what `evals/record.py` writes into `cache/` for the offline demo and eval, and
what the fake Messages server answers in the end-to-end tests. They are
fixtures, not a model's judgement: the offline eval measures the pipeline's
plumbing (verification, naming fallbacks, counting, coverage and judge wiring)
against them; `learn eval --live` measures a real model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from evals.gold import Gold, GoldQuote
from learn.models.base import CallUsage, ModelRequest, ModelResponse
from learn.textfold import fold

_ITEM = re.compile(r"^(\d+)\. \[(\w+)\] (.*)$")


def _section(user: str, heading: str) -> list[str]:
    """The numbered lines under `HEADING:` (up to the next blank line / heading)."""
    lines = user.splitlines()
    out: list[str] = []
    inside = False
    for line in lines:
        if line.strip() == f"{heading}:":
            inside = True
            continue
        if inside:
            if not line.strip() or (line.endswith(":") and not line[:1].isdigit()):
                break
            out.append(line)
    return out


class GoldOracle:
    name = "oracle"

    def __init__(self, gold: Gold) -> None:
        self.gold = gold
        self.calls: list[str] = []
        self._by_text: dict[str, GoldQuote] = {}
        for q in gold.quotes:
            self._by_text.setdefault(fold(q.text), q)

    # -- Backend protocol -----------------------------------------------------------
    def call(self, request: ModelRequest) -> ModelResponse:
        self.calls.append(request.tool.name)
        answer = self.answer(request.tool.name, request.user)
        return ModelResponse(tool_input=answer, model="gold-oracle", usage=CallUsage(calls=1))

    def answer(self, tool: str, user: str) -> dict[str, Any]:
        if tool == "record_candidates":
            return self._mine(user)
        if tool == "assign_labels":
            return self._label(user)
        if tool == "check_coverage":
            return self._coverage(user)
        if tool == "record_verdicts":
            return self._judge(user)
        if tool == "write_commands":
            return self._commands(user)
        raise ValueError(f"oracle has no answer for tool {tool!r}")

    # -- mining ------------------------------------------------------------------------
    def _mine(self, chunk: str) -> dict[str, Any]:
        seen = fold(chunk)
        out: list[dict[str, Any]] = []
        sessions: set[str] = set()
        for q in self.gold.quotes:
            if q.kind == "fix":
                if q.command and fold(q.command) in seen and q.error_excerpt and fold(q.error_excerpt)[:40] in seen:
                    out.append({"kind": "fix", "text": q.text, "command": q.command,
                                "error_excerpt": q.error_excerpt,
                                "rationale": "failed, then passed after a change"})
                    sessions.add(q.session)
            elif fold(q.text) in seen:
                out.append({"kind": q.kind, "text": q.text,
                            "rationale": "stated as how work should be done"})
                sessions.add(q.session)
        if sessions & set(self.gold.malformed_sessions):
            # What a model sometimes does: the right tool, the wrong shape.
            return {"candidates": "see above"}
        for m in self.gold.mistakes:
            if m.session in sessions:
                row = {"kind": m.kind, "text": m.text, "rationale": f"({m.why})"}
                if m.command is not None:
                    row |= {"command": m.command, "error_excerpt": m.error_excerpt or ""}
                out.append(row)
        # Deduplicate repeated quotes within one chunk the way a model would not.
        unique: dict[tuple[str, str], dict[str, Any]] = {}
        for c in out:
            unique.setdefault((c["kind"], c["text"]), c)
        return {"candidates": list(unique.values())}

    # -- naming --------------------------------------------------------------------------
    def _group_of(self, text: str) -> str | None:
        q = self._by_text.get(fold(text.rstrip("…")))
        if q is not None:
            return q.group
        flat = fold(text.rstrip("…"))
        for known, quote in self._by_text.items():
            if flat and (known.startswith(flat) or flat.startswith(known)):
                return quote.group
        from evals.metrics import _fragments_of

        for known, quote in self._by_text.items():
            if _fragments_of(flat, known):
                return quote.group  # an ellipsis quote: fragments of this one
        return None

    def _items(self, user: str) -> list[tuple[int, str, str]]:
        out = []
        for line in _section(user, "ITEMS"):
            m = _ITEM.match(line)
            if m:
                out.append((int(m.group(1)), m.group(2), m.group(3)))
        return out

    def _label(self, user: str) -> dict[str, Any]:
        labels = []
        omit = {fold(t) for t in self.gold.naming_omit}
        for item_id, _kind, text in self._items(user):
            if fold(text.rstrip("…")) in omit:
                continue  # the imperfect namer skipped this one
            group = self._group_of(text)
            if group is None:
                words = re.findall(r"[a-z0-9]+", text.casefold())[:4]
                group = "-".join(words) or "unlabelled"
            labels.append({"id": item_id, "label": group})
        return {"labels": labels}

    # -- coverage ------------------------------------------------------------------------
    def _coverage(self, user: str) -> dict[str, Any]:
        rules = [re.sub(r"^\d+\.\s*", "", r) for r in _section(user, "RULES")]
        verdicts = []
        for item_id, _kind, text in self._items(user):
            group = self._group_of(text) or self._group_by_label(text)
            g = self.gold.groups.get(group or "")
            if g is not None and g.coverage in ("restated", "contradicts") and rules:
                words = set(re.findall(r"[a-z]{3,}", g.summary.casefold()))
                best = max(range(len(rules)),
                           key=lambda i: len(words & set(re.findall(r"[a-z]{3,}", rules[i].casefold()))))
                verdicts.append({"id": item_id, "rule_index": best,
                                 "verdict": "rule" if g.coverage == "restated" else "contradicts"})
            else:
                verdicts.append({"id": item_id, "verdict": "new"})
        return {"verdicts": verdicts}

    def _group_by_label(self, text: str) -> str | None:
        for name in self.gold.groups:
            if name in text:
                return name
        return None

    # -- judging ---------------------------------------------------------------------------
    def _judge(self, user: str) -> dict[str, Any]:
        verdicts = []
        for item_id, _kind, text in self._items(user):
            quoted = re.match(r'^[^:]+: "(.*?)"; said ', text)
            group = (self._group_by_label(text) or self._group_of(text)
                     or (self._group_of(quoted.group(1)) if quoted else None))
            g = self.gold.groups.get(group or "")
            if g is None:
                verdicts.append({"id": item_id, "accepted": False, "category": "other",
                                 "scope": "project", "confidence": 0.6,
                                 "summary": text[:120], "rationale": "not a durable rule"})
                continue
            verdicts.append({"id": item_id, "accepted": g.accepted, "category": g.category,
                             "scope": g.scope, "confidence": 0.9, "summary": g.summary,
                             "rationale": f"said in {g.sessions} sessions",
                             "canonical_key": group})
        return {"verdicts": verdicts}


    # -- commands --------------------------------------------------------------------------
    def _commands(self, user: str) -> dict[str, Any]:
        """Each item's command from its gold group: one instruction for every ask."""
        rows = []
        for item_id, _kind, text in self._items(user):
            quotes = re.findall(r'"([^"]+)"', text)
            group = self._group_by_label(text.split(":", 1)[0]) or next(
                (g for g in (self._group_of(q) for q in quotes) if g), None)
            g = self.gold.groups.get(group or "")
            if g is None:
                continue
            body = g.command or (f"{g.summary.rstrip('.')}, for what the user names after the "
                                 "command: $ARGUMENTS")
            rows.append({"id": item_id, "description": g.summary.rstrip("."), "body": body})
        return {"commands": rows}


def responder(gold: Gold) -> Any:
    """An answer function for the fake Messages server: (request json) -> tool input."""
    oracle = GoldOracle(gold)

    def answer(body: Mapping[str, Any]) -> dict[str, Any]:
        tool = body["tool_choice"]["name"]
        content = body["messages"][-1]["content"]
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
        return oracle.answer(tool, str(content))

    return answer
