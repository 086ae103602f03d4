"""What pyproject.toml declares agrees with the package: its version, and the Python versions its
classifiers name against requires-python, the wheels built and the versions CI tests."""
import importlib.metadata
import re
from pathlib import Path

import pytest

import meeple

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def pyproject_text():
    if not PYPROJECT.exists():
        pytest.skip("no pyproject.toml beside the tests")
    return PYPROJECT.read_text()


def test_version_is_the_one_pyproject_declares():
    assert re.search(r'^version = "([^"]+)"$', pyproject_text(), re.M)[1] == meeple.__version__


def test_version_is_the_installed_distributions():
    try:
        distribution = importlib.metadata.distribution("meeple")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("meeple is not installed (a source checkout on PYTHONPATH)")
    if Path(distribution.locate_file("meeple/__init__.py")).resolve() != Path(meeple.__file__).resolve():
        pytest.skip("the installed meeple is not the one imported")
    assert distribution.version == meeple.__version__


def test_classifiers_name_the_supported_pythons():
    text = pyproject_text()
    oldest = re.search(r'^requires-python = ">=3\.(\d+)"$', text, re.M)
    named = sorted(int(minor) for minor in re.findall(r'"Programming Language :: Python :: 3\.(\d+)"', text))
    built = sorted(int(minor) for minor in re.findall(r"cp3(\d+)-\*", text))
    assert oldest and named and named[0] == int(oldest[1]) and named == built
    assert named == list(range(named[0], named[-1] + 1))


def test_ci_tests_the_oldest_and_newest_supported_python_on_every_os():
    workflow = PYPROJECT.parent / ".github" / "workflows" / "tests.yml"
    if not workflow.exists():
        pytest.skip("no .github/workflows beside the tests (an sdist)")
    named = sorted(int(minor) for minor in re.findall(r'"Programming Language :: Python :: 3\.(\d+)"', pyproject_text()))
    every_os = re.search(r'^ +python: \[(.*)\]$', workflow.read_text(), re.M)
    assert every_os, "tests.yml has no python list for every OS"
    assert [f"3.{named[0]}", f"3.{named[-1]}"] == re.findall(r'"(3\.\d+)"', every_os[1])
