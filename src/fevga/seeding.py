"""Seeds: every random process takes `seed: int | SeedSequence | None`.

A seed becomes one 64-bit master key (the first word of ``SeedSequence(seed).generate_state``);
game ``i`` of a job then draws its dice from its own stream seeded with
``fevga_core.game.game_seed_of(master, i)``, so results never depend on how many workers
played the games or in which order.
"""

from __future__ import annotations

import numpy as np

from fevga.errors import InvalidArgumentError

SeedLike = int | np.random.SeedSequence | None


def seed_sequence(seed: SeedLike) -> np.random.SeedSequence:
    """The SeedSequence of `seed` (None draws fresh entropy, recorded in the result)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None or (isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0):
        return np.random.SeedSequence(seed)
    raise InvalidArgumentError(f"seed {seed!r} must be a non-negative int, a numpy SeedSequence or None")


def master_key(seed: SeedLike) -> int:
    """The 64-bit master key of `seed`."""
    return int(seed_sequence(seed).generate_state(1, np.uint64)[0])


def seed_repr(seed: SeedLike) -> int | str:
    """A JSON-ready value that reproduces `seed` (the entropy of a SeedSequence)."""
    sequence = seed_sequence(seed)
    entropy = sequence.entropy
    if sequence.spawn_key:
        return f"SeedSequence(entropy={entropy}, spawn_key={sequence.spawn_key})"
    return int(entropy) if isinstance(entropy, int) else str(entropy)
