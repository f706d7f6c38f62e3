"""Fixtures shared by several test modules."""

from __future__ import annotations

import os
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
    and the children inherit it in turn, so the Ctrl-C tests would hang instead of pass or fail.

    With pytest-xdist, files are handed out in the order of SLOWEST_FIRST below, not re-sorted
    by how many tests each holds (see pytest_collection_modifyitems)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


# The files that take longest in a run of the README's `python -m pytest -n auto --dist loadfile`
# on two cores, longest first (wall seconds of each then, roughly). `--dist loadfile` gives each
# worker one whole file at a time, by default the files holding the most tests first: the
# packaging test (5 tests, but a wheel build of 1.5-2 minutes) then started last and ran alone
# while the other worker had nothing left. Longest first, the short files fill in at the end and
# both workers finish together (pytest_configure turns xdist's own sorting off: pytest-xdist
# >= 3.8). This orders the files only: every test runs, and in its own file's order. Keep it
# roughly up to date (`--durations`); a file not listed runs after these, in the usual order.
# FEVGA_SLOWEST_FIRST (file names, comma-separated) replaces the list for a run of other files
# or another build (.ci/sanitize: the core under AddressSanitizer).
SLOWEST_FIRST = tuple(name for name in os.environ.get("FEVGA_SLOWEST_FIRST", "").split(",") if name) or (
    "test_crosscheck.py",  # 240
    "test_error_rate.py",  # 220
    "test_packaging.py",  # 130-170, two compilers at once
    "test_pinned_results.py",  # 90
    "test_rollout.py",  # 60
    "test_gioul_crosscheck.py",  # 45
    "test_analyse.py",  # 55
    "test_limits.py",  # 55, waiting for commands to stop
    "test_net.py",  # 50
    "test_match.py",  # 45
    "test_strength_ladder.py",  # 40
    "test_http.py",  # 30
    "test_gioul_judgment.py",  # 27
    "test_board.py",  # 25
    "test_human.py",  # 25
    "test_ubgi.py",  # 24
    "test_silent.py",  # 24
    "test_qnet.py",  # 24
    "test_cli.py",  # 23
    "test_train.py",  # 23
    "test_gioul_cli.py",  # 22
    "test_gioul.py",  # 22
    "test_movegen_lists.py",  # 22
    "test_perft.py",  # 15
    "test_fuzz.py",  # 15
)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests of the SLOWEST_FIRST files first, in that order (a stable sort by file: within a
    file, and among the other files, the order is pytest's)."""
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
