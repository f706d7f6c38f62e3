"""The input layer of every file format (issue 19: "Input layer per format with hard limits";
issue 14, item 12): crafted match text, JSON records, net weights, bear-off tables and
checkpoints each fail with their own FevgaError naming the file, the field and the limit, and
content checksums catch edited files while older files still load."""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fevga
from fevga import (BearoffFileError, CheckpointError, FevgaError, InvalidNotationError, Net, NetFileError, Position,
                   RecordError)
from fevga.bearoff import OneSidedDB, TwoSidedDB, open_db
from fevga.bearoff.fileformat import MAGIC
from fevga.cli import main
from fevga.game import play_game, play_match
from fevga.inputs import MAX_JSON_DEPTH, MAX_JSON_INT_DIGITS, parse_json
from fevga.records import load_record, parse_record, read_match, save_record, write_match
from fevga.rollout.checkpoints import content_digest

# --- JSON, the shared layer ------------------------------------------------------------------


def _json_error(message: str, line: int | None, column: int | None) -> FevgaError:
    return RecordError(message, line, column, "t.json")


@pytest.mark.parametrize("text, needle", [
    ("[" * 100_000 + "]" * 100_000, f"nests 100000 levels deep (at most {MAX_JSON_DEPTH})"),
    ('{"a": ' * 40 + "1" + "}" * 40, "nests 40 levels"),
    ('{"length": ' + "9" * 5000 + "}", f"an integer of 5000 digits (at most {MAX_JSON_INT_DIGITS})"),
    ('{"x": Infinity}', "Infinity (numbers must be finite)"),
    ('{"x": -Infinity}', "Infinity"),
    ('{"x": NaN}', "NaN"),
    ('{"x": 1e999}', "does not fit a float"),
    ('{"x": [1, 2', "invalid JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
])
def test_json_limits(text: Any, needle: str) -> None:
    with pytest.raises(RecordError, match=".*".join(map(__import__("re").escape, needle.split(" (")[:1]))) as info:
        parse_json(text, _json_error, "JSON")
    assert needle.split(" (")[0] in str(info.value)


def test_json_within_the_limits_is_read_exactly() -> None:
    text = json.dumps({"a": [[[1, -2**100]]], "b": "[[[{{{", "c": 1.5, "d": '\\"]}'})
    assert parse_json(text, _json_error) == json.loads(text)


# --- records ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text, needle", [
    ("{}", "not a fevga game record: no 'plies' field"),
    ('{"foo": 1}', "not a fevga game record: no 'plies' field (a game record has 'plies'"),
    ('{"length": 3, "games": []}', "'games' is empty"),
    ('{"length": 3}', "missing field 'games'"),
    ("[1, 2, 3]", "a JSON list is not a record"),
    ('"just a string"', "a JSON str is not a record"),
    ("null", "expected the header"),  # not JSON-looking: read as the text format, refused by its header rule
    ('{"length": ' + "9" * 5000 + ', "games": []}', "5000 digits"),
    ('{"length": 1000000, "games": [{}]}', "length 1000000 must be 0"),
    ('{"plies": [], "result": "white"}', "without plies must say"),
    ('{"plies": {}}', "plies must be a list"),
    ('{"plies": [' + '{"turn": "white"},' * 5000 + '{}]}', "over the limit of 4096"),
    ('{"plies": [{"turn": "white", "dice": [6, 5], "move": "24/13"}], "rules": {"game": "gioul"}}', "Gioul"),
    ('{"game": "gioul", "plies": []}', "not a Gioul game record"),
    ("[" * 50 + "]" * 50, "nests 50 levels"),
])
def test_bad_json_records_are_one_record_error(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(RecordError) as info:
        load_record(path)
    assert needle in str(info.value), str(info.value)
    assert str(path) in str(info.value), str(info.value)  # which file, when many are analysed


def test_json_records_round_trip_through_the_bounded_reader() -> None:
    match = play_match(3, seed=2, policy="heuristic")
    assert parse_record(match.to_json()) == match
    game = play_game(seed=5)
    assert parse_record(game.to_json()).games == (game,)
    assert parse_record("\ufeff" + game.to_json()).games == (game,)


@pytest.mark.parametrize("change, needle", [
    (lambda t: t.replace(" 3 point match", " " + "9" * 5000 + " point match"), "over the limit of 255 points"),
    (lambda t: t.replace(" 3 point match", " 256 point match"), "over the limit of 255"),
    (lambda t: t.replace(" Game 1", " Game " + "1" * 5000), "expected 'Game 1'"),
    (lambda t: t.replace(" Game 1", " Game \u0661"), "expected 'Game 1'"),  # an Arabic-Indic digit is no number
    (lambda t: t.replace("  1) ", "  " + "1" * 5000 + ") ", 1), "expected turn line 1)"),
    (lambda t: t.replace(" 3 point match", " \u00b2 point match"), "expected the header"),
])
def test_bad_text_records_are_one_record_error(change: Any, needle: str) -> None:
    text = write_match(play_match(3, seed=4, policy="heuristic"))
    with pytest.raises(RecordError) as info:
        read_match(change(text))
    assert needle in str(info.value), str(info.value)


def test_record_files_are_bounded_and_regular(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.mat"
    os.mkfifo(fifo)
    with pytest.raises(RecordError, match="not a regular file"):  # read without blocking on the FIFO
        load_record(fifo)
    with pytest.raises(RecordError, match="is a directory"):
        load_record(tmp_path)
    with pytest.raises(RecordError, match="does not exist"):
        load_record(tmp_path / "none.mat")


# --- net weights ------------------------------------------------------------------------------


def _npz(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _npy_header_lying_about_its_shape(shape: tuple[int, ...]) -> bytes:
    """A .npy member whose header declares `shape` but holds 16 bytes of data."""
    header = {"descr": "<f4", "fortran_order": False, "shape": shape}
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + b"\x00" * 16


def test_a_net_zip_bomb_is_refused_before_decompressing(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:  # level 1: 0.7 s, not 7
        archive.writestr("meta.npy", _member(np.frombuffer(b"{}", dtype=np.uint8)))
        with archive.open("params.npy", "w", force_zip64=True) as member:
            member.write(np.lib.format.magic(1, 0))
            zeros = bytes(1 << 24)
            for _ in range(16):  # 256 MiB of zeros, about 1 MB compressed
                member.write(zeros)
    assert bomb.stat().st_size < 4 << 20
    code = ("import resource, sys, fevga\n"
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "try:\n    fevga.Net.load(sys.argv[1])\nexcept fevga.NetFileError as e:\n    print(e)\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n")
    done = subprocess.run([sys.executable, "-c", code, str(bomb)], capture_output=True, text=True, timeout=120)
    message, grown_kib = done.stdout.strip().splitlines()
    assert "over the limit" in message and "params" in message, done.stderr
    assert int(grown_kib) < 64_000  # the peak grew by far less than the 256 MiB: they were never decompressed


def test_members_each_within_their_limit_are_no_zip_bomb_together(monkeypatch: pytest.MonkeyPatch) -> None:
    # a rollout checkpoint allows 2^27 values in each of its ten arrays: 10 GiB once decompressed
    # from a file of a few MB, although the file itself may hold at most 1 GiB
    import fevga.inputs
    from fevga.inputs import read_npz
    from fevga.rollout import checkpoints

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name in ("a", "b"):
            archive.writestr(f"{name}.npy", _member(np.zeros(1 << 19)))  # 4 MiB each, 8 MiB in all
    spec = {name: ((np.dtype(np.float64),), 1 << 20) for name in ("a", "b")}

    def never(*args: object) -> None:
        raise AssertionError("a member was decompressed")

    monkeypatch.setattr(fevga.inputs, "_read_npy", never)
    with pytest.raises(CheckpointError, match="declare 8388864 bytes in all, over the limit of 6291456 bytes"):
        read_npz(buffer.getvalue(), spec, ("a",), CheckpointError, "archive", max_total=6 << 20)
    assert checkpoints.MAX_FILE_BYTES < len(checkpoints._SPECS) * checkpoints.MAX_ARRAY_VALUES * 8  # why it matters


@pytest.mark.parametrize("shape", [(10**12,), (2**40, 2**40), (111_620,), (-1,)])
def test_a_declared_shape_over_the_limit_is_refused(tmp_path: Path, shape: tuple[int, ...]) -> None:
    meta = np.frombuffer(json.dumps({"format": "fevga-net"}).encode(), dtype=np.uint8)
    path = tmp_path / "shape.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("meta.npy", _member(meta))
        try:
            data = _npy_header_lying_about_its_shape(shape)
        except ValueError:  # NumPy will not even write a negative shape: forge the header text
            data = _npy_header_lying_about_its_shape((1,)).replace(b"(1,)", b"(-1,)")
        archive.writestr("params.npy", data)
    with pytest.raises(NetFileError, match="not a fevga net file"):
        Net.load(path)


def _member(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array)
    return buffer.getvalue()


@pytest.mark.parametrize("meta, needle", [
    (b"[" * 100 + b"]" * 100, "nests 100 levels"),
    (b'{"hidden": ' + b"9" * 5000 + b"}", "5000 digits"),
    (b'{"hidden": Infinity}', "Infinity"),
    (b'"a string"', "lacks"),
    (b"[1, 2]", "lacks"),
    (b'{"format": "fevga-net", "version": 1, "encoding": "fevga-1", "inputs": 214, "hidden": "8", '
     b'"sha256": 1, "provenance": []}', "hidden size '8'"),
])
def test_crafted_net_meta_is_one_net_file_error(tmp_path: Path, meta: bytes, needle: str) -> None:
    params = np.array(Net.initial(8).params)
    path = tmp_path / "meta.npz"
    path.write_bytes(_npz(meta=np.frombuffer(meta, dtype=np.uint8), params=params))
    with pytest.raises(NetFileError, match="meta") as info:
        Net.load(path)
    assert needle in str(info.value), str(info.value)


def test_flipped_compressed_bytes_and_foreign_files_are_net_file_errors(tmp_path: Path) -> None:
    good = bytearray(Net.initial(8, seed=2).to_bytes())
    for offset in range(60, len(good) - 60, max(1, len(good) // 40)):
        bad = bytearray(good)
        bad[offset] ^= 0xFF
        path = tmp_path / "flip.npz"
        path.write_bytes(bytes(bad))
        try:
            Net.load(path)
        except NetFileError:
            continue
        assert Net.load(path).checksum == Net.initial(8, seed=2).checksum  # a byte nothing reads
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(NetFileError) as info:
        Net.load(passwd)
    assert "allow_pickle" not in str(info.value) and "not a fevga net file" in str(info.value)


def test_cli_net_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "meta_deep.npz"
    path.write_bytes(_npz(meta=np.frombuffer(b"[" * 10000 + b"]" * 10000, dtype=np.uint8),
                          params=np.zeros(3, dtype=np.float32)))
    assert main(["evaluate", "--net", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fevga: error: ") and err.count("\n") == 1 and "nests 10000 levels" in err


# --- bear-off tables --------------------------------------------------------------------------


def _rewrite(path: Path, header_change: Any = None, payload_change: Any = None) -> None:
    """Edit a bear-off file's JSON header and/or payload and recompute both CRCs, so that only
    the content checks can catch the edit."""
    data = bytearray(path.read_bytes())
    _, version, length, _ = struct.unpack_from("<8sIII", data, 0)
    header = json.loads(bytes(data[20 : 20 + length]))
    start = (20 + length + 63) // 64 * 64
    payload = bytearray(data[start:])
    if payload_change is not None:
        payload_change(header, payload)
    header["payload_crc32"] = zlib.crc32(payload)
    if header_change is not None:
        header_change(header)
    text = json.dumps(header).encode() if not isinstance(header, bytes) else header
    text = text + b" " * max(0, length - len(text))
    new_start = (20 + len(text) + 63) // 64 * 64
    out = bytearray(struct.pack("<8sIII", MAGIC, version, len(text), zlib.crc32(text))) + text
    out += b"\x00" * (new_start - len(out)) + payload
    path.write_bytes(bytes(out))


def _set_value(section: str, value: float, index: int = 0) -> Any:
    def change(header: dict[str, Any], payload: bytearray) -> None:
        info = header["sections"][section]
        dtype = np.dtype(info["dtype"])
        struct.pack_into("<d" if dtype.itemsize == 8 else "<f", payload, info["offset"] + index * dtype.itemsize, value)
    return change


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("tables")
    return {"one": OneSidedDB.build(3, 3).save(folder / "one.fbo"), "two": TwoSidedDB.build(3).save(folder / "two.fbo")}


@pytest.mark.parametrize("kind, section, value, needle", [
    ("two", "equity", float("nan"), "value 0 is nan"),
    ("two", "equity", float("inf"), "value 5 is inf"),
    ("two", "equity", 143.0, "143.0, not a finite number in [-2, 2]"),
    ("two", "equity", -2.5, "-2.5, not a finite number in [-2, 2]"),
    ("one", "mean", float("nan"), "section 'mean' value 0 is nan"),
    ("one", "mean", -1.0, "'mean' value 0 is -1.0"),
    ("one", "dist_pool", float("nan"), "'dist_pool' value 0 is nan"),
    ("one", "dist_pool", 0.25, "sums to"),
])
def test_tables_with_bad_values_are_refused_despite_valid_crcs(tmp_path: Path, tables: dict[str, Path], kind: str,
                                                               section: str, value: float, needle: str) -> None:
    path = tmp_path / f"{kind}.fbo"
    path.write_bytes(tables[kind].read_bytes())
    _rewrite(path, payload_change=_set_value(section, value, 5 if value == float("inf") else 0))
    with pytest.raises(BearoffFileError) as info:
        open_db(path)
    assert needle in str(info.value), str(info.value)


@pytest.mark.parametrize("change, needle", [
    (lambda h: h.update(sections=[1, 2]), "'sections' is list"),
    (lambda h: h.update(sections="equity"), "'sections' is str"),
    (lambda h: h["sections"]["equity"].update(shape=[10**12]), "shape [1000000000000]"),
    (lambda h: h["sections"]["equity"].update(shape=[1e300]), "shape [1e+300]"),
    (lambda h: h["sections"]["equity"].update(shape=[-1]), "shape [-1]"),
    (lambda h: h["sections"]["equity"].update(dtype="|O"), "dtype '|O'"),
    (lambda h: h["sections"]["equity"].update(dtype="<U8"), "dtype '<U8'"),
    (lambda h: h["sections"]["equity"].update(offset="0"), "offset '0'"),
    (lambda h: h.update(payload_bytes="12"), "'payload_bytes' is '12'"),
    (lambda h: h.update(points=[6]), "malformed header"),
    (lambda h: h.update(deep=json.loads("[" * 40 + "]" * 40)), "nests 41 levels"),
])
def test_crafted_table_headers_are_one_bearoff_file_error(tmp_path: Path, tables: dict[str, Path], change: Any,
                                                          needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hdr.fbo"
    path.write_bytes(tables["two"].read_bytes())
    _rewrite(path, header_change=change)
    with pytest.raises(BearoffFileError) as info:
        open_db(path)
    assert needle in str(info.value), str(info.value)
    assert main(["bearoff", "query", "0,0,1/0,1", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fevga: error: ") and err.count("\n") == 1


def test_a_fifo_as_table_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "t.fbo"
    os.mkfifo(fifo)
    with pytest.raises(BearoffFileError, match="not a regular file"):
        open_db(fifo)


@pytest.mark.parametrize("open_file", [open_db, fevga.Net.load], ids=["bear-off", "net"])
def test_a_refused_file_is_named_once(tmp_path: Path, open_file: Any) -> None:
    """The format's own refusal is not wrapped again as a read error (both are OSErrors)."""
    with pytest.raises(fevga.FevgaError) as info:
        open_file(tmp_path)
    assert str(info.value).endswith(f"{str(tmp_path)!r} is a directory"), str(info.value)
    assert "cannot read" not in str(info.value) and str(info.value).count(str(tmp_path)) == 1


# --- checkpoints ------------------------------------------------------------------------------


def _rollout_checkpoint(path: Path) -> fevga.RolloutResult:
    return fevga.rollout(Position.initial(), games=2 * 1296, seed=3, workers=1, policy="random", progress=False,
                         checkpoint=path)


def _edit(path: Path, keep_checksum: bool, **changes: np.ndarray) -> None:
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays.update(changes)
    if keep_checksum:
        arrays["sha256"] = np.frombuffer(content_digest(arrays).encode(), dtype=np.uint8)
    else:
        arrays.pop("sha256", None)
    np.savez(path, **arrays)


def test_an_edited_rollout_checkpoint_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ck.npz"
    first = _rollout_checkpoint(path)
    with np.load(path) as data:
        sums = data["prefix_sums"].copy()
    sums[0, 1] += 500.0  # the equity sum: the edited-checkpoint attack
    edited = tmp_path / "edited.npz"
    edited.write_bytes(path.read_bytes())
    with np.load(edited) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["prefix_sums"] = sums
    np.savez(edited, **arrays)  # the old checksum no longer matches
    with pytest.raises(CheckpointError, match="content checksum does not match"):
        _rollout_checkpoint(edited)
    assert _rollout_checkpoint(path) == first  # the untouched file resumes to the same result


def test_an_older_checkpoint_without_checksum_still_loads_but_must_be_consistent(tmp_path: Path) -> None:
    path = tmp_path / "ck.npz"
    first = _rollout_checkpoint(path)
    _edit(path, keep_checksum=False)  # as written before checksums existed
    assert _rollout_checkpoint(path) == first
    with np.load(path) as data:
        sums = data["prefix_sums"].copy()
    sums[0, 1] = np.inf
    _edit(path, keep_checksum=False, prefix_sums=sums)
    with pytest.raises(CheckpointError, match="not all finite"):
        _rollout_checkpoint(path)
    sums[0, 1] = 0.0
    sums[0, 0] = 2 * 1296  # games still right, but the per-roll and length counts disagree
    lengths = np.zeros((1, 512), dtype=np.int64)
    _edit(path, keep_checksum=False, prefix_sums=sums, prefix_lengths=lengths)
    with pytest.raises(CheckpointError, match="game counts disagree"):
        _rollout_checkpoint(path)


@pytest.mark.parametrize("meta, needle", [
    (b'{"master": "x"', "invalid JSON"),
    (b"[" * 64 + b"]" * 64, "nests 64 levels"),
    (b'{"games": ' + b"1" * 5000 + b"}", "5000 digits"),
    (b'"a string where an object belongs"', "another job"),
])
def test_crafted_checkpoint_meta_is_one_checkpoint_error(tmp_path: Path, meta: bytes, needle: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ck.npz"
    _rollout_checkpoint(path)
    _edit(path, keep_checksum=True, meta=np.frombuffer(meta, dtype=np.uint8))
    with pytest.raises(CheckpointError) as info:
        _rollout_checkpoint(path)
    assert needle in str(info.value) and str(path) in str(info.value), str(info.value)
    assert main(["rollout", "--games", "2592", "--seed", "3", "--policy", "random", "--workers", "1",
                 "--checkpoint", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fevga: error: ") and err.count("\n") == 1


def test_an_edited_training_checkpoint_is_refused(tmp_path: Path) -> None:
    from fevga.train import TrainConfig, train

    config = TrainConfig(games=64, batch=32, hidden=8, check_every=32, check_games=36)
    train(tmp_path, config, workers=1, progress=False)
    path = tmp_path / "checkpoint.npz"
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    assert "sha256" in arrays
    arrays["params"] = arrays["params"] * 2
    np.savez(path, **arrays)
    with pytest.raises(CheckpointError, match="content checksum does not match"):
        train(tmp_path, TrainConfig(games=96, batch=32, hidden=8, check_every=32, check_games=36), workers=1,
              progress=False)
    arrays.pop("sha256")  # an older checkpoint: loads
    np.savez(path, **arrays)
    run = train(tmp_path, TrainConfig(games=96, batch=32, hidden=8, check_every=32, check_games=36), workers=1,
                progress=False)
    assert run.games == 96


def test_position_json_is_bounded() -> None:
    with pytest.raises(InvalidNotationError, match="nests"):
        Position.parse("{" * 100_000)
    with pytest.raises(InvalidNotationError, match="nests"):
        fevga.GioulPosition.parse('{"game": "gioul", "white": ' + "[" * 1000 + "]" * 1000 + "}")
