"""Everything the user actually said in a session, for checking quotes.

`spoken_turns` is the redacted text of each turn as typed: verification
locates a quote on it and keeps the person's exact span. `spoken_text` is the
same turns normalized and joined, for a plain "was this said?" check.

Whitespace is collapsed before comparing because a directive written in a
markdown file arrives wrapped across lines and the model unwraps it; case is
folded because models "fix" capitalisation at the start of a quote. There is
no fuzzy matching, because a quote that is only *close* to what the user typed
is a paraphrase, and a third of quotes on a real corpus were exactly that.
Typography (quotes, dashes, ellipses) is forgiven by verification's own fold,
`learn.textfold.fold_typography`, never by changing a word.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from learn.redaction.redact import redact
from learn.render.render import user_turns
from learn.textfold import fold
from learn.transcripts.view.model import Session

# Between turns in the spoken text. Not whitespace (so normalization keeps it)
# and never in a normalized quote, so a "quote" that glues the end of one
# message to the start of the next — a merged sentence — is not found.
TURN_SEPARATOR: Final = "\x00"


def spoken_turns(session: Session, fingerprints: Sequence[str] = ()) -> tuple[str, ...]:
    """The redacted text of every human turn the renderer keeps, as typed."""
    return tuple(redact(t.text.strip()) for t in user_turns(session, fingerprints))


def spoken_text(session: Session, fingerprints: Sequence[str] = ()) -> str:
    """The normalized, redacted text of every human turn the renderer keeps."""
    return TURN_SEPARATOR.join(fold(t) for t in spoken_turns(session, fingerprints))
