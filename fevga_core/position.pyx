# CorePosition: an immutable, hashable owner of one PositionC (by value).
#
# fevga.Position subclasses it. Every method validates its arguments in O(1) (rows through
# board.position_load_checked, dice 1-6, rule flags, perft depth), so no call from Python can
# reach the kernels with input they do not handle; results are instances of the caller's class.

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.exc cimport PyErr_CheckSignals
from libc.string cimport memcmp

from fevga_core.types cimport (
    PositionC, MoveC, SideC, uint8_t, uint64_t, NUM_SLOTS, NUM_CHECKERS, NUM_ROLLS, MAX_MOVES, POSITION_WIDTH,
)
from fevga_core.board cimport (
    position_update, position_load, position_start, position_winner, position_load_checked, position_store, side_pips, fevga_flags_checked,
    moves_checked, ROLL_D1, ROLL_D2,
)
from fevga_core.movegen cimport (
    ScratchC, WorkspaceC, scratch_new, scratch_free, generate_moves, apply_move,
    player_can_move, position_is_dead, MoveList, move_steps,
)

from numpy import integer as np_integer

from fevga_core.errors import InvalidArgumentError, InvalidDiceError, InvalidRulesError

MAX_PERFT_DEPTH = 12        # far beyond any feasible run (depth 5 from the start: 1.5e8 leaves)
cdef enum:
    SIGNAL_INTERVAL = 1 << 14   # generator calls between two Ctrl-C checks (~ms apart)

# Scratch buffers for calls made with the GIL held (one call at a time). Only the generator
# writes them, and each call copies what it needs out before any Python code can run (a
# finaliser or another thread may call into this module as soon as an object is created).
cdef ScratchC _SCRATCH
scratch_new(&_SCRATCH, 1)

# What CorePosition() holds (Position() is the start): board.position_start's, built once.
cdef PositionC _START
position_start(&_START, 0)


ctypedef struct PerftC:
    int flags
    WorkspaceC* ws
    unsigned long long calls


cdef long long _perft(PositionC* pos, int depth, PerftC* run, MoveC* moves) except -1 nogil:
    """Leaves below `pos`; -1 with an exception set (Ctrl-C, or a generator overflow)."""
    cdef long long total = 0, below
    cdef int i, k, n
    cdef PositionC child
    if depth == 0 or position_winner(pos) >= 0:
        return 1
    for i in range(NUM_ROLLS):
        run.calls += 1
        if run.calls % SIGNAL_INTERVAL == 0:
            with gil:
                PyErr_CheckSignals()
        n = moves_checked(generate_moves(pos, ROLL_D1[i], ROLL_D2[i], run.flags, moves, run.ws))
        if depth == 1:
            total += n
            continue
        for k in range(n):
            child = pos[0]
            apply_move(&child, &moves[k])
            below = _perft(&child, depth - 1, run, moves + MAX_MOVES)
            total += below
    return total


cdef int _color(object color) except -1:
    """0 or 1 for a colour argument, else InvalidArgumentError quoting it."""
    if isinstance(color, (int, np_integer)) and not isinstance(color, bool) and (color == 0 or color == 1):
        return color
    raise InvalidArgumentError(f"color {color!r} must be WHITE (0) or BLACK (1)")


cdef int check_dice(int d1, int d2) except -1:
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise InvalidDiceError(f"dice ({d1}, {d2}): values must be 1-6")
    return 0


cdef class CorePosition:
    """Both armies in own numbering, the side on roll and the Zobrist key (see board.pyx)."""

    def __cinit__(self):
        self.c = _START

    def __init__(self):
        """The start position (CorePosition() and fevga.Position() take no arguments)."""

    @classmethod
    def _initial(cls, turn):
        """The start position (board.position_start) with `turn` (0 or 1) on roll."""
        cdef CorePosition p = cls.__new__(cls)
        position_start(&p.c, _color(turn))
        return p

    @classmethod
    def _from_row(cls, row):
        """The position of a 51-byte flat row (board.pyx layout), validated (also for unpickling)."""
        cdef CorePosition p = cls.__new__(cls)
        position_load_checked(&p.c, row)
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
        return position_winner(&self.c)

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
        """The legal moves for dice (d1, d2): a sequence of `move_cls` tuples (steps, result),
        where steps is a tuple of (from, to) pairs, each made when first asked for; empty for
        a finished game."""
        cdef int n
        cdef MoveList moves = _empty_moves(self, move_cls)  # made before the generator runs
        check_dice(d1, d2)
        fevga_flags_checked(flags)
        if self._winner() >= 0:
            return moves
        n = moves_checked(generate_moves(&self.c, d1, d2, flags, _SCRATCH.moves, _SCRATCH.ws))
        moves._fill(_SCRATCH.moves, n)
        return moves

    def _count_legal(self, int d1, int d2, int flags):
        """Number of distinct legal moves for dice (d1, d2)."""
        check_dice(d1, d2)
        fevga_flags_checked(flags)
        return generate_moves(&self.c, d1, d2, flags, _SCRATCH.moves, _SCRATCH.ws)

    def _can_move(self, color, int flags):
        """Whether `color` has a legal move for at least one of the 21 rolls."""
        fevga_flags_checked(flags)
        return player_can_move(&self.c, _color(color), flags)

    def _is_dead(self, int flags):
        """Neither side has a legal move for any roll (docs/rules.md §8)."""
        fevga_flags_checked(flags)
        return position_is_dead(&self.c, flags)

    def _perft(self, int depth, int flags):
        """Leaves of the roll/move tree to `depth` (GIL released; Ctrl-C stops it)."""
        cdef ScratchC scratch
        cdef PerftC run
        cdef long long total
        cdef PositionC root = self.c
        if not 0 <= depth <= MAX_PERFT_DEPTH:
            raise InvalidArgumentError(f"perft depth {depth} must be from 0 to {MAX_PERFT_DEPTH}")
        fevga_flags_checked(flags)
        scratch_new(&scratch, max(depth, 1))     # one move list per level
        run.flags = flags
        run.ws = scratch.ws
        run.calls = 0
        try:
            with nogil:
                total = _perft(&root, depth, &run, scratch.moves)
        finally:
            scratch_free(&scratch)
        return total


cdef class FevgaMoves(MoveList):
    """A Fevga position's legal moves for one roll (fevga_core.movegen.MoveList)."""
    cdef PositionC before
    cdef type position_cls

    cdef object _make(self, int k):
        cdef CorePosition child = self.position_cls.__new__(self.position_cls)
        child.c = self.before
        apply_move(&child.c, &self.moves[k])
        return tuple.__new__(self.move_cls, (move_steps(&self.moves[k]), child))


cdef MoveList _empty_moves(CorePosition position, type move_cls):
    """An empty FevgaMoves of `position` whose moves are `move_cls` values."""
    cdef FevgaMoves moves = FevgaMoves.__new__(FevgaMoves)
    moves.move_cls = move_cls
    moves.position_cls = type(position)
    moves.before = position.c
    return moves


cdef MoveList position_moves(CorePosition position, const MoveC* moves, int n, type move_cls):
    cdef MoveList out = _empty_moves(position, move_cls)
    out._fill(moves, n)
    return out
