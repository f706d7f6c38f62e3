"""Fixtures shared by several test modules."""

from __future__ import annotations

import signal

import pytest

from fevga.bearoff import TwoSidedDB


@pytest.fixture(scope="session")
def two3() -> TwoSidedDB:
    """The exact two-sided table for up to 3 checkers a side."""
    return TwoSidedDB.build(checkers=3)


@pytest.fixture()
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Default bear-off tables are cached in the session's temporary folder, not the user's
    cache (with ``pytestmark = pytest.mark.usefixtures("private_cache")``)."""
    monkeypatch.setenv("FEVGA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "fevga-cache"))


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C raises KeyboardInterrupt in the suite and in the commands it starts, even where the
    suite runs as a background job: such a job inherits SIGINT ignored, Python then keeps it so,
    and the children inherit it in turn, so the Ctrl-C tests would hang instead of pass or fail."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
