"""The quantised, incremental evaluator: the float net in int16 tables (see qnet.pyx)."""

import numpy as np
from numpy.typing import NDArray

from fevga_core.gioul import CoreGioulNet
from fevga_core.net import CoreNet

SIMD: str
ROWS: int
GIOUL_ROWS: int
LANES: int
S1_MAX: int
S2_MAX: int

def _use_kernels(best: bool) -> str:
    """Switch to the CPU's best kernels or the baseline ones (tests); returns the path's name."""

def accumulator_bounds(
    bias: NDArray[np.int16], table: NDArray[np.int16]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(lowest, highest) first-layer accumulator of each lane over every position (of a Gioul
    table, GIOUL_ROWS rows: every state)."""

def relation_counts_rows(rows: NDArray[np.uint8]) -> NDArray[np.int32]:
    """(n, 2, 3) trapped, blocked, escaped of each row's side on roll, then the other side, as the tables read them."""

class _Snapshot:
    """What the quantised nets of both games share."""

    @property
    def s1(self) -> int:
        """log2 of the first layer's scale."""
    @property
    def s2(self) -> int:
        """log2 of the output weights' scale."""
    def tables(self) -> tuple[NDArray[np.int16], NDArray[np.int16], NDArray[np.int16]]:
        """(bias (lanes,), rows (ROWS, or GIOUL_ROWS for a Gioul net, lanes), w2 (3, lanes)), copies."""

class QuantisedNet(CoreNet, _Snapshot):
    """A float net's int16 snapshot: fast, deterministic, within docs/net.md's bound of it.
    A CoreNet: the core's entry points that take a Fevga net evaluate with its tables."""

    def __init__(self, net: CoreNet) -> None: ...
    def train_rows(self, rows: NDArray[np.uint8], targets: NDArray[np.float64], rate: float) -> float:
        """Refused (InvalidArgumentError): a quantised net is a snapshot; train the float net."""
    def evaluate_rows(self, rows: NDArray[np.uint8]) -> NDArray[np.float64]:
        """(n, 3) win, win_mars, lose_mars of each valid row for its side on roll."""
    def evaluate_moves(
        self, rows: NDArray[np.uint8], dice: NDArray[np.uint8], flags: int = 0
    ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """Every legal move's result of each (row, dice) pair, evaluated incrementally: (offsets, outputs)."""

class QuantisedGioulNet(CoreGioulNet, _Snapshot):
    """A Gioul net's int16 snapshot (Fevga's table layout and the Gioul rows). A CoreGioulNet:
    the core's entry points that take a Gioul net evaluate with its tables."""

    def __init__(self, net: CoreGioulNet) -> None: ...
    def train_rows(self, rows: NDArray[np.uint8], targets: NDArray[np.float64], rate: float) -> float:
        """Refused (InvalidArgumentError): a quantised net is a snapshot; train the float net."""
    def evaluate_rows(self, rows: NDArray[np.uint8]) -> NDArray[np.float64]:
        """(n, 3) win, win_mars, lose_mars of each valid Gioul state row for its side to decide."""
