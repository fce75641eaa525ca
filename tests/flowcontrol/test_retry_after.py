"""The Retry-After of priority and fairness's 429s follows each level's recent refusals (the reference's v1.28+
dropped-requests tracker): doubled while a level keeps turning requests away, lowered again once it stops."""

from __future__ import annotations

import itertools

from orch_apiserver.flowcontrol.retry_after import MAX_RETRY_AFTER, DroppedRequests


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_level_that_rarely_refuses_says_one_second() -> None:
    clock = Clock()
    dropped = DroppedRequests(clock)
    assert dropped.retry_after("workload-low") == 1  # nothing refused yet
    for _ in range(5):
        assert dropped.record("workload-low") == 1
        clock.now += 2  # one refusal every other second: fewer than three a second


def test_a_level_that_keeps_refusing_doubles_its_retry_after_up_to_32_seconds() -> None:
    clock = Clock()
    dropped = DroppedRequests(clock)
    answers = []
    for _ in range(60):  # 10 refusals every second for a minute
        answers += [dropped.record("node-high") for _ in range(10)]
        clock.now += 1
    assert answers[0] == 1
    # at most one raise per current Retry-After seconds: one spike is one raise, not one per refusal
    raises = [b for a, b in itertools.pairwise(answers) if b != a]
    assert raises == [2, 4, 8, 16, 32]
    assert answers[-1] == MAX_RETRY_AFTER
    assert dropped.retry_after("system") == 1  # each level on its own


def test_once_refusals_stop_the_retry_after_comes_down_a_second_at_a_time() -> None:
    clock = Clock()
    dropped = DroppedRequests(clock)
    for _ in range(20):
        for _ in range(30):
            dropped.record("node-high")
        clock.now += 1
    high = dropped.retry_after("node-high")
    assert high >= 8
    later = []
    for _ in range(5):  # the storm is over: a lone refusal now and then
        clock.now += 60
        later.append(dropped.record("node-high"))
    assert later == [high - 1, high - 2, high - 3, high - 4, high - 5]
