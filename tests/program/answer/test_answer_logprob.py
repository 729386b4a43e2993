"""program/answer/answer_logprob.py: the mean log-probability of the tokens that wrote the short answer."""

from types import SimpleNamespace

import pytest

from program.answer.answer_logprob import mean_logprob

COMPLETION = ['{"', 'short_answer', '":', ' "', 'Shir', 'ley', ' Temple', '",', ' "', 'answer', '":', ' "', 'Shir',
              'ley', ' Temple', ' [1]', '."}']
LOGPROBS = [-0.1] * 4 + [-1.0, -0.5, -0.3] + [-0.1] * 5 + [-2.0] * 5


def as_dicts():
    return {"content": [{"token": t, "logprob": p} for t, p in zip(COMPLETION, LOGPROBS)]}


def test_the_tokens_of_the_short_answer_where_its_field_writes_it_are_averaged():
    assert mean_logprob(as_dicts(), "Shirley Temple") == pytest.approx(-0.6)  # not the answer field's -2.0s


def test_the_client_objects_read_as_the_dicts_do():
    objects = SimpleNamespace(content=[SimpleNamespace(token=t, logprob=p) for t, p in zip(COMPLETION, LOGPROBS)])
    assert mean_logprob(objects, "Shirley Temple") == pytest.approx(-0.6)


@pytest.mark.parametrize("logprobs, value", [(None, "Shirley Temple"), ({"content": []}, "x"), (as_dicts(), ""),
                                             (as_dicts(), "Corliss Archer")])
def test_no_logprobs_or_a_short_answer_not_written_is_none(logprobs, value):
    assert mean_logprob(logprobs, value) is None
