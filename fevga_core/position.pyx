# CorePosition: an immutable, hashable owner of one PositionC (by value).
#
# fevga.Position subclasses it; every method here trusts its input (the Python layer
# validates once) and results are created as instances of the caller's class.

from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.string cimport memcmp, memset

from fevga_core.types cimport (
    PositionC, MoveC, SideC, uint8_t, uint64_t, NUM_SLOTS, NUM_CHECKERS, MAX_MOVES, POSITION_WIDTH,
)
from fevga_core.board cimport position_update, position_load, position_store, side_pips
from fevga_core.movegen cimport (
    ScratchC, scratch_new, scratch_free, generate_moves, apply_move,
    player_can_move, position_is_dead, ROLL_D1, ROLL_D2,
)

from numpy import integer as np_integer

# Scratch buffers for calls made with the GIL held (one call at a time).
cdef ScratchC _SCRATCH
scratch_new(&_SCRATCH, 1)


cdef long long _perft(PositionC* pos, int depth, int flags, MoveC* buffers, ScratchC* scratch) noexcept nogil:
    cdef long long total = 0
    cdef int i, k, n
    cdef PositionC child
    cdef MoveC* moves = buffers
    if depth == 0 or pos.side[0].counts[0] == NUM_CHECKERS or pos.side[1].counts[0] == NUM_CHECKERS:
        return 1
    for i in range(21):
        n = generate_moves(pos, ROLL_D1[i], ROLL_D2[i], flags, moves, scratch.ws)
        if n < 0:
            return -1
        if depth == 1:
            total += n
            continue
        for k in range(n):
            child = pos[0]
            apply_move(&child, &moves[k])
            total += _perft(&child, depth - 1, flags, buffers + MAX_MOVES, scratch)
    return total


cdef int _color(object color) except -1:
    """0 or 1 for a colour argument, else InvalidArgumentError quoting it."""
    if isinstance(color, (int, np_integer)) and (color == 0 or color == 1):
        return color
    from fevga.errors import InvalidArgumentError
    raise InvalidArgumentError(f"color {color!r} must be WHITE (0) or BLACK (1)")


cdef class CorePosition:
    """Both armies in own numbering, the side on roll and the Zobrist key (see board.pyx)."""

    def __cinit__(self):
        memset(&self.c, 0, sizeof(PositionC))

    @classmethod
    def _from_row(cls, bytes row):
        """Trusted constructor from the 51-byte flat row (board.pyx layout)."""
        cdef CorePosition p = cls.__new__(cls)
        position_load(&p.c, <const uint8_t*> row)
        return p

    def _row(self):
        """The 51-byte flat row of this position."""
        cdef uint8_t row[POSITION_WIDTH]
        position_store(&self.c, row)
        return PyBytes_FromStringAndSize(<char*> row, POSITION_WIDTH)

    def __reduce__(self):
        return (type(self)._from_row, (self._row(),))

    @property
    def turn(self):
        """The side on roll: 0 = White, 1 = Black."""
        return self.c.turn

    @property
    def zobrist(self):
        """The 64-bit Zobrist key (board.pyx documents the table)."""
        return self.c.key

    def counts(self, color):
        """25 counts in `color`'s own numbering; index 0 = borne off."""
        cdef const uint8_t* c = self.c.side[_color(color)].counts
        return tuple([c[i] for i in range(NUM_SLOTS)])

    def _winner(self):
        """0 or 1 for a side that has borne off all 15 checkers, else -1."""
        if self.c.side[0].counts[0] == NUM_CHECKERS:
            return 0
        if self.c.side[1].counts[0] == NUM_CHECKERS:
            return 1
        return -1

    def pips(self, color):
        """Pip count of `color`: sum of own point numbers of its checkers on the board."""
        return side_pips(&self.c.side[_color(color)])

    def __hash__(self):
        return <Py_ssize_t> (self.c.key >> 1)

    def __eq__(self, other):
        if not isinstance(other, CorePosition):
            return NotImplemented
        cdef CorePosition o = other
        return (self.c.turn == o.c.turn
                and memcmp(self.c.side[0].counts, o.c.side[0].counts, NUM_SLOTS) == 0
                and memcmp(self.c.side[1].counts, o.c.side[1].counts, NUM_SLOTS) == 0)

    def _legal_moves(self, int d1, int d2, int flags, type move_cls):
        """The legal moves for dice (d1, d2) as `move_cls` tuples (steps, result), where steps
        is a tuple of (from, to) pairs; [] for a finished game."""
        cdef int n, k, j
        cdef CorePosition child
        cdef type cls = type(self)
        if self._winner() >= 0:
            return []
        n = generate_moves(&self.c, d1, d2, flags, _SCRATCH.moves, _SCRATCH.ws)
        if n < 0:
            raise OverflowError("more legal moves than the generator buffer holds")
        out = []
        for k in range(n):
            child = cls.__new__(cls)
            child.c = self.c
            apply_move(&child.c, &_SCRATCH.moves[k])
            steps = tuple([(_SCRATCH.moves[k].steps[j][0], _SCRATCH.moves[k].steps[j][1]) for j in range(_SCRATCH.moves[k].nsteps)])
            out.append(tuple.__new__(move_cls, (steps, child)))
        return out

    def _count_legal(self, int d1, int d2, int flags):
        """Number of distinct legal moves for dice (d1, d2)."""
        return generate_moves(&self.c, d1, d2, flags, _SCRATCH.moves, _SCRATCH.ws)

    def _can_move(self, color, int flags):
        """Whether `color` has a legal move for at least one of the 21 rolls."""
        return player_can_move(&self.c, _color(color), flags)

    def _is_dead(self, int flags):
        """Neither side has a legal move for any roll (docs/rules.md §8)."""
        return position_is_dead(&self.c, flags)

    def _perft(self, int depth, int flags):
        """Leaves of the roll/move tree to `depth` (GIL released)."""
        cdef ScratchC scratch
        cdef long long total
        cdef PositionC root = self.c
        scratch_new(&scratch, max(depth, 1))     # one move list per level
        with nogil:
            total = _perft(&root, depth, flags, scratch.moves, &scratch)
            scratch_free(&scratch)
        if total < 0:
            raise OverflowError("more legal moves than the generator buffer holds")
        return total
