"""program/retrieval/circuit_breaker.py: opens after N failures in a row, cools, and a success resets it."""

import time

from program.retrieval.circuit_breaker import CircuitBreaker


def test_the_breaker_opens_after_the_threshold_and_a_success_resets_the_count():
    breaker = CircuitBreaker(threshold=3, cool_s=0.2)
    breaker.failed(), breaker.failed(), breaker.succeeded(), breaker.failed(), breaker.failed()
    assert breaker.seconds_open() == 0  # the success broke the run: two in a row
    breaker.failed()
    assert 0 < breaker.seconds_open() <= 0.2
    time.sleep(0.25)
    assert breaker.seconds_open() == 0  # cooled: the next call may try
