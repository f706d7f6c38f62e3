"""Training samples by self-play (see train.pyx)."""

import numpy as np
from numpy.typing import NDArray

from fevga_core.gioul import CoreGioulNet
from fevga_core.net import CoreNet
from fevga_core.race import Tables

def selfplay_samples(net: CoreNet, tables: Tables, flags: int, master: int, first_index: int, games: int,
                     lam: float) -> tuple[NDArray[np.uint8], NDArray[np.float64], NDArray[np.float64]]:
    """(rows, lambda-return targets, per-game outcomes for White) of games first_index.. ."""

def gioul_selfplay_samples(net: CoreGioulNet, master: int, first_index: int, games: int,
                           lam: float) -> tuple[NDArray[np.uint8], NDArray[np.float64], NDArray[np.float64]]:
    """(Gioul state rows, lambda-return targets, per-game outcomes for White) of games first_index.. ."""
