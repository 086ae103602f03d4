"""The README's first example ("A taste of the API") runs as written."""
from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_api_taste_runs():
    text = README.read_text(encoding="utf-8")
    section = text.split("## A taste of the API", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README.md (A taste of the API)", "exec"), namespace)
    assert namespace["clone"] == namespace["state"] and namespace["action"] in namespace["state"].legal_actions()
