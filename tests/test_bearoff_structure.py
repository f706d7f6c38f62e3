"""Bear-off files whose checksums are valid but whose sections do not make a consistent table.

Their arrays would reach the nogil kernels as raw pointers (fevga_core/rollout.pyx `Tables`), so
`open_db` and the DB constructors must reject them with a BearoffFileError naming the section.
Each file here is written with the real writer, so the header and payload checksums are valid.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from fevga.bearoff import OneSidedDB, TwoSidedDB, default_one_sided, open_db
from fevga.bearoff import tables as tables_module
from fevga.bearoff.fileformat import TableFile, write_table
from fevga.errors import BearoffFileError, InvalidArgumentError
from boards import SIX
from fevga_core import bearoff as core

Arrays = dict[str, npt.NDArray[Any]]
POINTS, CHECKERS = 6, 5
ENTRIES = core.count(POINTS, CHECKERS)
FIRST = ENTRIES - core.count(POINTS, CHECKERS - 1)


@pytest.fixture(scope="module")
def one() -> OneSidedDB:
    return OneSidedDB.build(POINTS, CHECKERS)


@pytest.fixture(scope="module")
def two() -> TwoSidedDB:
    return TwoSidedDB.build(checkers=3, points=4)


@pytest.fixture(scope="module")
def two_mars() -> TwoSidedDB:
    return TwoSidedDB.build(checkers=2, points=3, total=2)  # has a win table


def rewrite(db: OneSidedDB | TwoSidedDB, path: Path, change: Callable[[Arrays], object], **meta: Any) -> Path:
    """Save `db`, change its arrays (and header fields), write them back with valid checksums."""
    good = TableFile(db.save(path))
    header = {k: v for k, v in good.meta.items() if k not in ("sections", "payload_bytes", "payload_crc32")}
    header.update(meta)
    arrays = {name: np.array(a) for name, a in good.arrays.items()}
    change(arrays)
    write_table(path, header, arrays)
    TableFile(path)  # the checksums are valid: only the structure is wrong
    return path


def rejects(path: Path, section: str, detail: str = "") -> str:
    with pytest.raises(BearoffFileError) as info:
        open_db(path)
    message = str(info.value)
    assert repr(str(path)) in message, message
    assert f"section {section!r}" in message, message
    assert re.search(detail, message), message
    return message


# --- one-sided ----------------------------------------------------------------------------

def test_reviewer_reproduction_is_rejected(one: OneSidedDB, tmp_path: Path) -> None:
    def change(a: Arrays) -> None:
        a["dist_pool"] = a["dist_pool"][:10]
        del a["first_pool"]

    path = rewrite(one, tmp_path / "t.fbo", change)
    with pytest.raises(BearoffFileError, match="dist_pool|first_pool"):
        open_db(path)


def test_truncated_pool(one: OneSidedDB, tmp_path: Path) -> None:
    def change(a: Arrays) -> None:
        a["dist_pool"] = a["dist_pool"][:10]

    rejects(rewrite(one, tmp_path / "t.fbo", change), "dist_offset", r"outside section 'dist_pool' of 10 values")

    def change_first(a: Arrays) -> None:
        a["first_pool"] = a["first_pool"][:-1]

    rejects(rewrite(one, tmp_path / "f.fbo", change_first), "first_offset", r"'first_pool'")


@pytest.mark.parametrize("name", ["first_pool", "first_offset", "first_start", "first_length", "first_mean",
                                  "mean", "stdev", "dist_offset", "dist_start", "dist_length", "dist_pool"])
def test_missing_section(one: OneSidedDB, tmp_path: Path, name: str) -> None:
    def change(a: Arrays) -> None:
        del a[name]

    rejects(rewrite(one, tmp_path / "t.fbo", change), name, "is missing")


@pytest.mark.parametrize(
    ("name", "length", "expected"),
    [
        ("first_mean", ENTRIES, FIRST),  # first-off arrays cover only positions with exactly C checkers
        ("first_length", FIRST - 1, FIRST),
        ("first_offset", FIRST + 1, FIRST),
        ("stdev", ENTRIES - 1, ENTRIES),
        ("dist_start", ENTRIES + 5, ENTRIES),
        ("mean", 3, ENTRIES),
    ],
)
def test_wrong_length(one: OneSidedDB, tmp_path: Path, name: str, length: int, expected: int) -> None:
    def change(a: Arrays) -> None:
        a[name] = np.resize(a[name], length)

    rejects(rewrite(one, tmp_path / "t.fbo", change), name, rf"expected \({expected},\)")


def test_two_dimensional_section(one: OneSidedDB, tmp_path: Path) -> None:
    def change(a: Arrays) -> None:
        a["stdev"] = np.stack([a["stdev"], a["stdev"]])

    rejects(rewrite(one, tmp_path / "t.fbo", change), "stdev", "shape")


@pytest.mark.parametrize("value", [-1, "pool", "pool-1", 2**63 - 1])
@pytest.mark.parametrize("prefix", ["dist", "first"])
def test_offset_past_the_pool(one: OneSidedDB, tmp_path: Path, prefix: str, value: int | str) -> None:
    def change(a: Arrays) -> None:
        pool = len(a[f"{prefix}_pool"])
        index = 7
        offset = {"pool": pool, "pool-1": pool - int(a[f"{prefix}_length"][index]) + 1}.get(str(value), value)
        a[f"{prefix}_offset"][index] = offset

    rejects(rewrite(one, tmp_path / "t.fbo", change), f"{prefix}_offset", rf"entry 7 reads {prefix}_pool\[")


def test_length_past_the_pool(one: OneSidedDB, tmp_path: Path) -> None:
    def change(a: Arrays) -> None:
        a["dist_length"][-1] = 60000  # offset in range, window runs past the end

    rejects(rewrite(one, tmp_path / "t.fbo", change), "dist_offset", f"entry {ENTRIES - 1} reads")


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        ("dist_offset", np.int32),
        ("dist_offset", np.float64),
        ("first_offset", np.uint64),
        ("dist_start", np.int16),
        ("first_length", np.uint32),
        ("mean", np.float32),
        ("first_mean", np.int64),
        ("dist_pool", np.int64),
        ("first_pool", np.float16),
    ],
)
def test_wrong_dtype(one: OneSidedDB, tmp_path: Path, name: str, dtype: Any) -> None:
    def change(a: Arrays) -> None:
        a[name] = a[name].astype(dtype)

    rejects(rewrite(one, tmp_path / "t.fbo", change), name, f"has dtype {np.dtype(dtype)}, expected")


def test_consistent_files_still_open(one: OneSidedDB, tmp_path: Path) -> None:
    for dtype in ("float64", "float32"):
        loaded = open_db(one.save(tmp_path / f"{dtype}.fbo", dtype=dtype))
        assert isinstance(loaded, OneSidedDB)
        assert loaded.mean_rolls(SIX) == 1.25
        assert loaded.distribution((5,)) == pytest.approx(one.distribution((5,)), abs=1e-7)
        assert loaded.first_off_distribution((5,)).tolist() == one.first_off_distribution((5,)).tolist()
    # Extra sections a newer writer might add are carried along, not rejected.
    path = rewrite(one, tmp_path / "extra.fbo", lambda a: a.update(note=np.arange(3)))
    extra = open_db(path, kind="one-sided")
    assert isinstance(extra, OneSidedDB) and extra.mean_rolls(SIX) == 1.25


def test_constructor_checks_arrays(one: OneSidedDB) -> None:
    arrays = dict(one._a, first_pool=one._a["first_pool"][:2])
    with pytest.raises(BearoffFileError, match=r"^bear-off table arrays: section 'first_offset'"):
        OneSidedDB(POINTS, CHECKERS, arrays)
    with pytest.raises(BearoffFileError, match="'mean'"):
        OneSidedDB(POINTS, CHECKERS + 1, dict(one._a))  # arrays of a smaller table
    with pytest.raises(BearoffFileError, match="'dist_pool' is a list"):
        OneSidedDB(POINTS, CHECKERS, dict(one._a, dist_pool=[0.0] * 10))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        OneSidedDB(12, CHECKERS, dict(one._a))
    assert OneSidedDB(POINTS, CHECKERS, dict(one._a)).mean_rolls(SIX) == 1.25


def test_inconsistent_cached_default_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FEVGA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tables_module, "_DEFAULT", {})
    path = tmp_path / "one-sided-6x15.fbo"
    fresh = OneSidedDB.build(6, 15)
    rewrite(fresh, path, lambda a: a.update(dist_pool=a["dist_pool"][:10]))
    rebuilt = default_one_sided(progress=False)
    assert rebuilt.distribution((15,)).tolist() == fresh.distribution((15,)).tolist()
    reopened = open_db(path)  # the cache file was rewritten
    assert isinstance(reopened, OneSidedDB)
    assert reopened.distribution((15,)).tolist() == fresh.distribution((15,)).tolist()


# --- two-sided ----------------------------------------------------------------------------

def test_two_sided_size_mismatch(two: TwoSidedDB, tmp_path: Path) -> None:
    positions = core.count(4, 3)

    def change(a: Arrays) -> None:
        a["equity"] = a["equity"][:-1]

    rejects(rewrite(two, tmp_path / "t.fbo", change), "equity", rf"expected {positions}\^2 = {positions**2}")
    # A header that claims a bigger table than the arrays hold.
    rejects(rewrite(two, tmp_path / "big.fbo", lambda a: None, checkers=4), "equity", "values, expected")


def test_two_sided_wrong_dtype_and_missing(two: TwoSidedDB, tmp_path: Path) -> None:
    def to_int(a: Arrays) -> None:
        a["equity"] = a["equity"].astype(np.int64)

    rejects(rewrite(two, tmp_path / "t.fbo", to_int), "equity", "has dtype int64")
    rejects(rewrite(two, tmp_path / "m.fbo", lambda a: a.clear()), "equity", "is missing")


def test_two_sided_win_table(two_mars: TwoSidedDB, tmp_path: Path) -> None:
    def cut(a: Arrays) -> None:
        a["win"] = a["win"][:5]

    rejects(rewrite(two_mars, tmp_path / "t.fbo", cut), "win", "values, expected")
    rejects(rewrite(two_mars, tmp_path / "m.fbo", lambda a: a.pop("win")), "win", "checkers == total")

    def to_bytes(a: Arrays) -> None:
        a["win"] = a["win"].astype(np.uint8)

    rejects(rewrite(two_mars, tmp_path / "d.fbo", to_bytes), "win", "has dtype uint8")
    loaded = open_db(two_mars.save(tmp_path / "ok.fbo", dtype="float32"))
    assert isinstance(loaded, TwoSidedDB)
    assert np.allclose(loaded.win_matrix(), two_mars.win_matrix(), atol=1e-6)


def test_two_sided_header_total(two: TwoSidedDB, tmp_path: Path) -> None:
    for total in (2, 16):
        path = rewrite(two, tmp_path / f"t{total}.fbo", lambda a: None, total=total)
        with pytest.raises(BearoffFileError, match="malformed header.*total"):
            open_db(path)


def test_two_sided_constructor_checks_arrays(two: TwoSidedDB, two_mars: TwoSidedDB) -> None:
    with pytest.raises(BearoffFileError, match=r"^bear-off table arrays: section 'equity' has dtype float32"):
        TwoSidedDB(4, 3, 15, {"equity": two._a["equity"].astype(np.float32)})
    with pytest.raises(BearoffFileError, match="section 'equity' has 1225 values"):
        TwoSidedDB(4, 4, 15, dict(two._a))
    with pytest.raises(BearoffFileError, match="section 'win' is missing"):
        TwoSidedDB(3, 2, 2, {"equity": two_mars._a["equity"]})
    with pytest.raises(InvalidArgumentError, match="total"):
        TwoSidedDB(4, 3, 2, dict(two._a))
    square = two._a["equity"].reshape(35, 35)
    assert TwoSidedDB(4, 3, 15, {"equity": square}).equity(SIX[2:], SIX[2:]) == two.equity(SIX[2:], SIX[2:])
