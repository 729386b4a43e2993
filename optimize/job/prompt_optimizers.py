"""Compile the loop's prompts with a DSPy optimizer: bootstrap, mipro or gepa.

HotpotQA examples label only the final answer, never the loop's intermediate steps, so demos
are bootstrapped from the program's own passing runs (no labelled demos). The compiled program
keeps the thresholds it was given. This module does not evaluate or tune thresholds.
"""

from __future__ import annotations

import dspy

from optimize.job.config import OptimizeConfig
from program.loop import GatedRAG

OPTIMIZERS = ("bootstrap", "mipro", "gepa")


def compile_prompts(program: GatedRAG, trainset: list[dspy.Example], metric, config: OptimizeConfig,
                    valset: list[dspy.Example] | None = None) -> GatedRAG:
    optimizer = build_optimizer(metric, config)
    if config.optimizer == "bootstrap":
        compiled = optimizer.compile(program, trainset=trainset)
    else:
        compiled = optimizer.compile(program, trainset=trainset, valset=valset or trainset)
    compiled.thresholds = program.thresholds.model_copy()
    return compiled


def build_optimizer(metric, config: OptimizeConfig):
    """The DSPy optimizer the config names, with one thread: the local LM serves one request at a time."""
    if config.optimizer == "bootstrap" and config.candidates:
        return dspy.BootstrapFewShotWithRandomSearch(metric=metric, max_bootstrapped_demos=config.max_demos,
                                                     max_labeled_demos=0, num_candidate_programs=config.candidates,
                                                     num_threads=1)
    if config.optimizer == "bootstrap":
        return dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=config.max_demos, max_labeled_demos=0,
                                     max_rounds=1)
    if config.optimizer == "mipro":
        return dspy.MIPROv2(metric=metric, auto="light", max_bootstrapped_demos=config.max_demos, max_labeled_demos=0,
                            num_threads=1, seed=config.seed)
    if config.optimizer == "gepa":
        # GEPA reads the metric's textual feedback; the reflection LM is the configured one
        return dspy.GEPA(metric=metric, auto="light", reflection_lm=dspy.settings.lm, num_threads=1, seed=config.seed)
    raise ValueError(f"unknown optimizer {config.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}")
