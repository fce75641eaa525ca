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
    SeatPool,
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


def _levels(*configs: QueuingConfig) -> list[QueueSet]:
    pool = SeatPool()
    levels = [QueueSet(config, pool) for config in configs]
    pool.attach(levels)
    return levels


def test_a_busy_level_runs_on_an_idle_level_s_lendable_seats_and_then_queues() -> None:
    busy, idle = _levels(
        QueuingConfig(concurrency_limit=2, queues=4, hand_size=1, queue_length_limit=10),
        QueuingConfig(concurrency_limit=4, queues=4, hand_size=1, queue_length_limit=10, lendable=3),
    )
    started = [busy.enqueue_or_start(i) for i in range(6)]
    assert [w.dispatched for w in started] == [True] * 5 + [False]  # its own 2, then the idle level's 3
    assert started[5].queued
    own = idle.enqueue_or_start(99)
    assert own.dispatched  # the seat it never lends
    assert idle.enqueue_or_start(98).queued  # its lent seats are taken: it waits for one to come back


def test_a_freed_lent_seat_goes_back_to_its_lender_before_the_borrower_s_backlog() -> None:
    busy, lender = _levels(
        QueuingConfig(concurrency_limit=1, queues=4, hand_size=1, queue_length_limit=10),
        QueuingConfig(concurrency_limit=2, queues=4, hand_size=1, queue_length_limit=10, lendable=2),
    )
    running = [busy.enqueue_or_start(i) for i in range(3)]  # 1 own + 2 borrowed
    backlog = [busy.enqueue_or_start(i) for i in range(3, 6)]
    reclaim = lender.enqueue_or_start(7)
    assert all(w.dispatched for w in running) and reclaim.queued and not reclaim.dispatched
    busy.finish(running[1].queue)  # a borrowed seat comes back
    # the lender uses none of its seats, the borrower more than its own: the lender gets it
    assert reclaim.dispatched and not any(w.dispatched for w in backlog)


def test_a_level_that_lends_nothing_keeps_its_idle_seats() -> None:
    busy, keeper = _levels(
        QueuingConfig(concurrency_limit=1),
        QueuingConfig(concurrency_limit=3, queues=1, hand_size=1, queue_length_limit=1),
    )
    busy.enqueue_or_start(1)
    with pytest.raises(Rejected) as refused:  # a Reject level whose seat is taken, though 3 seats sit idle
        busy.enqueue_or_start(2)
    assert refused.value.reason == CONCURRENCY_LIMIT
    assert all(keeper.enqueue_or_start(i).dispatched for i in range(3))


def test_a_level_dropped_from_the_configuration_keeps_the_seats_its_requests_borrowed() -> None:
    pool = SeatPool()
    lender = QueueSet(QueuingConfig(concurrency_limit=2, queues=1, hand_size=1, queue_length_limit=5, lendable=2), pool)
    dropped = QueueSet(QueuingConfig(concurrency_limit=1), pool)
    pool.attach([lender, dropped])
    borrowed = [dropped.enqueue_or_start(i) for i in range(3)]  # 1 own + the lender's 2
    assert all(w.dispatched for w in borrowed)
    pool.attach([lender])  # a new configuration without that level
    assert lender.enqueue_or_start(1).queued  # both its seats still run the dropped level's requests
    dropped.finish(borrowed[0].queue)
    assert lender.executing == 1


def test_a_request_waiting_in_a_dropped_level_still_gets_that_level_s_seat() -> None:
    pool = SeatPool()
    dropped = QueueSet(QueuingConfig(concurrency_limit=1, queues=1, hand_size=1, queue_length_limit=5), pool)
    pool.attach([dropped])
    running = dropped.enqueue_or_start(1)
    waiting = dropped.enqueue_or_start(1)
    pool.attach([])  # the PriorityLevelConfiguration was deleted
    dropped.finish(running.queue)
    assert waiting.dispatched
