"""fevga.parallel.run_tasks: independent tasks on threads, taken by the calling thread as they end."""

from __future__ import annotations

import threading

import pytest

from fevga.parallel import run_tasks


def test_every_task_runs_once_and_each_result_reaches_the_caller_thread() -> None:
    seen: list[tuple[int, int, bool]] = []
    run_tasks(range(20), 3, lambda k, cancel: k * k,
              lambda k, r: seen.append((k, r, threading.current_thread() is threading.main_thread())))
    assert sorted(seen) == [(k, k * k, True) for k in range(20)]


def test_a_slow_task_does_not_hold_back_the_others_but_ahead_bounds_them() -> None:
    release = threading.Event()
    order: list[int] = []

    def work(k: int, cancel: threading.Event) -> int:
        if k == 0:
            assert release.wait(10)
        return k

    def finished(k: int, r: int) -> None:
        order.append(k)
        if len(order) == 3:  # 1..3 ended while 0 runs; item 4 would be 4 past the oldest
            threading.Timer(0.3, release.set).start()

    for ahead, first in ((4, [1, 2, 3, 0]), (None, [1, 2, 3, 4, 5, 6, 7, 0])):
        order.clear()
        release.clear()
        run_tasks(range(8), 2, work, finished, ahead=ahead)
        assert order[:len(first)] == first and sorted(order) == list(range(8))


@pytest.mark.parametrize("where", ["work", "finished"])
def test_an_exception_cancels_the_running_tasks_starts_no_more_and_is_raised(where: str) -> None:
    started: list[int] = []
    stopped: list[int] = []

    def work(k: int, cancel: threading.Event) -> int:
        started.append(k)
        if where == "work" and k == 2:
            raise KeyboardInterrupt
        if k == 0:  # long work that checks its cancel flag
            assert cancel.wait(10)
            stopped.append(k)
        return k

    def finished(k: int, r: int) -> None:
        if where == "finished" and k == 2:
            raise ValueError("stop")

    with pytest.raises(KeyboardInterrupt if where == "work" else ValueError):
        run_tasks(range(100), 2, work, finished)
    assert stopped == [0] and max(started) < 10


def test_nested_threads_stay_within_their_limit() -> None:
    from fevga.errors import InvalidArgumentError
    from fevga.limits import MAX_NESTED_THREADS, MAX_WORKERS
    from fevga.parallel import nested_threads

    for workers in range(1, MAX_WORKERS + 1):
        tasks, each = nested_threads(workers)
        assert tasks == workers and 1 <= each <= workers and tasks * each <= MAX_NESTED_THREADS
    assert nested_threads(16) == (16, 16)  # unchanged wherever the product fits
    with pytest.raises(InvalidArgumentError, match="workers"):
        nested_threads(0)
