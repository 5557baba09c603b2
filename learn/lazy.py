"""What is made on first use: a package's names (PEP 562's module `__getattr__`) and
regular expressions.

`learn --help` and a run with nothing new import little: a package's names are
looked up in their own module only when something asks for them. A module's
regular expressions are compiled the first time one of their methods is called:
Python's `re` compiles in Python, ~0.1 ms a pattern, and `learn show` imported 116
of learn's patterns and called on 20 (13 ms of its ~0.22 s CPU compiling the others).
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, AnyStr, Final, cast, overload


def lazy_getattr(package: str, where: Mapping[str, str],
                 namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The `__getattr__` of `package`: a name of `where` is imported from the module it
    names and kept in `namespace` (the package's globals), so it is looked up once."""
    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__


# What a use of a pattern reads: once compiled, each is the compiled pattern's own,
# kept on the lazy object, so a call costs what it costs on a compiled pattern (an
# attribute found in the object's dict, then the method in C).
_USED: Final = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn",
                "split", "scanner", "pattern", "flags", "groups", "groupindex")

# Every lazy pattern made (tests count those still uncompiled). None is compiled ahead of
# its use, not even before a pool forks: compiling all of them (226) cost a first
# listing's parent more than its two workers compiling the few each uses
# (learn.index.indexed._preload).
_WAITING: list[_LazyPattern] = []


class _LazyPattern:
    """`re.compile(source, flags)` on the first use of any of its attributes."""

    def __init__(self, source: str | bytes, flags: int, home: dict[str, Any] | None) -> None:
        self._source = source
        self._flags = flags
        self._home = home
        self._compiled: re.Pattern[Any] | None = None
        _WAITING.append(self)

    def __getattr__(self, name: str) -> Any:
        # Only for names not set yet. A protocol's lookup (copy, pickle) is not a use,
        # nor is a private name (one asked before __init__ set it: a copy's).
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._compile(), name)

    def _compile(self) -> re.Pattern[Any]:
        if self._compiled is None:
            self._compiled = compiled = re.compile(self._source, self._flags)
            for name in _USED:
                setattr(self, name, getattr(compiled, name))
            # The module's own name for it now holds the compiled pattern: a call through
            # this object (a bound method kept in its dict) took a first listing of the
            # tree 1.006x the instructions of compiled patterns (~270,000 calls of `match`).
            home, self._home = self._home, None
            if home is not None:
                for name in [k for k, v in home.items() if v is self]:
                    home[name] = compiled
        return self._compiled

    def __reduce__(self) -> tuple[Any, ...]:
        # Copied or pickled as the compiled pattern it stands for (its state holds the
        # defining module's globals, which must not be copied with it).
        return (re.compile, (self._source, self._flags))

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source!r}, {self._flags})"


@overload
def lazy_pattern(source: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]: ...
@overload
def lazy_pattern(source: bytes, flags: int | re.RegexFlag = 0) -> re.Pattern[bytes]: ...
def lazy_pattern(source: str | bytes, flags: int | re.RegexFlag = 0) -> re.Pattern[Any]:
    """`re.compile(source, flags)`, done when the pattern is first used.

    It answers every method and attribute of a compiled pattern, but it is not one:
    `isinstance(p, re.Pattern)` is false, and `re.match(p, text)` refuses it. A
    pattern that is never used is never compiled (a broken one raises then)."""
    # The caller's globals: a module-level pattern's name there is rebound to the
    # compiled pattern once it is compiled (`_LazyPattern._compile`).
    return cast("re.Pattern[Any]", _LazyPattern(source, int(flags), sys._getframe(1).f_globals))


def compiled(pattern: re.Pattern[AnyStr]) -> re.Pattern[AnyStr]:
    """The compiled pattern of `pattern` (a `lazy_pattern`'s, compiled now; any other as it is)."""
    if isinstance(pattern, _LazyPattern):
        return cast("re.Pattern[AnyStr]", pattern._compile())
    return pattern


def is_compiled(pattern: re.Pattern[Any]) -> bool:
    """Whether `pattern` was compiled (a `lazy_pattern` only once it was used)."""
    return not isinstance(pattern, _LazyPattern) or pattern._compiled is not None
