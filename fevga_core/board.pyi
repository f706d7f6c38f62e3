"""Zobrist hashing and the flat 51-byte row layout of positions."""

ZOBRIST_SEED: int

def zobrist_entry(color: int, slot: int, count: int) -> int:
    """One entry of the Zobrist table (for tests and documentation)."""

def zobrist_turn_key() -> int:
    """The key toggled when Black is on roll."""
