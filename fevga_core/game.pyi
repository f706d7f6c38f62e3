"""Seeded randomness and the built-in move-choice policies."""

MAX_RNG_OUTPUTS: int

def evaluate(row: bytes, color: int) -> float:
    """heuristic_eval of a flat row for `color`."""

def rng_outputs(seed: int, n: int) -> list[int]:
    """The first `n` raw outputs of the generator seeded with `seed`."""

def game_seed_of(master: int, index: int) -> int:
    """The seed of game `index` in a job with master seed `master`."""
