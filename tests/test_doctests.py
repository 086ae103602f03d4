"""The examples in the package's docstrings run as written (doctest), as python-chess keeps its
own: a docstring example that no longer works is a failing test, not a misleading page."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import meeple

MODULES = ["meeple"] + sorted(m.name for m in pkgutil.walk_packages(meeple.__path__, "meeple.")
                             if not m.name.endswith("__main__"))
# Modules whose docstrings show examples: each must keep at least one, so that a doctest that
# stopped being collected (a changed prompt, a moved docstring) fails here instead of going quiet.
WITH_EXAMPLES = {"meeple", "meeple._registry", "meeple.abacuachego", "meeple.bench", "meeple.bots", "meeple.harmonies",
                 "meeple.imperial_harvest", "meeple.imperial_harvest_board", "meeple.selfplay",
                 "meeple.serialization", "meeple.vector"}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    examples = 0
    for test in finder.find(module, name):
        examples += len(test.examples)
        result = runner.run(test, out=lambda text: print(text, end=""))
        assert result.failed == 0, f"{test.name}: {result.failed} docstring example(s) failed (output above)"
    if name in WITH_EXAMPLES:
        assert examples > 0, f"{name} lost its docstring examples"


def test_every_module_with_examples_is_listed():
    assert WITH_EXAMPLES <= set(MODULES)
