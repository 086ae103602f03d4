"""`python -m meeple ...` runs the `meeple` command (meeple.cli)."""
from .cli import main

if __name__ == "__main__":  # not when a spawned worker process re-imports this module
    raise SystemExit(main())
