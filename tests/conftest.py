"""Fixtures shared by several test modules."""

from __future__ import annotations

import signal

import pytest

from fevga.bearoff import TwoSidedDB


@pytest.fixture(scope="session")
def two3() -> TwoSidedDB:
    """The exact two-sided table for up to 3 checkers a side."""
    return TwoSidedDB.build(checkers=3)


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C raises KeyboardInterrupt in the suite and in the commands it starts, even where the
    suite runs as a background job: such a job inherits SIGINT ignored, Python then keeps it so,
    and the children inherit it in turn, so the Ctrl-C tests would hang instead of pass or fail."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
