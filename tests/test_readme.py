"""The README's examples run as written, and docs/serialization.md's documents load."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import meeple
from meeple import selfplay
from meeple.bots import Match
from meeple.serialization import Record

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_the_api_taste_runs():
    text = README.read_text(encoding="utf-8")
    section = text.split("## A taste of the API", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README.md (A taste of the API)", "exec"), namespace)
    assert namespace["clone"] == namespace["state"] and namespace["action"] in namespace["state"].legal_actions()


def test_every_readme_python_block_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2
    for number, code in enumerate(blocks, 1):
        exec(compile(code, f"README.md (python block {number})", "exec"), {})


def test_serialization_documents_load():
    """The state document is a position one move from the start, and the record replays to its
    returns."""
    text = (ROOT / "docs" / "serialization.md").read_text(encoding="utf-8")
    state_doc, record_doc = (json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S))
    state = meeple.from_json(json.dumps(state_doc))
    start = meeple.load("abacuachego").new_initial_state()
    assert any(start.child(int(a)) == state for a in start.legal_actions())
    record = Record.from_json(json.dumps(record_doc))
    final = record.replay()
    assert final.is_terminal() and final.returns().tolist() == record_doc["returns"]
    assert record_doc["meta"]["plies"] == len(record_doc["actions"])
    # What `meeple selfplay "abacuachego(pits_per_row=2,seeds_per_pit=2)" --games 5 --seed 3` writes.
    out = io.StringIO()
    game = meeple.load("abacuachego", pits_per_row=2, seeds_per_pit=2)
    selfplay.run(Match(game, ("random", "random"), seed=3), 5, out=out)
    assert json.loads(out.getvalue().splitlines()[4]) == record_doc
