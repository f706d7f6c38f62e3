"""Rollout checkpoints: a job's finished blocks saved atomically, validated on resume.

A checkpoint is a NumPy .npz archive: ``meta`` (the job's fingerprint, JSON), ``seed``
(JSON), ``blocks`` and ``prefix`` (block numbers), the block sums (``sums``, ``first``,
``cross``, ``lengths`` and their ``prefix_`` running totals) and ``sha256``, the content
checksum of everything else (`content_digest`). A checkpoint of the stopping rule
(`rollout_moves(stop_early=True)`) also holds ``rounds`` (JSON: the moves of each finished
round and of the running one, as indices of the job's moves), ``start`` (the running round's
first block; its blocks are the ones above) and the finished rounds' sums (``round_sums``,
``round_first``, ``round_cross``, ``round_lengths``, each flattened and joined). On resume the archive is read within the
limits below (fevga.inputs.read_npz: sizes are checked before anything is decompressed),
the checksum is verified (files written before it existed have none and still load), and
every sum must be finite and agree with its game counts. Any failure is a CheckpointError
naming the file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from fevga.errors import CheckpointError, FevgaError, InvalidArgumentError
from fevga.files import atomic_write
from fevga.inputs import ArraySpec, parse_json, read_file, read_npz
from fevga.rollout.jobs import Job, Sums, Tally, stop_rounds

MAX_FILE_BYTES = 1 << 30  # a checkpoint file
MAX_ARRAY_VALUES = 1 << 27  # values in one of its arrays (1 GiB of float64)
MAX_JSON_BYTES = 1 << 24  # its meta and seed entries

_CHECKPOINT_ARRAYS = ("sums", "first", "cross", "lengths")
_F64, _I64, _U8 = np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.uint8)
_SPECS: dict[str, ArraySpec] = {
    "meta": ((_U8,), MAX_JSON_BYTES), "seed": ((_U8,), MAX_JSON_BYTES), "sha256": ((_U8,), 64),
    "blocks": ((_I64,), MAX_ARRAY_VALUES), "prefix": ((_I64,), 1),
    # an empty list of blocks ahead is saved as float64 zeros whatever the array
    **{name: ((_F64, _I64), MAX_ARRAY_VALUES) for name in _CHECKPOINT_ARRAYS},
    **{f"prefix_{name}": ((_F64, _I64), MAX_ARRAY_VALUES) for name in _CHECKPOINT_ARRAYS},
    "rounds": ((_U8,), MAX_JSON_BYTES), "start": ((_I64,), 1),
    # written with their exact dtypes, even when empty
    **{f"round_{name}": ((_I64 if name == "lengths" else _F64,), MAX_ARRAY_VALUES) for name in _CHECKPOINT_ARRAYS},
}


@dataclass
class Rounds:
    """The stopping rule's progress: each finished round's moves (indices of the job's moves)
    with their sums, and the moves of the round running (whose blocks a Tally holds)."""

    finished: list[tuple[list[int], Sums]]
    members: list[int]


def content_digest(arrays: dict[str, npt.NDArray[Any]]) -> str:
    """SHA-256 over every array but "sha256": names in sorted order, each with its dtype,
    shape and bytes, so that any edit of a value, a shape or an entry changes it."""
    digest = hashlib.sha256(b"fevga-rollout-checkpoint-1")
    for name in sorted(arrays):
        if name == "sha256":
            continue
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def save_checkpoint(path: Path, job: Job, tally: Tally, rounds: Rounds | None = None) -> None:
    """Write a job's finished blocks atomically (temporary file + os.replace): the running sum
    of blocks start..next-1 ("prefix" arrays) and each block finished ahead of it; with
    `rounds`, the stopping rule's finished rounds too (`tally` is then the running round's)."""
    if rounds is None and tally.start != 0:
        raise InvalidArgumentError("only a whole job (blocks from 0) can be checkpointed")
    order = sorted(tally.ahead)
    arrays: dict[str, Any] = {
        "meta": np.frombuffer(json.dumps(job.fingerprint()).encode(), dtype=np.uint8),
        "blocks": np.asarray(order, dtype=np.int64),
        "seed": np.frombuffer(json.dumps(job.seed).encode(), dtype=np.uint8),
        "prefix": np.asarray([tally.next], dtype=np.int64),
    }
    for i, name in enumerate(_CHECKPOINT_ARRAYS):
        shape = tally.prefix.arrays()[i].shape
        arrays[name] = np.stack([tally.ahead[b].arrays()[i] for b in order]) if order else np.zeros((0, *shape))
        arrays[f"prefix_{name}"] = tally.prefix.arrays()[i]
    if rounds is not None:
        arrays["rounds"] = np.frombuffer(json.dumps({"finished": [m for m, _ in rounds.finished],
                                                     "members": rounds.members}).encode(), dtype=np.uint8)
        arrays["start"] = np.asarray([tally.start], dtype=np.int64)
        for i, name in enumerate(_CHECKPOINT_ARRAYS):
            parts = [s.arrays()[i].reshape(-1) for _, s in rounds.finished]
            arrays[f"round_{name}"] = np.concatenate(parts) if parts else np.zeros(0, Sums(0).arrays()[i].dtype)
    arrays["sha256"] = np.frombuffer(content_digest(arrays).encode(), dtype=np.uint8)
    atomic_write(path, lambda handle: np.savez(handle, **arrays), what="checkpoint")


def load_checkpoint(path: Path, job: Job) -> tuple[Tally, Rounds | None]:
    """The finished blocks saved in `path`, and the stopping rule's rounds if it holds them;
    CheckpointError (quoting the path) if the file cannot be read, is not a fevga checkpoint,
    is corrupted, or belongs to another job."""
    name = str(path)
    archive = _archive(path)
    meta, order, arrays, prefix = _read_checkpoint(archive, name)
    if meta != job.fingerprint():
        raise CheckpointError(f"checkpoint {name!r} belongs to another job; remove it or change the path")
    rounds, span = None, range(job.blocks)
    if "rounds" in archive:
        rounds, span = _saved_rounds(archive, job, name)
    targets = job.targets if rounds is None else len(rounds.members)

    def sums_of(parts: list[npt.NDArray[Any]]) -> Sums:
        return _sums(targets, parts, name)

    tally = Tally(targets, span.start)
    if prefix is not None:  # files written before the running sum have blocks only
        folded, parts = prefix
        tally.prefix = sums_of(parts)
        tally.next = folded
        if folded not in range(span.start, span.stop + 1) or \
                tally.prefix.sums[0, 0] != job.games_of(range(span.start, folded)):
            raise CheckpointError(f"checkpoint {name!r} is corrupted: its running sum does not hold "
                                  f"blocks {span.start}..{folded - 1}")
    for i, block in enumerate(order):
        sums = sums_of([a[i] for a in arrays])
        if block not in span or tally.has(block) or sums.sums[0, 0] != job.block_range(block)[1]:
            raise CheckpointError(f"checkpoint {name!r} is corrupted: block {block} is out of range, "
                                  "repeated or incomplete")
        tally.add(block, sums)
    return tally, rounds


def _sums(targets: int, parts: list[npt.NDArray[Any]], name: str) -> Sums:
    """Sums of `targets` moves from saved arrays of exactly their shapes, checked."""
    sums = Sums(targets)
    for target, source in zip(sums.arrays(), parts):
        if source.shape != target.shape:
            raise CheckpointError(f"checkpoint {name!r} is corrupted: block arrays of the wrong shape")
        target[:] = source
    _check_sums(sums, name)
    return sums


def _saved_rounds(archive: dict[str, npt.NDArray[Any]], job: Job, name: str) -> tuple[Rounds, range]:
    """The stopping rule's rounds of a checkpoint and the running round's blocks: each round's
    moves a non-empty increasing subset of the round before's (the first: every move), each
    finished round's sums of its moves over all of its blocks."""
    entry = _json_entry(archive, "rounds", name)
    schedule = stop_rounds(job.blocks)
    lists: list[Any] = []
    if isinstance(entry, dict) and isinstance(entry.get("finished"), list):
        lists = [*entry["finished"], entry.get("members")]
    if not lists or not all(
            isinstance(m, list) and m and all(type(k) is int for k in m) and m == sorted(set(m)) for m in lists):
        raise _refused(name, "its 'rounds' entry is not a list of rounds of moves")
    if len(lists) > len(schedule):
        raise CheckpointError(f"checkpoint {name!r} is corrupted: it holds {len(lists)} rounds, and the stopping rule "
                              f"plays {len(schedule)}")
    finished: list[list[int]] = lists[:-1]
    if lists[0] != list(range(job.targets)) or any(not set(b) <= set(a) for a, b in zip(lists, lists[1:])):
        raise CheckpointError(f"checkpoint {name!r} is corrupted: its rounds are not those of the stopping rule")
    if any(key not in archive for key in ("start", *(f"round_{k}" for k in _CHECKPOINT_ARRAYS))) or \
            archive["start"].shape != (1,):
        raise _refused(name, "its round entries are incomplete")
    if int(archive["start"][0]) != schedule[len(finished)].start:
        raise CheckpointError(f"checkpoint {name!r} is corrupted: its running round starts at block "
                              f"{int(archive['start'][0])}, not {schedule[len(finished)].start}")
    flat = [archive[f"round_{key}"].reshape(-1) for key in _CHECKPOINT_ARRAYS]
    done: list[tuple[list[int], Sums]] = []
    at = [0] * len(flat)
    for moves, blocks in zip(finished, schedule):
        shapes = [a.shape for a in Sums(len(moves)).arrays()]
        parts = []
        for i, shape in enumerate(shapes):
            size = int(np.prod(shape))
            if at[i] + size > flat[i].size:
                raise CheckpointError(f"checkpoint {name!r} is corrupted: its round arrays are too short")
            parts.append(flat[i][at[i]:at[i] + size].reshape(shape))
            at[i] += size
        sums = _sums(len(moves), parts, name)
        if sums.sums[0, 0] != job.games_of(blocks):
            raise CheckpointError(f"checkpoint {name!r} is corrupted: a finished round did not play its games")
        done.append((moves, sums))
    if at != [a.size for a in flat]:
        raise CheckpointError(f"checkpoint {name!r} is corrupted: its round arrays are too long")
    return Rounds(done, lists[-1]), schedule[len(finished)]


def _check_sums(sums: Sums, name: str) -> None:
    """Every sum finite, and the counts consistent with the games: what any run writes."""
    if not all(np.all(np.isfinite(a)) for a in sums.arrays()):
        raise CheckpointError(f"checkpoint {name!r} is corrupted: its sums are not all finite")
    games = sums.sums[:, 0]
    if (np.any(games < 0) or np.any(games != np.round(games)) or np.any(sums.lengths < 0)
            or np.any(sums.lengths.sum(axis=1) != games) or np.any(sums.first[:, :, 0].sum(axis=1) != games)):
        raise CheckpointError(f"checkpoint {name!r} is corrupted: its game counts disagree")


def _archive(path: Path) -> dict[str, npt.NDArray[Any]]:
    """The arrays of a checkpoint file, read within the limits, its checksum verified."""
    name = str(path)

    def unreadable(message: str) -> CheckpointError:
        return CheckpointError(message if name in message else f"checkpoint {name!r}: {message}")

    data = read_file(path, MAX_FILE_BYTES, unreadable, "checkpoint")
    archive = read_npz(data, _SPECS, ("meta", "blocks", *_CHECKPOINT_ARRAYS), lambda m: _refused(name, m), "archive",
                       max_total=MAX_FILE_BYTES)
    if "sha256" in archive:
        stored = archive["sha256"].tobytes().decode("ascii", "replace")
        if stored != content_digest(archive):
            raise CheckpointError(f"checkpoint {name!r} is corrupted: its content checksum does not match "
                                  "(the file was edited or damaged)")
    return archive


def _refused(name: str, message: str) -> CheckpointError:
    return CheckpointError(f"checkpoint {name!r} is not a fevga checkpoint: {message}")


def _json_entry(archive: dict[str, npt.NDArray[Any]], key: str, name: str) -> Any:
    def bad_json(message: str, line: int | None, column: int | None) -> FevgaError:
        return _refused(name, f"its {key!r} entry: {message}")

    return parse_json(archive[key].tobytes(), bad_json, "JSON")


def _read_checkpoint(archive: dict[str, npt.NDArray[Any]], name: str) -> tuple[
        Any, list[int], list[npt.NDArray[Any]], tuple[int, list[npt.NDArray[Any]]] | None]:
    """(meta, block indices, [sums, first, cross, lengths], (prefix blocks, its arrays) or None)
    of a checkpoint file's arrays, not yet matched to a job."""
    meta = _json_entry(archive, "meta", name)
    order = [int(b) for b in archive["blocks"].reshape(-1)]
    arrays = [archive[key] for key in _CHECKPOINT_ARRAYS]
    prefix = None
    if "prefix" in archive:
        keys = [f"prefix_{key}" for key in _CHECKPOINT_ARRAYS]
        if any(key not in archive for key in keys) or archive["prefix"].shape != (1,):
            raise _refused(name, "its running-sum entries are incomplete")
        prefix = (int(archive["prefix"][0]), [archive[key] for key in keys])
    if any(a.ndim == 0 or a.shape[0] != len(order) for a in arrays):
        raise _refused(name, "its block arrays and block list differ in length")
    return meta, order, arrays, prefix


def checkpoint_exists(path: Path) -> bool:
    """Whether there is something at `path` to resume (CheckpointError if it cannot be looked at)."""
    try:
        path.stat()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise CheckpointError(f"cannot read checkpoint {str(path)!r}: {exc.strerror or exc}") from None
    return True


def checkpoint_master(path: Path) -> tuple[int, int | str] | None:
    """The master key and seed recorded in an existing checkpoint (lets seed=None resume and
    report the seed that reproduces the run); None when the file is unreadable or foreign
    (load_checkpoint then reports it with the path)."""
    try:
        archive = _archive(path)
        master = int(_json_entry(archive, "meta", str(path))["master"])
        stored = _json_entry(archive, "seed", str(path)) if "seed" in archive else None
    except (FevgaError, KeyError, TypeError, ValueError):
        return None
    if isinstance(stored, (int, str)) and not isinstance(stored, bool):
        return master, stored
    return master, f"master key {master}"  # a checkpoint written before seeds were kept
