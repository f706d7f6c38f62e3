"""Fixtures shared by several test modules."""

from __future__ import annotations

import signal

import pytest

from fevga.bearoff import OneSidedDB, TwoSidedDB


GAMES = ("fevga", "gioul")


@pytest.fixture(params=GAMES)
def game(request: pytest.FixtureRequest) -> str:
    """Each game in turn, for a test of behaviour both games share: it runs as test_x[fevga] and
    test_x[gioul] (a test's own ``parametrize("game", ...)`` takes precedence)."""
    return str(request.param)


@pytest.fixture(scope="session")
def two3() -> TwoSidedDB:
    """The exact two-sided table for up to 3 checkers a side."""
    return TwoSidedDB.build(checkers=3)


# The 6-point tables of both games, built once a session (test_bearoff.py, test_gioul_bearoff.py).
@pytest.fixture(scope="session")
def db() -> OneSidedDB:
    """Fevga's one-sided table, 15 checkers."""
    return OneSidedDB.build(points=6, checkers=15)


@pytest.fixture(scope="session")
def ts() -> TwoSidedDB:
    """Fevga's two-sided table, 6 checkers a side."""
    return TwoSidedDB.build(checkers=6)


@pytest.fixture(scope="session")
def g15() -> OneSidedDB:
    """Gioul's one-sided table, 15 checkers."""
    return OneSidedDB.build(6, 15, game="gioul")


@pytest.fixture(scope="session")
def g6() -> TwoSidedDB:
    """Gioul's two-sided table, 6 checkers a side."""
    return TwoSidedDB.build(6, game="gioul")


@pytest.fixture()
def one_sided(game: str, request: pytest.FixtureRequest) -> OneSidedDB:
    """The one-sided table of `game`, 15 checkers (db or g15)."""
    table: OneSidedDB = request.getfixturevalue("db" if game == "fevga" else "g15")
    return table


@pytest.fixture()
def two_sided(game: str, request: pytest.FixtureRequest) -> TwoSidedDB:
    """The two-sided table of `game`, 6 checkers a side (ts or g6)."""
    table: TwoSidedDB = request.getfixturevalue("ts" if game == "fevga" else "g6")
    return table


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
