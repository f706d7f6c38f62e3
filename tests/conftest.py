"""Fixtures shared by several test modules."""

from __future__ import annotations

import pytest

from fevga.bearoff import TwoSidedDB


@pytest.fixture(scope="session")
def two3() -> TwoSidedDB:
    """The exact two-sided table for up to 3 checkers a side."""
    return TwoSidedDB.build(checkers=3)
