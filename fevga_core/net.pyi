"""The neural evaluator's encoding, forward pass and SGD step (see net.pyx)."""

import numpy as np
from numpy.typing import NDArray

SIDE_INPUTS: int
INPUTS: int
OUTPUTS: int
MAX_HIDDEN: int
GIOUL_SIDE_INPUTS: int
GIOUL_INPUTS: int

def param_count(hidden: int, inputs: int = ...) -> int:
    """Length of the flat parameter vector of a net with `hidden` hidden units over `inputs` (Fevga's) inputs."""

class NetModel:
    """The network over one game's encoding and a float32 parameter vector it keeps alive (and updates in train_rows)."""

    @property
    def hidden(self) -> int: ...
    def evaluate_rows(self, rows: NDArray[np.uint8]) -> NDArray[np.float64]:
        """(n, 3) win, win_mars, lose_mars of each valid row for its side on roll (to decide): the raw net."""
    def train_rows(self, rows: NDArray[np.uint8], targets: NDArray[np.float64], rate: float) -> float:
        """One SGD pass over the rows in order; returns the mean loss."""

class CoreNet(NetModel):
    """A Fevga net: rows are Fevga position rows."""

    def __init__(self, params: NDArray[np.float32], hidden: int) -> None: ...

def encode_row(row: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The dense input vector of one valid row."""
