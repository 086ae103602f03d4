# Type stub of the compiled engine (cpp/bindings). Its public face is typed in meeple._protocol
# (meeple.Game, meeple.State), which every engine class below satisfies; the classes themselves
# are left open here (Any) rather than described twice.
from typing import Any

CHANCE: int
TERMINAL: int
MAX_THREADS: int
SANITIZED: bool

AbacuachegoGame: Any
AbacuachegoState: Any
AbacuachegoVector: Any
AbacuachegoMctsTrees: Any
HarmoniesGame: Any
HarmoniesState: Any
HarmoniesVector: Any
HarmoniesMctsTrees: Any
ImperialHarvestGame: Any
ImperialHarvestState: Any
ImperialHarvestVector: Any
ImperialHarvestMctsTrees: Any

def harmonies_score_board(*args: Any, **kwargs: Any) -> Any: ...
def _cross_core_round_trip_ns(*args: Any, **kwargs: Any) -> Any: ...
def _prepare_for_exit() -> None: ...
