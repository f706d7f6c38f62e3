# CorePosition: an immutable, hashable owner of one PositionC (by value).
#
# fevga.Position subclasses it. Every method validates its arguments in O(1) (rows through
# board.position_load_checked, dice 1-6, rule flags, perft depth), so no call from Python can
# reach the kernels with input they do not handle; results are instances of the caller's class.

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.exc cimport PyErr_CheckSignals
from libc.string cimport memcmp, memset

from fevga_core.types cimport (
    PositionC, MoveC, SideC, uint8_t, uint32_t, uint64_t, NUM_POINTS, NUM_SLOTS, NUM_CHECKERS, NUM_ROLLS, MAX_MOVES, POSITION_WIDTH,
)
from fevga_core.board cimport (
    position_update, position_key, position_load, position_start, position_winner, position_load_checked, position_store, side_pips, fevga_flags_checked,
    moves_checked, ROLL_D1, ROLL_D2,
)
from fevga_core.movegen cimport (
    ScratchC, WorkspaceC, scratch_new, scratch_free, generate_moves, apply_move,
    player_can_move, position_is_dead, MoveList,
)

from numpy import integer as np_integer

from fevga_core.errors import InvalidArgumentError, InvalidDiceError, InvalidRulesError
from fevga_core.state cimport perft

MAX_PERFT_DEPTH = 12        # far beyond any feasible run (depth 5 from the start: 1.5e8 leaves)

# Scratch buffers for calls made with the GIL held (one call at a time). Only the generator
# writes them, and each call copies what it needs out before any Python code can run (a
# finaliser or another thread may call into this module as soon as an object is created).
cdef ScratchC _SCRATCH
scratch_new(&_SCRATCH, 1)

# What CorePosition() holds (Position() is the start): board.position_start's, built once.
cdef PositionC _START
position_start(&_START, 0)


cdef int _color(object color) except -1:
    """0 or 1 for a colour argument, else InvalidArgumentError quoting it."""
    if isinstance(color, (int, np_integer)) and not isinstance(color, bool) and (color == 0 or color == 1):
        return color
    raise InvalidArgumentError(f"color {color!r} must be WHITE (0) or BLACK (1)")


cdef int check_dice(int d1, int d2) except -1:
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise InvalidDiceError(f"dice ({d1}, {d2}): values must be 1-6")
    return 0


cdef const char* ID_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


cdef str board_id(const PositionC* pos):
    """The 16-character position ID of a board (the layout of fevga.notation's docstring):
    the turn bit, then White's points 24..1 and Black's, each as its checkers' 1 bits and a 0
    bit, zero-padded to 96 bits, in URL-safe base64. A board holds at most 15 checkers a
    side on its points, so at most 79 bits are written."""
    cdef uint8_t raw[12]
    cdef char text[16]
    cdef int bit = 1, color, p, k, i
    cdef uint32_t group
    memset(raw, 0, 12)
    if pos.turn:
        raw[0] = 0x80
    for color in range(2):
        for p in range(NUM_POINTS, 0, -1):
            for k in range(pos.side[color].counts[p]):
                raw[bit >> 3] |= 0x80 >> (bit & 7)
                bit += 1
            bit += 1
    for i in range(4):
        group = (<uint32_t> raw[3 * i] << 16) | (<uint32_t> raw[3 * i + 1] << 8) | raw[3 * i + 2]
        for k in range(4):
            text[4 * i + k] = ID_ALPHABET[(group >> (18 - 6 * k)) & 63]
    return text[:16].decode("ascii")


cdef class CoreBoard:
    """A position of either game in the core: the accessors both games share (position.pxd)."""

    def _board_id(self):
        """The 16-character ID of the board (a Gioul ID begins with it)."""
        return board_id(self.board())

    cdef const PositionC* board(self) except NULL:
        raise NotImplementedError("a game's position holds the board")

    cdef uint64_t key(self) except? 0:
        raise NotImplementedError("a game's position keys itself")

    @property
    def turn(self):
        """The side to move: 0 = White, 1 = Black (Gioul: who plays the pending dice, or rolls next)."""
        return self.board().turn

    @property
    def zobrist(self):
        """The 64-bit key of the whole position (board.pyx documents the table; Gioul mixes in its dice)."""
        return self.key()

    def counts(self, color):
        """25 counts in `color`'s own numbering; index 0 = borne off."""
        cdef const uint8_t* c = self.board().side[_color(color)].counts
        return tuple([c[i] for i in range(NUM_SLOTS)])

    def pips(self, color):
        """Pip count of `color`: sum of own point numbers of its checkers on the board."""
        return side_pips(&self.board().side[_color(color)])

    def _winner(self):
        """0 or 1 for a side that has borne off all 15 checkers, else -1."""
        return position_winner(self.board())

    def _perft(self, int depth, int flags):
        """Leaves of the decision tree to `depth` under rule `flags` (a Gioul state: FLAG_GIOUL),
        GIL released; Ctrl-C stops it."""
        cdef ScratchC scratch
        cdef PerftC run
        cdef long long total
        if not 0 <= depth <= MAX_PERFT_DEPTH:
            raise InvalidArgumentError(f"perft depth {depth} must be from 0 to {MAX_PERFT_DEPTH}")
        self.flags_checked(flags)
        scratch_new(&scratch, max(depth, 1))     # one move list per level
        run.flags, run.ws, run.calls = flags, scratch.ws, 0
        try:
            with nogil:
                total = self.perft_below(depth, &run, scratch.moves)
        finally:
            scratch_free(&scratch)
        return total

    cdef int flags_checked(self, int flags) except -1:
        raise NotImplementedError("a game's position checks its rule flags")

    cdef long long perft_below(self, int depth, PerftC* run, MoveC* moves) except -1 nogil:
        with gil:
            raise NotImplementedError("a game's position runs its perft")


cdef class CorePosition(CoreBoard):
    """Both armies in own numbering, the side on roll and the Zobrist key (see board.pyx)."""

    cdef const PositionC* board(self) except NULL:
        return &self.c

    cdef uint64_t key(self) except? 0:
        return position_key(&self.c)

    cdef int flags_checked(self, int flags) except -1:
        return fevga_flags_checked(flags)

    cdef long long perft_below(self, int depth, PerftC* run, MoveC* moves) except -1 nogil:
        cdef PositionC root = self.c
        return perft(&root, depth, run, moves)

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

    def __hash__(self):  # with __eq__: each game compares its own state
        return <Py_ssize_t> (position_key(&self.c) >> 1)

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
        cdef MoveList moves = position_move_list(self, NULL, 0, move_cls)  # made before the generator runs
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


cdef class FevgaMoves(MoveList):
    """A Fevga position's legal moves for one roll (fevga_core.movegen.MoveList)."""
    cdef PositionC before

    cdef object _position(self, int k):
        cdef CorePosition child = self.state_cls.__new__(self.state_cls)
        child.c = self.before
        apply_move(&child.c, &self.moves[k])
        return child


cdef MoveList position_move_list(CorePosition position, const MoveC* moves, int n, type move_cls):
    cdef FevgaMoves out = FevgaMoves.__new__(FevgaMoves)
    out.before = position.c
    return out._filled(position, move_cls, moves, n)
