"""The reliability matrix's figures: each fault family is induced and its outcome counted.

    python bench/faults.py [--only fuzz,web,...] [--quick]

Every module in `bench/fault_checks/` (other than `figure` and the `_`-named helpers) is one family: its `run(quick)`
induces the faults and returns the figures it measured, each with the bar it is held to. The
runner prints one line per figure and exits 1 if any misses its bar. `--quick` shrinks the
counts (fewer bodies, kills and seconds) for a fast look; the issue's figures are from a full run.
The tests in `tests/reliability/` hold the same behaviours at CI size.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import time
from pathlib import Path

# subtle: the checks drive the fakes the tests use (tests.*), and this checkout's code, not
# whichever one the venv was installed from
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

import fault_checks  # noqa: E402
from fault_checks.figure import Figure  # noqa: E402

import program  # noqa: E402,F401  (offline env vars first)


def main() -> int:
    args = _parser().parse_args()
    # `figure` and the `_helpers` the checks share are not checks
    names = [m.name for m in pkgutil.iter_modules(fault_checks.__path__) if m.name != "figure" and m.name[0] != "_"]
    wanted = [n for n in names if not args.only or n in args.only.split(",")]
    figures: list[Figure] = []
    for name in wanted:
        started = time.monotonic()
        module = importlib.import_module(f"fault_checks.{name}")
        found = module.run(quick=args.quick)
        figures += found
        for figure in found:
            print(figure.line(), flush=True)
        print(f"      {name}: {time.monotonic() - started:.0f} s", flush=True)
    failed = [f for f in figures if not f.passed]
    print(f"{len(figures) - len(failed)}/{len(figures)} figures meet their bar")
    return 1 if failed else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated check names (modules of bench/fault_checks)")
    parser.add_argument("--quick", action="store_true", help="smaller counts, for a fast look")
    return parser


if __name__ == "__main__":
    sys.exit(main())
