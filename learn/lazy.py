"""Names a package exports but imports on first use (PEP 562's module `__getattr__`).

`learn --help` and a run with nothing new import little: a package's names are
looked up in their own module only when something asks for them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


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
