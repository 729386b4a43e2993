"""The loop's candidate prompts: labelled demo sets, or a DSPy optimizer's output (bootstrap, mipro or gepa).

`labelled` (the default) puts k demos built from training labels (`optimize.job.labelled_demos`)
on the reader (`synthesize`) and on the judge, whose draft is the other answer the loop gives;
each candidate is one seeded demo set. The DSPy optimizers bootstrap demos from the program's
own passing runs, with a stronger teacher when `teacher` is given (the student stays the
configured LM). Every candidate keeps the thresholds it was given. This module builds
candidates; the job runs them on the select questions and decides which ships.
"""

from __future__ import annotations

import sys

import dspy

from optimize.job.config import OptimizeConfig
from optimize.job.labelled_demos import demo_pool, demo_sets
from program.loop import GatedRAG

OPTIMIZERS = ("labelled", "bootstrap", "mipro", "gepa")
DEMO_READERS = ("synthesize", "judge")


def labelled_candidates(program: GatedRAG, train: list[dspy.Example], config: OptimizeConfig) -> dict[str, GatedRAG]:
    pool = demo_pool(program, train)
    print(f"labelled demos: {len(pool)} of {len(train)} train questions have gold passages in the collections "
          f"that state their answer; {config.demo_sets} demo set(s) of {min(config.max_demos, len(pool))} to try",
          file=sys.stderr)
    candidates = {}
    for n, demos in enumerate(demo_sets(pool, config.max_demos, config.demo_sets, config.seed), start=1):
        candidate = program.deepcopy()
        for name in DEMO_READERS:
            getattr(candidate, name).demos = list(demos)
        candidates[f"demos-{n}"] = candidate
    return candidates


def compile_prompts(program: GatedRAG, trainset: list[dspy.Example], metric, config: OptimizeConfig,
                    valset: list[dspy.Example] | None = None, teacher: dspy.LM | None = None) -> GatedRAG:
    optimizer = build_optimizer(metric, config, teacher)
    if config.optimizer == "bootstrap":
        compiled = optimizer.compile(program, trainset=trainset)
    else:
        compiled = optimizer.compile(program, trainset=trainset, valset=valset or trainset)
    compiled.thresholds = program.thresholds.model_copy()
    return compiled


def build_optimizer(metric, config: OptimizeConfig, teacher: dspy.LM | None = None):
    """The DSPy optimizer the config names, with one thread: the local LM serves one request at a time."""
    teaching = {"teacher_settings": {"lm": teacher}} if teacher is not None else {}
    if config.optimizer == "bootstrap" and config.candidates:
        return dspy.BootstrapFewShotWithRandomSearch(metric=metric, max_bootstrapped_demos=config.max_demos,
                                                     max_labeled_demos=0, num_candidate_programs=config.candidates,
                                                     num_threads=1, **teaching)
    if config.optimizer == "bootstrap":
        return dspy.BootstrapFewShot(metric=metric, max_bootstrapped_demos=config.max_demos, max_labeled_demos=0,
                                     max_rounds=1, **teaching)
    if config.optimizer == "mipro":
        return dspy.MIPROv2(metric=metric, auto="light", max_bootstrapped_demos=config.max_demos, max_labeled_demos=0,
                            num_threads=1, seed=config.seed, prompt_model=teacher, **teaching)
    if config.optimizer == "gepa":
        # GEPA reads the metric's textual feedback; the reflection LM is the teacher, else the configured one
        return dspy.GEPA(metric=metric, auto="light", reflection_lm=teacher or dspy.settings.lm, num_threads=1,
                         seed=config.seed)
    raise ValueError(f"unknown optimizer {config.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}")
