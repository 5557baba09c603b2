"""Packages for the wheel; the rest of the metadata is in pyproject.toml.

evals/ (the eval harness and the demo corpus builder) and cache/ (the recorded
model answers the demo and the offline eval replay) stay at the top of the
checkout, where they are edited and re-recorded. The wheel carries whatever
they hold at build time inside learn, as learn/_bundle/evals and
learn/_bundle/cache, so `learn demo` and `learn eval` work from an installed
package (learn/_repo.py finds them). They are mapped, not copied into the
source tree, so a new eval module or re-recorded fixture needs no edit here.

Every directory under cache/ is listed as a (data) package of its own: the
recorded answers sit in directories named by hash prefix (`d0`, `a8`), and
setuptools >= 77 printed a 44-line "Package would be ignored" warning for each
one that happened to be a valid identifier (~490 lines opening `make demo`).
Listed, they are packaged like any other, and their JSON comes with them
through the "*" package-data patterns in pyproject.toml.
"""

import sys
from pathlib import Path

from setuptools import find_namespace_packages, find_packages, setup

ROOT = Path(__file__).resolve().parent
LEARN = find_namespace_packages(include=["learn", "learn.*"])

if "editable_wheel" in sys.argv:
    # `pip install -e .` (make setup, make demo): the checkout is imported in
    # place and learn/_repo.py finds evals/ and cache/ beside learn/, so nothing is
    # mapped. A package_dir mapping makes setuptools install a meta path finder
    # and print a 10-line "Editable installation ... be careful" warning; the
    # plain layout gets a .pth line and no warning (tests/test_packaging_quiet.py).
    BUNDLED: dict[str, str] = {"": "."}
else:
    EVALS = find_packages(include=["evals", "evals.*"])
    BUNDLED = {f"learn._bundle.{name}": name.replace(".", "/") for name in EVALS}
    BUNDLED["learn._bundle.cache"] = "cache"
    for directory in sorted((ROOT / "cache").rglob("*")):
        if directory.is_dir():
            parts = directory.relative_to(ROOT / "cache").parts
            BUNDLED[".".join(("learn._bundle.cache", *parts))] = "/".join(("cache", *parts))

setup(
    packages=[*LEARN, *(name for name in BUNDLED if name)],
    package_dir=BUNDLED,
    # package data (the cache's JSON files among it) is listed in pyproject.toml
)
