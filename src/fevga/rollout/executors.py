"""Running a rollout job: its missing blocks on local threads or a Dask cluster, with a
progress bar, periodic checkpoints and Ctrl-C returning the partial result."""

from __future__ import annotations

import importlib
import itertools
import math
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

import numpy as np

from fevga.errors import InvalidArgumentError
from fevga.rollout.jobs import Job, Sums, Tally, run_block, run_blocks
from fevga.rollout.results import Z95

DASK_CONNECT_TIMEOUT = 10.0  # seconds to reach a Dask scheduler given by address (distributed's default: 30)
DASK_TASKS_PER_WORKER = 16  # tasks a job is cut into per worker (a ~1 ms scheduler cost each stays small)
DASK_MAX_GROUP = 64  # blocks per Dask task at most
DASK_IN_FLIGHT = 2  # tasks per worker submitted at a time: bounds the memory of out-of-order blocks


class _Progress:
    """A tqdm bar in games, with the running equity and its 95% interval."""

    def __init__(self, job: Job, done: int, enabled: bool) -> None:
        tqdm = importlib.import_module("tqdm").tqdm
        self.bar = tqdm(total=job.games, initial=done, unit="game", disable=not enabled, dynamic_ncols=True,
                        desc="rollout", leave=False)
        self.partial = Sums(job.targets)

    def update(self, sums: Sums, games: int) -> None:
        self.partial.add(sums)
        s = self.partial.sums[0]
        n = s[0]
        if n > 1:
            mean = s[1] / n
            se = math.sqrt(max(s[2] / n - mean * mean, 0.0) / (n - 1))
            self.bar.set_postfix_str(f"equity {mean:+.3f} CI +-{Z95 * se:.3f}", refresh=False)
        self.bar.update(games)
        if self.bar.n >= self.bar.total:
            self.bar.refresh()  # the final rate and interval, even for a job shorter than the refresh interval

    def close(self) -> None:
        self.bar.close()


def execute(job: Job, workers: int, backend: str, scheduler: Any, checkpoint: Callable[[Tally], None] | None,
            checkpoint_every: float, progress: bool, on_block: Callable[[int, int], None] | None,
            only: range | None = None, cancel: threading.Event | None = None,
            resume: Tally | None = None) -> tuple[Tally, bool, int]:
    """Play the job's missing blocks (of `only`, when given) on from `resume` (blocks loaded
    from a checkpoint): (finished blocks, interrupted, games resumed). `checkpoint(blocks)`
    saves them, at once for the first finished block, then every `checkpoint_every` seconds
    and at the end. Memory stays bounded whatever the job's size: the block list is never
    built, and finished blocks are folded into a running sum in block order."""
    blocks = resume if resume is not None else Tally(job.targets, only.start if only is not None else 0)
    todo = (b for b in (only if only is not None else range(job.blocks)) if not blocks.has(b))
    done_games = blocks.games
    resumed = done_games
    bar = _Progress(job, done_games, progress)
    bar.partial.add(blocks.total())
    last_save = -math.inf  # the first finished block is saved at once, later ones every checkpoint_every s
    interrupted = False

    def finished(block: int, sums: Sums, games: int) -> None:
        nonlocal done_games, last_save
        expected = job.block_range(block)[1]
        if games < expected:  # stopped mid-block: its games are dropped, the block is redone on resume
            return
        blocks.add(block, sums)
        done_games += games
        bar.update(sums, games)
        if checkpoint is not None and time.monotonic() - last_save >= checkpoint_every:
            checkpoint(blocks)
            last_save = time.monotonic()
        if on_block is not None:
            on_block(done_games, job.games)

    try:
        if backend == "dask":
            interrupted = _execute_dask(job, todo, workers, scheduler, finished, cancel)
        else:
            interrupted = _execute_local(job, todo, workers, finished, cancel)
    finally:
        bar.close()
        if checkpoint is not None:
            checkpoint(blocks)
    return blocks, interrupted, resumed


def _execute_local(job: Job, todo: Iterable[int], workers: int, finished: Callable[[int, Sums, int], None],
                   cancel: threading.Event | None = None) -> bool:
    # Even one worker runs in a thread: the main thread stays free to take Ctrl-C at once and
    # raise the stop flag that the nogil loop checks between games. `cancel`, checked every
    # 0.2 s, does the same for a rollout run in another thread (a service's), which no signal reaches.
    stop = np.zeros(1, dtype=np.int32)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fevga-rollout")
    pending: set[Future[tuple[int, Sums, int]]] = set()
    queue = iter(todo)
    try:
        for block in queue:
            pending.add(pool.submit(run_block, job, block, stop))
            if len(pending) >= 2 * workers:
                break
        while pending:
            ready, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            if cancel is not None and cancel.is_set():
                raise KeyboardInterrupt
            for future in sorted(ready, key=id):
                finished(*future.result())
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(run_block, job, nxt, stop))
        return False
    except KeyboardInterrupt:
        stop[0] = 1
        for future in pending:
            future.cancel()
        return True
    finally:
        stop[0] = 1
        pool.shutdown(wait=True, cancel_futures=True)


def _execute_dask(job: Job, todo: Iterable[int], workers: int, scheduler: Any,
                  finished: Callable[[int, Sums, int], None], cancel: threading.Event | None = None) -> bool:
    try:
        distributed: Any = importlib.import_module("distributed")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise InvalidArgumentError("backend='dask' needs dask[distributed]: pip install 'fevga[dask]'") from exc
    Client, LocalCluster = distributed.Client, distributed.LocalCluster
    owned: list[Any] = []
    if isinstance(scheduler, Client):
        client = scheduler
    elif scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        owned = [client, cluster]
    else:
        client = connect(Client, scheduler)
        owned = [client]
    futures: set[Any] = set()
    try:
        shared = client.scatter(job, broadcast=True, hash=False)
        count = max(1, len(client.scheduler_info().get("workers", {})) or workers)
        size = max(1, min(DASK_MAX_GROUP, job.blocks // (DASK_TASKS_PER_WORKER * count)))
        queue = iter(todo)
        running = distributed.as_completed()

        def submit() -> None:
            group = list(itertools.islice(queue, size))
            if group:
                future = client.submit(run_blocks, shared, group, pure=False)
                futures.add(future)
                running.add(future)

        for _ in range(DASK_IN_FLIGHT * count):
            submit()
        for future in running:
            futures.discard(future)
            for item in future.result():
                finished(*item)
            if cancel is not None and cancel.is_set():  # heard as each group of blocks comes back
                raise KeyboardInterrupt
            submit()
        return False
    except KeyboardInterrupt:
        client.cancel(list(futures))
        return True
    finally:
        for thing in owned:
            thing.close()


def connect(client_class: Any, scheduler: Any) -> Any:
    """A Client of the scheduler at `scheduler`, or InvalidArgumentError within
    DASK_CONNECT_TIMEOUT seconds (an unreachable address, a missing port, ...)."""
    try:
        return client_class(scheduler, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, ValueError, TypeError, AssertionError) as exc:  # TimeoutError is an OSError; under load
        # distributed's own retry loop has raised an AssertionError: that too is "cannot connect"
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InvalidArgumentError(f"cannot connect to the Dask scheduler {scheduler!r}: {reason}") from None
