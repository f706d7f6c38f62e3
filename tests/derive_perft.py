"""Derive perft counts with the independent reference (tests/reference.py) alone.

The pinned counts of tests/test_perft.py (REFERENCE_PERFT, with the exact commands and run
times) come from this script, run offline (it takes long: the reference is deliberately
simple, pure Python):

    cd tests && nice -n 15 python derive_perft.py START default 4
    cd tests && nice -n 15 python derive_perft.py START default 5 5 --cached

prints one line per depth from MIN_DEPTH (default 1) to MAX_DEPTH: the count and the seconds
it took. It never imports `fevga` or `fevga_core`; the positions are given as the
reference's own counts, and tests/test_perft.py checks that each id below decodes to them.
"""

from __future__ import annotations

import sys
import time

import reference

Counts = tuple[int, ...]


def _side(points: dict[int, int]) -> Counts:
    counts = [0] * 25
    for point, n in points.items():
        counts[point] = n
    return tuple(counts)


# name -> (position id, White's counts, Black's counts, side on roll); own numbering.
POSITIONS: dict[str, tuple[str, Counts, Counts, int]] = {
    "START": ("f_8AAAD__gAAAAAA", _side({24: 15}), _side({24: 15}), reference.WHITE),
    "MID1": (
        "FXW7AAIqq6mgCAAA",
        _side({1: 1, 15: 2, 16: 3, 17: 2, 18: 1, 19: 3, 20: 1, 21: 1, 22: 1}),
        _side({2: 1, 11: 1, 12: 2, 14: 1, 15: 1, 16: 3, 17: 1, 18: 1, 19: 1, 20: 1, 21: 1, 22: 1}),
        reference.WHITE,
    ),
    "MID2": (
        "FVQINZwAH33gBAAA",
        _side({2: 3, 4: 2, 5: 1, 6: 2, 11: 1, 17: 1, 18: 1, 19: 1, 20: 1, 21: 1, 22: 1}),
        _side({1: 1, 11: 4, 12: 5, 13: 5}),
        reference.WHITE,
    ),
    "RACE": (
        "AAXuhqoKgAFd_AAA",
        _side({1: 1, 2: 1, 3: 1, 4: 1, 5: 2, 9: 1, 10: 3, 11: 4, 12: 1}),
        _side({1: 7, 2: 3, 3: 1, 4: 1, 18: 1, 19: 1, 20: 1}),
        reference.WHITE,
    ),
    "MID3": (
        "Sr3oAhDrZUqACAAA",
        _side({4: 1, 8: 1, 17: 1, 18: 4, 19: 4, 20: 1, 21: 1, 22: 1, 24: 1}),
        _side({2: 1, 13: 1, 14: 1, 15: 1, 17: 1, 18: 1, 19: 1, 21: 2, 22: 2, 23: 1, 24: 3}),
        reference.WHITE,
    ),
}
RULES = {"default": reference.DEFAULT_RULES, "strict": reference.STRICT_RULES}


def perft_cached(white: Counts, black: Counts, turn: int, depth: int, rules: dict[str, object]) -> int:
    """reference.perft with the count of each (position, depth) remembered: the same sum over
    the 21 rolls and reference.legal_results, done once per transposition (moves of one side
    in two turns often commute): depth 5 from the start in minutes instead of hours."""
    cache: dict[tuple[Counts, Counts, int, int], int] = {}

    def count(white: Counts, black: Counts, turn: int, depth: int) -> int:
        if depth == 0 or reference.is_game_over(white, black):
            return 1
        key = (white, black, turn, depth)
        if key not in cache:
            cache[key] = sum(
                count(w, b, 1 - turn, depth - 1)
                for dice in reference.ROLLS
                for w, b in reference.legal_results(white, black, turn, dice, rules)
            )
        return cache[key]

    return count(white, black, turn, depth)


def main(argv: list[str]) -> int:
    """`derive_perft.py NAME RULES MAX_DEPTH [MIN_DEPTH] [--cached]`: one line per depth."""
    cached = "--cached" in argv
    argv = [a for a in argv if a != "--cached"]
    name, rules, max_depth = argv[0], RULES[argv[1]], int(argv[2])
    min_depth = int(argv[3]) if len(argv) > 3 else 1
    _, white, black, turn = POSITIONS[name]
    perft = perft_cached if cached else reference.perft
    for depth in range(min_depth, max_depth + 1):
        start = time.perf_counter()
        count = perft(white, black, turn, depth, rules)
        print(f"{name} {argv[1]} depth {depth}: {count} ({time.perf_counter() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
