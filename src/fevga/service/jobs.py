"""Rollout jobs of the HTTP API: each runs `fevga.rollout` (a position) or `fevga.rollout_moves`
(every move of a roll) in its own worker thread, reports progress, and stops when cancelled.

At most `max_jobs` jobs are queued or running at once (a further one is refused, not
queued without bound); finished jobs are kept, newest first, up to `keep` of them.

>>> from fevga import Position
>>> jobs = JobQueue(max_jobs=1, keep=4)
>>> job = jobs.submit(lambda on_block: {"games": 0}, games=0, describe={})
>>> jobs.wait(job.id, timeout=10).status
'done'
>>> jobs.shutdown()
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from fevga.errors import FevgaError

__all__ = ["Job", "JobQueue", "TooManyJobs"]

OnBlock = Callable[[int, int], None]


class TooManyJobs(Exception):
    """The queue already holds its maximum of unfinished jobs."""


@dataclass
class Job:
    """One rollout job: its state, progress and (once done) result."""

    id: str
    games: int
    describe: dict[str, Any]
    status: str = "queued"  # queued, running, done, cancelled, failed
    done_games: int = 0
    result: Any = None
    error: str | None = None
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)

    @property
    def unfinished(self) -> bool:
        """Queued or running."""
        return self.status in ("queued", "running")

    def to_dict(self) -> dict[str, Any]:
        """The JSON form the API returns."""
        elapsed = None
        if self.started is not None:
            elapsed = (self.finished if self.finished is not None else time.time()) - self.started
        return {
            "id": self.id,
            "status": self.status,
            "request": self.describe,
            "games": self.games,
            "games_done": self.done_games,
            "progress": (self.done_games / self.games) if self.games else 1.0,
            "elapsed": elapsed,
            "result": self.result,
            "error": self.error,
        }


class JobQueue:
    """Jobs run by a pool of `max_jobs` threads; thread-safe."""

    def __init__(self, max_jobs: int, keep: int = 64) -> None:
        self.max_jobs = max_jobs
        self.keep = keep
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=max_jobs, thread_name_prefix="fevga-job")

    def submit(self, work: Callable[[OnBlock], Any], games: int, describe: dict[str, Any]) -> Job:
        """Queue `work(on_block)` (it returns the JSON-ready result); TooManyJobs when full."""
        with self._lock:
            if sum(j.unfinished for j in self._jobs.values()) >= self.max_jobs:
                raise TooManyJobs(f"{self.max_jobs} rollout jobs are already queued or running; "
                                  "wait for one or cancel one (DELETE /api/v1/rollouts/{id})")
            job = Job(uuid.uuid4().hex[:16], games, describe)
            self._jobs[job.id] = job
            self._trim()
        self._pool.submit(self._run, job, work)
        return job

    def _trim(self) -> None:
        finished = [k for k, j in self._jobs.items() if not j.unfinished]
        for k in finished[: max(0, len(finished) - self.keep)]:
            del self._jobs[k]

    def _run(self, job: Job, work: Callable[[OnBlock], Any]) -> None:
        if job.cancel.is_set():
            return self._end(job, "cancelled")
        job.status, job.started = "running", time.time()

        def on_block(done: int, total: int) -> None:
            job.done_games = done
            if job.cancel.is_set():
                raise KeyboardInterrupt  # the rollout returns its partial result

        try:
            result = work(on_block)
        except FevgaError as exc:
            job.error = str(exc)
            return self._end(job, "failed")
        except Exception as exc:  # a bug: the job fails, the server serves on
            job.error = f"internal error {type(exc).__name__}"
            return self._end(job, "failed")
        job.result = result
        self._end(job, "cancelled" if job.cancel.is_set() else "done")

    def _end(self, job: Job, status: str) -> None:
        job.status, job.finished = status, time.time()
        job.ended.set()

    def get(self, job_id: str) -> Job | None:
        """The job `job_id`, if it is known."""
        with self._lock:
            return self._jobs.get(job_id)

    def list(self) -> list[Job]:
        """Every known job, oldest first."""
        with self._lock:
            return list(self._jobs.values())

    def cancel(self, job_id: str) -> Job | None:
        """Ask job `job_id` to stop (a queued job never starts); the job, or None."""
        job = self.get(job_id)
        if job is not None and job.unfinished:
            job.cancel.set()
            if job.status == "queued":
                self._end(job, "cancelled")
        return job

    def wait(self, job_id: str, timeout: float) -> Job:
        """The job once it has ended (or after `timeout` seconds)."""
        job = self.get(job_id)
        if job is None:
            raise KeyError(job_id)
        job.ended.wait(timeout)
        return job

    def shutdown(self) -> None:
        """Cancel every job and wait for the running ones to stop."""
        for job in self.list():
            self.cancel(job.id)
        self._pool.shutdown(wait=True, cancel_futures=True)
