"""optimize/eval/command.py: how many questions run at once against each kind of LM."""

from optimize.eval.command import SERVED_WORKERS, workers
from program.base.settings import Settings


def test_the_in_process_local_lm_runs_one_question_at_a_time_and_says_so_when_more_were_asked(capsys):
    local = Settings(_env_file=None, profile="local")
    assert workers(local, None) == 1 and capsys.readouterr().err == ""
    assert workers(local, 4) == 1
    assert "one slot" in capsys.readouterr().err


def test_a_served_or_hosted_lm_runs_as_many_as_asked_or_the_default():
    served = Settings(_env_file=None, profile="openai", openai_api_key="sk-test")
    assert (workers(served, 3), workers(served, None)) == (3, SERVED_WORKERS)
