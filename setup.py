"""Packages for the wheel; the rest of the metadata is in pyproject.toml.

evals/ (the eval harness and the demo corpus builder) and cache/ (the recorded
model answers the demo and the offline eval replay) stay at the top of the
checkout, where they are edited and re-recorded. The wheel carries whatever
they hold at build time inside learn, as learn/_bundle/evals and
learn/_bundle/cache, so `learn demo` and `learn eval` work from an installed
package (learn/_repo.py finds them). They are mapped, not copied into the
source tree, so a new eval module or re-recorded fixture needs no edit here.
"""

from setuptools import find_namespace_packages, find_packages, setup

EVALS = find_packages(include=["evals", "evals.*"])
BUNDLED = {f"learn._bundle.{name}": name.replace(".", "/") for name in EVALS}
BUNDLED["learn._bundle.cache"] = "cache"

setup(
    packages=[*find_namespace_packages(include=["learn", "learn.*"]), *BUNDLED],
    package_dir=BUNDLED,
    # package data (the cache's JSON files among it) is listed in pyproject.toml
)
