"""The systems an eval compares: the gated loop, its learned-release variant and its two baselines, over one index.

The baselines get the gated program's state (prompts, demos, thresholds), so a difference
between them is the loop's doing, not a prompt's or a top-k's. This module builds programs;
it starts no LM.
"""

from __future__ import annotations

from pathlib import Path

import dspy

from program.assembly.factory import build_program
from program.base.settings import Settings
from program.baselines import SYSTEMS as BUILT
from program.loop import GatedRAG

BASELINES = {name: system for name, system in BUILT.items() if system is not GatedRAG}
SYSTEMS = tuple(BUILT)


def build_systems(settings: Settings, names: list[str], program_path: Path | None) -> dict[str, dspy.Module]:
    gated = build_program(settings, program_path=program_path)
    return {name: gated if name == "gated" else baseline(name, gated) for name in names}


def baseline(name: str, gated: GatedRAG) -> GatedRAG:
    """The system `name` over the gated program's index, web, sessions and link follower, with its
    prompts, demos and thresholds: the baselines read no web, but the learned gate does."""
    system = BASELINES[name](gated.search, gated.web, sessions=gated.sessions, breadth=gated.breadth)
    system.load_state(gated.dump_state())
    return system
