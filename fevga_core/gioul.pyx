# Gioul (docs/rules.md §11): what only Gioul has besides its transitions (state.pyx) — its
# perft over decisions, its 58-byte state rows and their checks, the batch kernels over them,
# the Python state type CoreGioul, its net's encoding (CoreGioulNet) and the judgment entry
# points, which run search.pyx's one search over GioulC states.

from libc.string cimport memcmp

import numpy as np
cimport numpy as cnp

from fevga_core.errors import InvalidArgumentError, InvalidPositionError, InvalidRulesError

from fevga_core.types cimport PositionC, MoveC, uint8_t, uint64_t, NUM_SLOTS, NUM_ROLLS, MAX_MOVES, POSITION_WIDTH, GIOUL_WIDTH, FLAG_GIOUL
from fevga_core.board cimport (
    position_store, position_start, position_winner, first_problem, ROLL_D1, ROLL_D2, check_interrupt,
    moves_checked,
)
from fevga_core.movegen cimport (
    ScratchC, WorkspaceC, scratch_new, scratch_free, position_is_dead, player_can_move, MoveList,
)
from fevga_core.net cimport (
    NetC, NetModel, EncodingC, model_bind, net_forward, net_sgd_step, encode_inputs, encoding_dense, GIOUL_NET_INPUTS,
)
from fevga_core.state cimport (
    gioul_initial, gioul_begin_roll, gioul_pending_moves, gioul_moves, gioul_apply, gioul_over, gioul_key, gioul_load,
    gioul_row_problem, gioul_row_text, GIOUL_FINISHED, PerftC, perft,
)

cnp.import_array()

# ---------------------------------------------------------------------------------------
# Gioul rows (their layout, load, store and checks: state.pyx).

def first_invalid_row(const uint8_t[:, ::1] states):
    """(index, message) of the first invalid row of an (n, 58) Gioul state array, or (-1, "");
    GIL released for the scan."""
    cdef int code
    cdef Py_ssize_t i = first_problem(states, GIOUL_WIDTH, gioul_row_problem, "Gioul state", &code)
    if i < 0:
        return (-1, "")
    return (i, gioul_row_text(&states[i, 0], code))


# Scratch buffers for calls made with the GIL held (one call at a time).
cdef ScratchC _SCRATCH
scratch_new(&_SCRATCH, 1)


cdef class CoreGioul(CoreBoard):
    """A Gioul game state (§11.5): board, roll counts, pending dice (see gioul.pxd)."""

    cdef const PositionC* board(self) except NULL:
        return &self.c.pos

    cdef uint64_t key(self) except? 0:
        return gioul_key(&self.c)

    cdef int flags_checked(self, int flags) except -1:
        if flags != FLAG_GIOUL:
            raise InvalidRulesError(f"flags {flags}: a Gioul state has Gioul's rules alone (FLAG_GIOUL, {FLAG_GIOUL})")
        return 0

    cdef long long perft_below(self, int depth, PerftC* run, MoveC* moves) except -1 nogil:
        cdef GioulC root = self.c
        return perft(&root, depth, run, moves)

    def __cinit__(self):
        gioul_initial(&self.c, 0)     # CoreGioul() is the start, as CorePosition() is

    @classmethod
    def _from_fields(cls, row, rolls_white, rolls_black, roller, die, count, last, pair):
        """Constructor from the 51-byte board row (its turn byte is the side on turn) and the
        state fields of GioulC, as pickles carry them: the whole state is validated like a
        batch row (a finished game is allowed), so a crafted pickle cannot reach the core."""
        cdef CoreGioul p = cls.__new__(cls)
        cdef uint8_t state[GIOUL_WIDTH]
        cdef int code, i
        fields = (rolls_white, rolls_black, roller, die, count, last, pair)
        if not isinstance(row, bytes) or len(row) != POSITION_WIDTH or \
                any(not isinstance(v, int) or not 0 <= v <= 255 for v in fields):
            raise InvalidPositionError(f"a Gioul state is a {POSITION_WIDTH}-byte board row and 7 fields of 0-255, "
                                       f"not {row!r} and {fields}")
        for i in range(POSITION_WIDTH):
            state[i] = row[i]
        for i in range(7):
            state[POSITION_WIDTH + i] = fields[i]
        code = gioul_row_problem(state)
        if code and code != GIOUL_FINISHED:
            raise InvalidPositionError(f"Gioul state {list(state[:GIOUL_WIDTH])}: {gioul_row_text(state, code)}")
        gioul_load(&p.c, state)
        return p

    def _fields(self):
        """(row, rolls_white, rolls_black, roller, die, count, last, pair)."""
        cdef uint8_t row[POSITION_WIDTH]
        position_store(&self.c.pos, row)
        return (bytes(row[:POSITION_WIDTH]), self.c.rolls[0], self.c.rolls[1], self.c.roller,
                self.c.die, self.c.count, self.c.last, self.c.pair)

    def __reduce__(self):
        return (type(self)._from_fields, self._fields())

    @classmethod
    def _initial(cls, turn):
        """The start of a game (gioul_initial: board.position_start, no rolls made) with
        `turn` (0 or 1) to roll."""
        cdef CoreGioul p = cls.__new__(cls)
        if isinstance(turn, bool) or not (turn == 0 or turn == 1):
            raise InvalidArgumentError(f"turn {turn!r} must be WHITE (0) or BLACK (1)")
        gioul_initial(&p.c, turn)
        return p

    def __hash__(self):  # with __eq__: each game compares its own state
        return <Py_ssize_t> (gioul_key(&self.c) >> 1)

    def __eq__(self, other):
        if not isinstance(other, CoreGioul):
            return NotImplemented
        cdef CoreGioul o = other
        return (self.c.pos.turn == o.c.pos.turn
                and memcmp(self.c.pos.side[0].counts, o.c.pos.side[0].counts, NUM_SLOTS) == 0
                and memcmp(self.c.pos.side[1].counts, o.c.pos.side[1].counts, NUM_SLOTS) == 0
                and self.c.rolls[0] == o.c.rolls[0] and self.c.rolls[1] == o.c.rolls[1]
                and self.c.roller == o.c.roller and self.c.die == o.c.die
                and self.c.count == o.c.count and self.c.last == o.c.last and self.c.pair == o.c.pair)

    def _legal_moves(self, int d1, int d2, type move_cls):
        """The legal moves of the next decision, a sequence of `move_cls` tuples (steps, next
        state) each made when first asked for: of the pending decision, or (no dice pending)
        of the first decision of roll d1-d2."""
        cdef int n
        cdef GioulMoves moves = <GioulMoves> gioul_move_list(self, &self.c, NULL, 0, move_cls)  # made before the generator runs
        if gioul_over(&self.c):
            return moves
        if not moves.before.count:
            gioul_begin_roll(&moves.before, d1, d2)
        n = moves_checked(gioul_pending_moves(&moves.before, _SCRATCH.moves, _SCRATCH.ws))
        moves._fill(_SCRATCH.moves, n)
        return moves

    def _count_legal(self, int d1, int d2):
        """Number of legal moves of the next decision (0 for a finished game)."""
        if gioul_over(&self.c):
            return 0
        return gioul_moves(&self.c, d1, d2, _SCRATCH.moves, _SCRATCH.ws)

    def _rolled(self, int d1, int d2):
        """The state once the side on turn has rolled d1-d2 (nothing played yet)."""
        cdef CoreGioul child = type(self).__new__(type(self))
        child.c = self.c
        gioul_begin_roll(&child.c, d1, d2)
        return child

    def _can_move(self, int color):
        """Whether `color` can play some die (any of 1-6) now."""
        return player_can_move(&self.c.pos, color, FLAG_GIOUL)

    def _is_dead(self):
        """Neither side can play any die: the game can never change (a draw)."""
        return position_is_dead(&self.c.pos, FLAG_GIOUL)


cdef class GioulMoves(MoveList):
    """The legal moves of a Gioul state's next decision (fevga_core.movegen.MoveList)."""
    cdef GioulC before      # the state with the decision's dice pending

    cdef object _position(self, int k):
        cdef CoreGioul child = self.state_cls.__new__(self.state_cls)
        child.c = self.before
        gioul_apply(&child.c, &self.moves[k])
        return child


cdef MoveList gioul_move_list(CoreGioul state, const GioulC* before, const MoveC* moves, int n, type move_cls):
    cdef GioulMoves out = GioulMoves.__new__(GioulMoves)
    out.before = before[0]
    return out._filled(state, move_cls, moves, n)


# ---------------------------------------------------------------------------------------
# The Gioul net: the network of net.pyx over the Gioul encoding ("gioul-1", net.pyx). A type
# of its own, so the core refuses it where a Fevga net (CoreNet) is due, and the reverse.

cdef int gioul_rows_checked(const uint8_t[:, ::1] rows) except -1:
    """InvalidPositionError naming the first row of `rows` that is not a valid Gioul state."""
    index, problem = first_invalid_row(rows)
    if index >= 0:
        raise InvalidPositionError(f"Gioul state row {index} {problem}: {list(rows[index])}")
    return 0


cdef double _state_step(NetC* net, const uint8_t* row, const double* target, float rate) noexcept nogil:
    """One SGD step on a checked state row (CoreGioulNet.train_rows)."""
    cdef EncodingC enc
    _encode_row(row, &enc)
    return net_sgd_step(net, GIOUL_NET_INPUTS, &enc, target, rate)


cdef void _encode_row(const uint8_t* row, EncodingC* enc) noexcept nogil:
    cdef GioulC s
    gioul_load(&s, row)
    encode_inputs(&s, enc)


cdef void _state_value(const void* net, const uint8_t* row, double* out) noexcept nogil:
    """The Gioul net's outputs for a checked state row (CoreGioulNet.evaluate_rows)."""
    cdef EncodingC enc
    _encode_row(row, &enc)
    net_forward(<const NetC*> net, GIOUL_NET_INPUTS, &enc, out)


cdef class CoreGioulNet(NetModel):
    """A Gioul net over a float32 parameter vector it keeps alive (fevga.net.Net wraps it);
    evaluate_rows and train_rows take Gioul state rows, for their side to decide."""

    def __init__(self, float[::1] params not None, int hidden):
        model_bind(self, params, hidden, GIOUL_NET_INPUTS, _state_value, _state_step)

    def _check_rows(self, const uint8_t[:, ::1] rows not None):
        gioul_rows_checked(rows)


def encode_state(const uint8_t[::1] row not None):
    """The dense float32 Gioul net input vector of one valid state row (documentation and tests)."""
    cdef EncodingC enc
    gioul_rows_checked(np.asarray(row).reshape(1, -1))
    _encode_row(&row[0], &enc)
    return encoding_dense(&enc, GIOUL_NET_INPUTS)
