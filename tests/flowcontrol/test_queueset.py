"""One priority level's seats and queues: shuffle sharding and fair queuing, without a server."""

from __future__ import annotations

import threading

import pytest
from orch_apiserver.flowcontrol.queueset import (
    CONCURRENCY_LIMIT,
    QUEUE_FULL,
    QueueSet,
    QueuingConfig,
    Rejected,
    deal_hand,
    flow_hash,
)


def test_a_hand_is_distinct_queues_and_the_same_for_the_same_flow() -> None:
    for flow in range(200):
        hand = deal_hand(flow_hash("global-default", f"user-{flow}"), 128, 6)
        assert len(set(hand)) == 6 and all(0 <= q < 128 for q in hand)
        assert hand == deal_hand(flow_hash("global-default", f"user-{flow}"), 128, 6)
    assert sorted(deal_hand(12345, 4, 4)) == [0, 1, 2, 3]  # a hand as big as the deck is the deck


def test_flows_rarely_share_a_whole_hand() -> None:
    hands = {tuple(sorted(deal_hand(flow_hash("fs", f"user-{i}"), 64, 6))) for i in range(500)}
    assert len(hands) == 500


def test_seats_first_then_the_queue_then_queue_full() -> None:
    level = QueueSet(QueuingConfig(concurrency_limit=1, queues=1, hand_size=1, queue_length_limit=1))
    first = level.enqueue_or_start(1)
    assert first.dispatched and not first.queued
    second = level.enqueue_or_start(2)
    assert second.queued and not second.dispatched
    with pytest.raises(Rejected) as refused:
        level.enqueue_or_start(3)
    assert refused.value.reason == QUEUE_FULL
    level.finish(first.queue)
    assert second.dispatched and second.event.is_set()  # the freed seat went to the waiting request


def test_a_level_without_queues_rejects_at_its_limit() -> None:
    level = QueueSet(QueuingConfig(concurrency_limit=2))
    level.enqueue_or_start(1)
    level.enqueue_or_start(2)
    with pytest.raises(Rejected) as refused:
        level.enqueue_or_start(3)
    assert refused.value.reason == CONCURRENCY_LIMIT


def test_a_request_that_waits_too_long_leaves_its_queue() -> None:
    level = QueueSet(QueuingConfig(concurrency_limit=1, queues=1, hand_size=1, queue_length_limit=5))
    level.enqueue_or_start(1)
    waiter = level.enqueue_or_start(1)
    assert level.wait(waiter, 0.05) is False
    assert level.waiting == 0 and not waiter.dispatched
    level.finish(0)
    assert level.executing == 0  # the seat was not given to the request that left


def test_fair_queuing_serves_a_quiet_flow_before_a_noisy_flow_s_backlog() -> None:
    level = QueueSet(QueuingConfig(concurrency_limit=1, queues=64, hand_size=1, queue_length_limit=50))
    noisy, quiet = flow_hash("fs", "noisy"), flow_hash("fs", "quiet")
    assert deal_hand(noisy, 64, 1) != deal_hand(quiet, 64, 1)
    running = level.enqueue_or_start(noisy)
    backlog = [level.enqueue_or_start(noisy) for _ in range(10)]
    late = level.enqueue_or_start(quiet)
    order = []
    for _ in range(3):
        level.finish(running.queue)
        running = next(w for w in [*backlog, late] if w.dispatched and w not in order)
        order.append(running)
    # the quiet flow arrived after ten noisy requests and still got the second seat handed out
    assert late in order[:2]


def test_waiters_on_threads_are_all_served_in_turn() -> None:
    level = QueueSet(QueuingConfig(concurrency_limit=2, queues=8, hand_size=2, queue_length_limit=50))
    served = []
    lock = threading.Lock()

    def request(flow: int) -> None:
        waiter = level.enqueue_or_start(flow_hash("fs", str(flow)))
        assert level.wait(waiter, 30)
        with lock:
            served.append(flow)
        level.finish(waiter.queue)

    threads = [threading.Thread(target=request, args=(i % 5,)) for i in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(served) == 40 and level.executing == 0 and level.waiting == 0
