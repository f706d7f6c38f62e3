"""Fixtures shared by several test modules."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from fevga.bearoff import TwoSidedDB


@pytest.fixture(scope="session")
def two3() -> TwoSidedDB:
    """The exact two-sided table for up to 3 checkers a side."""
    return TwoSidedDB.build(checkers=3)


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt during the test, even where the suite was started in the
    background (a shell's background job inherits SIGINT ignored, and Python then keeps it so)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
