"""The neural evaluator's weights: loading, saving and the net shipped with the package.

A net file is a NumPy ``.npz`` archive (read by fevga.inputs.read_npz: the declared sizes, dtypes
and shapes are checked before anything is decompressed, no pickles) holding two arrays:
``params``, the flat float32 parameter vector laid out in ``fevga_core/net.pxd``, and
``meta``, UTF-8 JSON with the format name and version, the encoding, the hidden size, the
SHA-256 of the parameters and the provenance (training command, seed, games, code version).
Every field is checked on load; a file that fails any check raises `NetFileError`.

The encoding names the game: ``fevga-1`` (a Fevga net, fevga_core/net.pyx) or ``gioul-1`` (a
Gioul net over the encoding of docs/net.md "Gioul net"); `Net.game` is "fevga" or "gioul",
and a net given where the other game's is needed raises `NetGameError`.

One net of each game ships in the fevga.data package; its manifest (``nets.json``, read by
`shipped`) names each file, its name and version and the SHA-256 of the file, which is
checked when the net is loaded.

>>> net = Net.default()
>>> net.hidden, len(net.checksum), shipped().name
(384, 64, 'fevga-net-3')
>>> Net.default(game="gioul").game, shipped("gioul").name
('gioul', 'gioul-net-1')
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import threading
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from fevga.errors import InvalidArgumentError, NetFileError, NetGameError
from fevga.files import atomic_write
from fevga.inputs import ArraySpec, parse_json, read_file, read_npz
from fevga.limits import as_array, check_int
from fevga_core import net as core
from fevga_core import qnet
from fevga_core.gioul import CoreGioulNet

FORMAT = "fevga-net"
FORMAT_VERSION = 1
ENCODING = "fevga-1"  # the input layout of fevga_core/net.pyx; a change bumps it
# game -> (encoding id, inputs, core class); a change of an input layout bumps its id
GAMES: dict[str, tuple[str, int, Any]] = {"fevga": (ENCODING, core.INPUTS, core.CoreNet),
                                          "gioul": ("gioul-1", core.GIOUL_INPUTS, CoreGioulNet)}
GAME_OF_ENCODING = {encoding: game for game, (encoding, _, _) in GAMES.items()}
_QUANTISING = threading.Lock()  # Net.quantised() makes a net's tables once
MANIFEST = "nets.json"  # in the fevga.data package: the shipped net of each game
MAX_FILE_BYTES = 16 << 20  # a net of MAX_HIDDEN units holds under 0.5 MB of parameters
MAX_META_BYTES = 1 << 20  # the JSON meta section (provenance included)
_META_KEYS = {"format", "version", "encoding", "inputs", "hidden", "sha256", "provenance"}
_ARRAYS: dict[str, ArraySpec] = {"meta": ((np.dtype(np.uint8),), MAX_META_BYTES),
                                 "params": ((np.dtype(np.float32),), max(core.param_count(core.MAX_HIDDEN, inputs)
                                                                          for _, inputs, _ in GAMES.values()))}


def check_game(game: object) -> str:
    """`game` if it is "fevga" or "gioul", else InvalidArgumentError."""
    if not isinstance(game, str) or game not in GAMES:
        raise InvalidArgumentError(f"game {repr(game)[:40]} must be one of {sorted(GAMES)}")
    return game


class Net:
    """A trained (or freshly initialised) evaluator of one game: three outputs for the side on roll (to decide).

    `quantised=True` (or `Net.quantised()`) evaluates it in int16 tables instead of float32:
    the same net within docs/net.md's bound, several times faster, accepted wherever a Net is
    (the net policies, hint, evaluate, games, duels, rollouts and their luck), for either game.
    """

    __slots__ = ("_params", "_core", "hidden", "provenance", "checksum", "game", "is_quantised", "_quantised")

    def __init__(self, params: npt.ArrayLike, hidden: int, provenance: dict[str, Any] | None = None,
                 game: str = "fevga", quantised: bool = False) -> None:
        self.game = check_game(game)
        if not isinstance(quantised, bool):
            raise InvalidArgumentError(f"quantised {quantised!r} must be True or False")
        _, inputs, core_class = GAMES[game]
        hidden = check_int("hidden units", hidden, 1, core.MAX_HIDDEN)
        expected = core.param_count(hidden, inputs)
        given = as_array(params, "net parameters", "fiu", "a flat array of float32 parameters")
        if given.ndim != 1 or given.size != expected:
            raise InvalidArgumentError(f"net parameters of shape {given.shape} do not fit a net of {hidden} hidden "
                                       f"units (a flat array of {expected} expected)")
        with np.errstate(over="ignore", invalid="ignore"):  # a value float32 cannot hold is refused below
            array = np.array(given, dtype=np.float32)  # a private, C-contiguous copy
        if not np.all(np.isfinite(array)):
            raise InvalidArgumentError(f"net parameters must be finite float32 values (parameter "
                                       f"{int(np.flatnonzero(~np.isfinite(array))[0])} is not)")
        self.provenance = _checked_provenance(provenance)
        self._params = array
        self._core = core_class(array, hidden)
        if quantised:
            self._core = qnet.QuantisedNet(self._core) if game == "fevga" else qnet.QuantisedGioulNet(self._core)
        self.is_quantised = quantised
        self._quantised: Net | None = None  # quantised(), made once
        self.hidden = hidden
        self.checksum = hashlib.sha256(array.tobytes()).hexdigest()

    @classmethod
    def initial(cls, hidden: int = 128, seed: int = 0, game: str = "fevga") -> Net:
        """A freshly initialised net (He-scaled first layer, small outputs), reproducible from `seed`."""
        hidden = check_int("hidden units", hidden, 1, core.MAX_HIDDEN)
        rng = np.random.Generator(np.random.PCG64(check_int("seed", seed, 0, 2**128 - 1)))
        inputs = GAMES[check_game(game)][1]
        params = np.zeros(core.param_count(hidden, inputs), dtype=np.float32)
        # About 40 inputs are active in a typical position: scale the first layer for that fan-in.
        params[: inputs * hidden] = rng.uniform(-1.0, 1.0, inputs * hidden) * np.sqrt(6.0 / 40.0)
        params[inputs * hidden : (inputs + 1) * hidden] = 0.1
        params[(inputs + 1) * hidden : (inputs + 4) * hidden] = rng.uniform(-1.0, 1.0, 3 * hidden) / np.sqrt(hidden)
        provenance = {"initialised": {"seed": seed, "hidden": hidden}}
        return cls(params, hidden, provenance if game == "fevga" else {**provenance, "game": game}, game)

    @classmethod
    def default(cls, game: str = "fevga") -> Net:
        """The net of `game` shipped with the package (`shipped`; loaded once per process)."""
        return _default(check_game(game))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Net:
        """Read a net file; anything but a valid fevga net of this version raises NetFileError
        (within the limits of docs/limits.md: MAX_FILE_BYTES, MAX_META_BYTES, MAX_HIDDEN units)."""
        data = read_file(path, MAX_FILE_BYTES, NetFileError, "net file")
        return cls._read(data, str(path))

    @classmethod
    def _read(cls, data: bytes, name: str) -> Net:
        def refused(message: str) -> NetFileError:
            return NetFileError(f"{name}: not a fevga net file ({message})")

        arrays = read_npz(data, _ARRAYS, ("meta", "params"), refused, "npz", max_total=MAX_FILE_BYTES)
        meta_bytes, params = arrays["meta"], arrays["params"]
        if meta_bytes.ndim != 1:
            raise NetFileError(f"{name}: the meta section is not JSON bytes")

        def bad_json(message: str, line: int | None, column: int | None) -> NetFileError:
            where = f" at line {line}, column {column}" if line is not None else ""
            return NetFileError(f"{name}: the meta section is not valid JSON ({message}{where})")

        meta = parse_json(meta_bytes.tobytes(), bad_json, "JSON")
        if not isinstance(meta, dict) or not _META_KEYS <= set(meta):
            found = set(meta) if isinstance(meta, dict) else set()
            raise NetFileError(f"{name}: the meta section lacks {sorted(_META_KEYS - found)}")
        if meta["format"] != FORMAT:
            raise NetFileError(f"{name}: format {meta['format']!r} is not {FORMAT!r}")
        if meta["version"] != FORMAT_VERSION:
            raise NetFileError(f"{name}: format version {meta['version']!r}; this fevga reads version {FORMAT_VERSION}")
        game = GAME_OF_ENCODING.get(meta["encoding"]) if isinstance(meta["encoding"], str) else None
        if game is None or meta["inputs"] != GAMES[game][1]:
            known = ", ".join(f"{e!r} with {i}" for e, i, _ in GAMES.values())
            raise NetFileError(f"{name}: encoding {meta['encoding']!r} with {meta['inputs']!r} inputs; this fevga "
                               f"reads {known}")
        hidden = meta["hidden"]
        if not isinstance(hidden, int) or isinstance(hidden, bool) or not 1 <= hidden <= core.MAX_HIDDEN:
            raise NetFileError(f"{name}: hidden size {hidden!r} is not in 1..{core.MAX_HIDDEN}")
        if params.ndim != 1 or params.size != core.param_count(hidden, GAMES[game][1]):
            raise NetFileError(f"{name}: parameters {params.dtype}{list(params.shape)} do not fit {hidden} hidden units")
        if not isinstance(meta["sha256"], str) or hashlib.sha256(params.tobytes()).hexdigest() != meta["sha256"]:
            raise NetFileError(f"{name}: parameter checksum mismatch (corrupted file)")
        if not np.all(np.isfinite(params)):
            raise NetFileError(f"{name}: parameters are not all finite")
        provenance = meta["provenance"] if isinstance(meta["provenance"], dict) else {}
        return cls(params, hidden, provenance, game)

    def to_bytes(self) -> bytes:
        """The file contents of this net (what `save` writes)."""
        meta = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "encoding": GAMES[self.game][0],
            "inputs": GAMES[self.game][1],
            "hidden": self.hidden,
            "sha256": self.checksum,
            "provenance": self.provenance,
        }
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer, meta=np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8), params=self._params
        )
        return buffer.getvalue()

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the net atomically; returns the path."""
        data = self.to_bytes()
        return atomic_write(path, lambda handle: handle.write(data))

    def quantised(self) -> Net:
        """This net evaluated in int16 tables (docs/net.md "Quantised inference"): a Net usable
        wherever this one is, several times faster. Its outputs stay within the bound docs/net.md
        measures of the float net's and are the same bits on every CPU path; `checksum`, `save`
        and `to_bytes` are the float net's it was made from. Nets of both games.

        >>> from fevga import Position, batch
        >>> rows = batch.to_array([Position.initial()])
        >>> q = Net.default().quantised()
        >>> q.is_quantised, q == Net.default(), q == Net.default().quantised()
        (True, False, True)
        >>> bool(np.abs(batch.evaluate(rows, net=q) - batch.evaluate(rows)).max() < 0.01)
        True
        """
        if self.is_quantised:
            return self
        with _QUANTISING:  # once, even when threads ask at the same time (the shipped nets are shared)
            if self._quantised is None:
                self._quantised = Net(self._params, self.hidden, self.provenance, self.game, quantised=True)
        return self._quantised

    @property
    def params(self) -> npt.NDArray[np.float32]:
        """A read-only view of the flat parameter vector."""
        view = self._params.view()
        view.flags.writeable = False
        return view

    def of_game(self, game: str) -> Net:
        """Self if this is a net of `game`, else NetGameError naming both games."""
        if self.game != check_game(game):
            raise NetGameError(f"a {self.game.capitalize()} net (encoding {GAMES[self.game][0]}) was given where a "
                               f"{game.capitalize()} net (encoding {GAMES[game][0]}) is needed")
        return self

    def __repr__(self) -> str:
        game = "" if self.game == "fevga" else f" game={self.game}"
        quantised = " quantised" if self.is_quantised else ""
        return f"<Net hidden={self.hidden}{game}{quantised} sha256={self.checksum[:12]}>"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Net) and other.game == self.game and other.hidden == self.hidden
                and other.checksum == self.checksum and other.is_quantised == self.is_quantised)

    def __hash__(self) -> int:
        return hash((self.checksum, self.is_quantised))

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled (for Dask workers) as its parameters; the constructor validates them again
        # (and quantises them again: the same tables, the same bits).
        return (Net, (self._params, self.hidden, self.provenance, self.game, self.is_quantised))


def _checked_provenance(provenance: object) -> dict[str, Any]:
    """A copy of `provenance` if a net file can hold it: a dict of JSON values that the net
    reader reads back (finite numbers, the JSON limits of fevga.inputs, under MAX_META_BYTES)."""
    if provenance is None:
        return {}
    if not isinstance(provenance, dict):
        raise InvalidArgumentError(f"net provenance {repr(provenance)[:60]} must be a dict or None")
    try:
        text = json.dumps(provenance, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidArgumentError(f"net provenance is not JSON data a net file can hold ({str(exc)[:120]})") from None
    if len(text.encode()) > MAX_META_BYTES // 2:
        raise InvalidArgumentError(f"net provenance takes {len(text.encode())} bytes of JSON, over the limit of "
                                   f"{MAX_META_BYTES // 2}")

    def refused(message: str, line: int | None, column: int | None) -> InvalidArgumentError:
        return InvalidArgumentError(f"net provenance: {message}")

    return dict(parse_json(text, refused, "JSON"))


@dataclass(frozen=True)
class ShippedNet:
    """One entry of the shipped nets' manifest: the game, the file in fevga.data, the net's
    name and version, the SHA-256 of the file and where its strength is measured."""

    game: str
    file: str
    name: str
    version: int
    sha256: str
    measured: str


@cache
def shipped(game: str = "fevga") -> ShippedNet:
    """The manifest entry (fevga/data/nets.json) of the net shipped for `game`."""
    game = check_game(game)
    manifest = json.loads(resources.files("fevga.data").joinpath(MANIFEST).read_text(encoding="utf-8"))
    return ShippedNet(game=game, **manifest[game])


_DEFAULT_LOCK = threading.Lock()


@cache
def _default(game: str) -> Net:
    entry = shipped(game)
    with _DEFAULT_LOCK:
        data = resources.files("fevga.data").joinpath(entry.file).read_bytes()
        if hashlib.sha256(data).hexdigest() != entry.sha256:
            raise NetFileError(f"the shipped {game} net fevga/data/{entry.file} does not match its manifest "
                               f"checksum (sha256 {entry.sha256[:12]}...): the installation is corrupted")
        return Net._read(data, f"fevga/data/{entry.file}").of_game(game)


def net_of(net: Net | str | os.PathLike[str] | None, game: str = "fevga") -> Net:
    """A Net of `game` from a Net, a path to a net file, or None / "default" for the net
    shipped for `game` (NetGameError for the other game's net)."""
    if net is None or (isinstance(net, str) and net == "default"):
        return Net.default(check_game(game))
    if isinstance(net, Net):
        return net.of_game(game)
    if isinstance(net, (str, os.PathLike)):
        return Net.load(net).of_game(game)
    raise InvalidArgumentError(f"net {net!r} must be a fevga.Net, a path to a net file, or None")
