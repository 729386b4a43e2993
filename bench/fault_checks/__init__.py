"""The checks of `bench/faults.py`: one module per fault family, each with `run(quick) -> list[Figure]`."""
