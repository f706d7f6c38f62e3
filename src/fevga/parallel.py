"""Long work that answers Ctrl-C: batch work split over threads (`run_chunks`: the rows are cut
into chunks of at most `CHUNK_ROWS` that the main thread hands out, so a KeyboardInterrupt
waits for at most one chunk per thread instead of the whole batch; each row's result depends on
that row alone, so the chunking never changes a result), and the few steps that must not be
cut in half (`deferred_interrupt`).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager

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
