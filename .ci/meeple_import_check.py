"""pytest plugin used by .ci/run and tools/check_wheel.sh: proves the run tests the meeple it means to.

Load it with `-p meeple_import_check` (its folder on PYTHONPATH) and set MEEPLE_EXPECT_DIR to the
directory that must contain the imported package (a venv's site-packages, or the folder holding
the sanitizer build's copy). The run stops with a usage error (exit code 4) when `meeple` or
`meeple._core` comes from anywhere else, e.g. from the source tree's python/ folder. It checks at
start-up (in the controller and in every xdist worker) and again once collection has imported
every test module and conftest.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


def _origin() -> tuple[Path, Path]:
    import meeple
    import meeple._core

    return Path(meeple.__file__).resolve(), Path(meeple._core.__file__).resolve()


def _check(where: str) -> str:
    expect = os.environ.get("MEEPLE_EXPECT_DIR")
    if not expect:
        raise pytest.UsageError("meeple_import_check: MEEPLE_EXPECT_DIR is not set")
    root = Path(expect).resolve()
    try:
        paths = _origin()
    except ImportError as exc:
        raise pytest.UsageError(f"meeple_import_check ({where}): cannot import meeple: {exc}") from exc
    for path in paths:
        if root not in path.parents:
            raise pytest.UsageError(
                f"meeple_import_check ({where}): {path} is not under MEEPLE_EXPECT_DIR={root}; "
                f"the run would not test the intended build.\nsys.path = {sys.path}"
            )
    return f"meeple from {paths[0].parent}, _core = {paths[1].name}"


def pytest_configure(config: pytest.Config) -> None:
    config._meeple_origin = _check("configure")  # type: ignore[attr-defined]


def pytest_report_header(config: pytest.Config) -> str:
    return "meeple_import_check: " + getattr(config, "_meeple_origin", "?")


def pytest_collection_finish(session: pytest.Session) -> None:
    _check("after collection")
