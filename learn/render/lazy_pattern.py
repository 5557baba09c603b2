"""A regex compiled the first time it is used.

learn's ~100 redaction rules were compiled when learn.render.redact was imported:
~20 ms of CPU in every process that redacts (`learn show`, the first scan's
parent), while a text reaches only the rules whose gate words it holds and most
processes meet a handful (issue 21: `learn show` <= 0.3 s).
"""

from __future__ import annotations

import re
from collections.abc import Callable


class LazyPattern:
    """`re.compile(source, flags)`, done on the first `sub`."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str) -> str:
        return self.compiled.sub(repl, string)
