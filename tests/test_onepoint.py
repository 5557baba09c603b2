"""One point, one count; a repeated request the judge accepted is a command, a rejected
one never is."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.records.proposal import Proposal, Verdict
from learn.reduce.counting import Occurrence, count_points
from learn.reduce.onepoint import one_point, requests_as_commands


class TopicEmbedder:
    """Texts about the same topic word get the same vector; cut = 1 - 0.5 * 0.5."""

    name = "topic-test"
    cluster_threshold = 0.5
    TOPICS = ("approach", "commit", "tabs")

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = [[1.0 if t in text or (t == "approach" and "think it through" in text) else 0.0
                 for t in self.TOPICS] + [0.01] for text in texts]
        return np.asarray(rows, dtype=np.float32)


def occ(session: str, kind: str, label: str, text: str) -> Occurrence:
    s = SessionCandidates(session, "claude", "/p", f"2026-03-0{session[-1]}T00:00:00+00:00")
    return Occurrence(s, MinedCandidate(kind, text), label)  # type: ignore[arg-type]


def test_a_directive_and_a_request_of_one_point_count_once() -> None:
    occs = [occ("s1", "directive", "discuss-approach-first", "let's talk through the approach first"),
            occ("s2", "directive", "discuss-approach-first", "talk through the approach before coding"),
            occ("s3", "request", "think-it-through", "help me think it through before you change code"),
            occ("s4", "request", "think-it-through", "help me think it through first"),
            occ("s5", "request", "explain-commit", "explain why this commit broke the tests"),
            occ("s6", "directive", "use-tabs", "use tabs")]
    before = {p.key: p.sessions for p in count_points(occs)}
    assert before["directive:discuss-approach-first"] == 2
    points = {p.key: p for p in count_points(one_point(occs, TopicEmbedder()))}
    assert points["directive:discuss-approach-first"].sessions == 4
    assert "request:think-it-through" not in points
    assert points["request:explain-commit"].sessions == 1  # another point stays apart
    assert "directive:use-tabs" in points
    # Nothing to merge without both kinds.
    only = [o for o in occs if o.candidate.kind == "request"]
    assert one_point(only, TopicEmbedder()) == only


def test_a_repeated_request_the_judge_accepted_is_a_command_and_a_rejected_one_is_not() -> None:
    yes = Verdict(True, "Explain why a commit broke the tests.", "workflow", "project", 0.8)
    p = Proposal("request", "explain-commit", "explain why this commit broke the tests", 4, 4,
                 None, (), verdict=yes)
    [cmd] = requests_as_commands([p], 3)
    assert cmd.surface == "command" and cmd.verdict == yes
    assert requests_as_commands([p], 5) == [p]  # below the request threshold: left alone
    # Rejected as one-off work: it stays rejected, with the judge's words, never a command.
    no = Verdict(False, "Explain one commit.", "workflow", "project", 0.85,
                 rationale="one-off work")
    rejected = dataclasses.replace(p, verdict=no)
    assert requests_as_commands([rejected], 3) == [rejected]
    directive = Proposal("directive", "x", "x", 4, 4, None, (), verdict=yes)
    assert requests_as_commands([directive], 3) == [directive]
