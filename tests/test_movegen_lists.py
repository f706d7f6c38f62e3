"""The move generator's full output, order included, pinned against recorded checksums.

The crosschecks compare *sets* of results with the independent reference. The random policy
and every seeded game, rollout and training run pick moves by index, so the *order* of the
list (and the step sequence kept for each result) is part of the engine's results too. This
file pins both: every (position, roll) pair of a seeded corpus is generated through the batch
API (each result row, its steps and their count, in order) and hashed in blocks; the
digests in tests/data/movegen_lists.json were recorded from the generator before it was
optimised (issue 18) and must never move.

The corpus (`fevga_corpus`, `gioul_corpus`): every distinct unfinished position of seeded
random games under the default rules, of seeded greedy-heuristic games under the strict
preset (blocks, primes, obligations), and every distinct unfinished state of seeded random
Gioul games (fresh rolls and pending blocks of a double or chain, leftover dice). Fevga
pairs are generated under several rule mixes (each branch of the generator: per-die and
end-of-turn prime checks, the ban before the opponent's mother, reach release, the
no-playable-roll obligation), all 16 on a sample.

Record (only when the generator's output is meant to change, which no refactor may do):
    python tests/test_movegen_lists.py --record
"""

from __future__ import annotations

import hashlib
import json
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from fevga import Position, Rules, batch
from fevga.game import play_game
from fevga.gioul import GioulPosition, to_array
from fevga.game import play_game
from fevga_core import board
from fevga_core import state as core_state
from fevga_core.constants import FLAG_GIOUL, FLAG_BAN_PRIME, FLAG_MUST_OPEN_NO_PLAYABLE, FLAG_QUARTER_END_OF_TURN, FLAG_RELEASE_REACH, POSITION_WIDTH

DATA = Path(__file__).with_name("data") / "movegen_lists.json"
PENDING_COUNT = POSITION_WIDTH + 4  # Gioul row column: dice of the pending block (0: waiting for a roll)
BLOCK = 1000  # positions per digest (a failure names the block)
RANDOM_GAMES = 150
STRICT_HEURISTIC_GAMES = 50
GIOUL_GAMES = 150
ROLLS = np.array(board.ROLLS, dtype=np.uint8)
# Rule mixes every corpus position is generated under (types.pxd FLAG_*): default; reach
# release; end-of-turn timing; the ban before the opponent's mother; no_playable_roll; the
# strict preset; all four.
REACH, END_OF_TURN, BAN, NO_PLAYABLE = (FLAG_RELEASE_REACH, FLAG_QUARTER_END_OF_TURN, FLAG_BAN_PRIME,
                                       FLAG_MUST_OPEN_NO_PLAYABLE)
FLAG_SETS = (0, REACH, END_OF_TURN, BAN, NO_PLAYABLE, REACH | BAN | NO_PLAYABLE, REACH | END_OF_TURN | BAN | NO_PLAYABLE)
SAMPLE_EVERY = 7  # and every 7th position under all 16 mixes of the four bits
ALL_MIXES = tuple(range((REACH | END_OF_TURN | BAN | NO_PLAYABLE) + 1))


def _distinct(items: list[object]) -> list[object]:
    return list(dict.fromkeys(items))


@cache
def fevga_corpus() -> np.ndarray:
    positions: list[Position] = []
    for seed in range(RANDOM_GAMES):
        positions += play_game(seed=seed).positions()
    for seed in range(STRICT_HEURISTIC_GAMES):
        positions += play_game(seed=seed, policy="heuristic", rules=Rules.strict()).positions()
    return batch.to_array([p for p in _distinct(positions) if not p.is_game_over()])  # type: ignore[union-attr]


@cache
def gioul_corpus() -> np.ndarray:
    states: list[GioulPosition] = []
    for seed in range(GIOUL_GAMES):
        states += play_game(game="gioul", seed=seed).positions()
    return to_array([s for s in _distinct(states) if not s.is_game_over()])  # type: ignore[union-attr, misc]


def _digest(*arrays: np.ndarray) -> str:
    h = hashlib.blake2b(digest_size=8)
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _with_rolls(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.repeat(rows, len(ROLLS), axis=0), np.tile(ROLLS, (len(rows), 1))


def _blocks(generate: object, rows: np.ndarray, dice_of: object) -> tuple[list[str], int]:
    """Digests of the generated lists of each BLOCK of corpus rows, and the moves in all."""
    digests, moves = [], 0
    for start in range(0, len(rows), BLOCK):
        part, dice = dice_of(rows[start:start + BLOCK])  # type: ignore[operator]
        offsets, results, steps, nsteps = generate(part, dice)  # type: ignore[operator]
        digests.append(_digest(np.diff(offsets), results, steps, nsteps))
        moves += len(results)
    return digests, moves


def fevga_lists(flags: int, every: int = 1) -> tuple[list[str], int]:
    rows = fevga_corpus()[::every]
    return _blocks(lambda r, d: core_state.generate_batch(r, d, flags), rows, _with_rolls)


def _gioul_dice(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """21 rolls for a state waiting for a roll, one (ignored) dice row for a pending state."""
    pending = rows[:, PENDING_COUNT] > 0
    parts = [np.repeat(rows[i:i + 1], 1 if pending[i] else len(ROLLS), axis=0) for i in range(len(rows))]
    dice = [ROLLS[:1] if pending[i] else ROLLS for i in range(len(rows))]
    return np.concatenate(parts), np.ascontiguousarray(np.concatenate(dice))


def gioul_lists() -> tuple[list[str], int]:
    return _blocks(lambda r, d: core_state.generate_batch(r, d, FLAG_GIOUL), gioul_corpus(), _gioul_dice)


def measure() -> dict[str, object]:
    out: dict[str, object] = {
        "fevga_corpus": {"positions": len(fevga_corpus()), "digest": _digest(fevga_corpus())},
        "gioul_corpus": {"states": len(gioul_corpus()), "digest": _digest(gioul_corpus())},
    }
    for flags in FLAG_SETS:
        digests, moves = fevga_lists(flags)
        out[f"fevga_flags_{flags}"] = {"moves": moves, "blocks": digests}
    for flags in ALL_MIXES:
        digests, moves = fevga_lists(flags, SAMPLE_EVERY)
        out[f"fevga_sample_flags_{flags}"] = {"moves": moves, "blocks": digests}
    digests, moves = gioul_lists()
    out["gioul"] = {"moves": moves, "blocks": digests}
    return out


@cache
def recorded() -> dict[str, dict[str, object]]:
    return json.loads(DATA.read_text())  # type: ignore[no-any-return]


def _check(name: str, digests: list[str], moves: int) -> None:
    want = recorded()[name]
    bad = [i for i, (a, b) in enumerate(zip(digests, want["blocks"])) if a != b]  # type: ignore[arg-type]
    assert (moves, len(digests), bad) == (want["moves"], len(want["blocks"]), []), (  # type: ignore[arg-type]
        f"{name}: {moves} moves (recorded {want['moves']}); blocks of {BLOCK} positions that differ: {bad[:10]}")


def test_the_corpora_are_the_recorded_ones() -> None:
    """The seeded games that make the corpus (they pick moves by index: order matters here too)."""
    assert {"positions": len(fevga_corpus()), "digest": _digest(fevga_corpus())} == recorded()["fevga_corpus"]
    assert {"states": len(gioul_corpus()), "digest": _digest(gioul_corpus())} == recorded()["gioul_corpus"]
    assert len(fevga_corpus()) > 15_000 and len(gioul_corpus()) > 8_000


@pytest.mark.parametrize("flags", FLAG_SETS)
def test_fevga_lists_are_the_recorded_ones(flags: int) -> None:
    _check(f"fevga_flags_{flags}", *fevga_lists(flags))


@pytest.mark.parametrize("flags", ALL_MIXES)
def test_fevga_lists_under_every_rule_mix(flags: int) -> None:
    _check(f"fevga_sample_flags_{flags}", *fevga_lists(flags, SAMPLE_EVERY))


def test_gioul_lists_are_the_recorded_ones() -> None:
    """Fresh rolls (generate_moves under FLAG_GIOUL) and pending blocks (generate_block)."""
    pending = int(np.count_nonzero(gioul_corpus()[:, PENDING_COUNT]))
    assert pending > 2_000
    _check("gioul", *gioul_lists())


def test_a_changed_list_order_is_caught() -> None:
    """The digest sees order: the same results in another order hash differently."""
    offsets, results, steps, nsteps = core_state.generate_batch(fevga_corpus()[100:101], ROLLS[7:8].copy(), 0)
    assert len(results) > 2
    assert _digest(np.diff(offsets), results, steps, nsteps) != _digest(np.diff(offsets), results[::-1], steps[::-1],
                                                                           nsteps[::-1])


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        raise SystemExit(__doc__)
    DATA.write_text(json.dumps(measure(), indent=1) + "\n")
    print(f"wrote {DATA}")
