"""Each optimizer name builds the DSPy optimizer it names; a wrong name fails clearly."""

import dspy
import pytest

from optimize.job.config import load_config
from optimize.job.prompt_optimizers import build_optimizer


def metric(example, pred, trace=None, pred_name=None, pred_trace=None):  # GEPA's five arguments
    return 1.0


@pytest.mark.parametrize("overrides, kind", [({"optimizer": "bootstrap"}, dspy.BootstrapFewShot),
                                              ({"optimizer": "bootstrap", "candidates": 2},
                                               dspy.BootstrapFewShotWithRandomSearch),
                                              ({"optimizer": "mipro"}, dspy.MIPROv2),
                                              ({"optimizer": "gepa"}, dspy.GEPA)])
def test_optimizer_by_name(overrides, kind):
    with dspy.context(lm=dspy.utils.DummyLM([])):
        assert isinstance(build_optimizer(metric, load_config("quick", overrides=overrides)), kind)


def test_a_teacher_bootstraps_while_the_configured_lm_stays_the_student():
    teacher = dspy.utils.DummyLM([])
    with dspy.context(lm=dspy.utils.DummyLM([])):
        optimizer = build_optimizer(metric, load_config("quick", overrides={"optimizer": "bootstrap"}), teacher)
        mipro = build_optimizer(metric, load_config("quick", overrides={"optimizer": "mipro"}), teacher)
    assert optimizer.teacher_settings == {"lm": teacher}
    assert mipro.prompt_model is teacher and mipro.task_model is not teacher


def test_unknown_optimizer_is_rejected_by_the_config():
    with pytest.raises(ValueError, match="optimizer"):
        load_config("quick", overrides={"optimizer": "simulated-annealing"})
