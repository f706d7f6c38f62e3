"""Long work that answers Ctrl-C: batch work split over threads (`run_chunks`: the rows are cut
into chunks of at most `CHUNK_ROWS` that the main thread hands out, so a KeyboardInterrupt
waits for at most one chunk per thread instead of the whole batch; each row's result depends on
that row alone, so the chunking never changes a result), independent tasks on threads whose
results the main thread takes as they finish (`run_tasks`), and the few steps that must not be
cut in half (`deferred_interrupt`).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from typing import TypeVar

from fevga.checks import check_workers
from fevga.limits import MAX_NESTED_THREADS

T = TypeVar("T")
R = TypeVar("R")

CHUNK_ROWS = 1 << 14  # rows per task: ~10 ms of move generation or net evaluation


def run_chunks(rows: int, threads: int, work: Callable[[int, int], object], chunk: int = CHUNK_ROWS) -> None:
    """Call ``work(start, stop)`` over [0, rows) in chunks of at most `chunk` rows: in the
    calling thread when `threads` is 1 or one chunk holds every row (the core's nogil loops
    check for Ctrl-C themselves), else on a pool of `threads` threads. Ctrl-C (or an
    exception of `work`) cancels the chunks not yet started, waits for those running (at
    most one chunk each) and re-raises."""
    if threads <= 1 or rows <= chunk:
        if rows:
            work(0, rows)
        return
    size = max(1, min(chunk, -(-rows // threads)))
    chunks = iter(range(0, rows, size))
    pending: set[Future[object]] = set()
    with ThreadPoolExecutor(threads, thread_name_prefix="fevga-batch") as pool:
        try:
            for start in chunks:
                pending.add(pool.submit(work, start, min(rows, start + size)))
                if len(pending) >= 2 * threads:
                    break
            while pending:
                done, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                for future in done:
                    future.result()
                    following = next(chunks, None)
                    if following is not None:
                        pending.add(pool.submit(work, following, min(rows, following + size)))
        except BaseException:
            for future in pending:
                future.cancel()
            raise


def nested_threads(workers: object) -> tuple[int, int]:
    """(tasks at once, worker threads each) for `workers` (None: every core): `workers` of
    each, the threads of one task fewer where the product would pass MAX_NESTED_THREADS.

    >>> nested_threads(2), nested_threads(64), nested_threads(256)
    ((2, 2), (64, 16), (256, 4))
    """
    tasks = check_workers(workers)
    return tasks, max(1, min(tasks, MAX_NESTED_THREADS // tasks))


def run_tasks(items: Iterable[T], threads: int, work: Callable[[T, threading.Event], R],
              finished: Callable[[T, R], None], ahead: int | None = None) -> None:
    """Call ``work(item, cancel)`` for every item on a pool of `threads` threads, started in
    the items' order, and ``finished(item, result)`` in the calling thread as each one ends (in
    the order they end). With `ahead`, an item starts only while fewer than `ahead` items
    after the oldest unfinished one have started, which bounds the results a caller holds
    back to keep its own order. Ctrl-C in the calling thread, or an exception of `work` or
    `finished`, sets `cancel` (long work checks it and stops), starts nothing more, waits for
    the running items and re-raises."""
    queue = iter(items)
    order: dict[Future[R], tuple[int, T]] = {}  # running: started as the n-th item
    cancel = threading.Event()
    started = 0
    with ThreadPoolExecutor(threads, thread_name_prefix="fevga-task") as pool:
        try:
            while True:
                oldest = min((n for n, _ in order.values()), default=started)
                while len(order) < threads and (ahead is None or started < oldest + ahead):
                    try:
                        item = next(queue)
                    except StopIteration:
                        break
                    order[pool.submit(work, item, cancel)] = (started, item)
                    started += 1
                if not order:
                    return
                done, _ = wait(order, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: order[f][0]):
                    _, item = order.pop(future)
                    finished(item, future.result())
        except BaseException:
            cancel.set()
            for future in order:
                future.cancel()
            raise


@contextmanager
def deferred_interrupt() -> Iterator[None]:
    """Hold back Ctrl-C until the block ends, then raise it: for a few quick steps that must
    happen together or not at all (applying a training batch, writing one game of a report).
    Never around long work: that must answer Ctrl-C itself."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt
