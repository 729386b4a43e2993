"""program/serving/token_buckets.py: bursts, refill, the wait it reports, and its bounded memory."""

from program.serving.token_buckets import TokenBuckets


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_client_gets_its_burst_then_waits_for_the_next_token():
    clock = Clock()
    buckets = TokenBuckets(per_minute=3, clock=clock)
    assert [buckets.take("a") for _ in range(3)] == [0, 0, 0]
    assert buckets.take("a") == 20.0  # one token every 20 s
    clock.now = 5
    assert buckets.take("a") == 15.0  # a refused request spent nothing
    clock.now = 20
    assert buckets.take("a") == 0
    assert buckets.take("b") == 0  # another client has its own bucket


def test_an_idle_client_refills_only_up_to_its_burst():
    clock = Clock()
    buckets = TokenBuckets(per_minute=2, clock=clock)
    buckets.take("a")
    clock.now = 3600
    assert [buckets.take("a") for _ in range(3)] == [0, 0, 30.0]


def test_memory_is_bounded_and_the_least_recent_client_goes_first():
    clock = Clock()
    buckets = TokenBuckets(per_minute=1, max_clients=3, clock=clock)
    for client in ("a", "b", "c"):
        buckets.take(client)
    assert buckets.take("a") > 0  # a is now the most recent
    for i in range(100):
        buckets.take(f"new{i}")
    assert len(buckets) == 3
    buckets = TokenBuckets(per_minute=1, max_clients=2, clock=clock)
    buckets.take("a"), buckets.take("b"), buckets.take("a"), buckets.take("c")
    assert buckets.take("a") > 0 and buckets.take("b") == 0  # b was evicted, a kept
