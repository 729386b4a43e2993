"""Fixtures shared by the LM tests: a fake OpenAI-compatible server on 127.0.0.1."""

import pytest

from tests.program.fake_openai import FakeOpenAI


@pytest.fixture
def server():
    fake = FakeOpenAI()
    yield fake
    fake.close()
