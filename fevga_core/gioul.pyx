# Gioul (docs/rules.md §11): what only Gioul has besides its transitions (state.pyx) — its
# perft over decisions, its 58-byte state rows and their checks, the batch kernels over them,
# the Python state type CoreGioul, its net's encoding (CoreGioulNet) and the judgment entry
# points, which run search.pyx's one search over GioulC states.

from libc.stdint cimport int8_t
from libc.string cimport memcmp, memset

import numpy as np
cimport numpy as cnp

from fevga_core.errors import InvalidArgumentError, InvalidDiceError, InvalidPositionError

from fevga_core.types cimport (
    PositionC, MoveC, SideC, uint8_t, uint32_t, uint64_t, int32_t, int64_t,
    NUM_SLOTS, NUM_CHECKERS, NUM_ROLLS, MAX_MOVES, MAX_STEPS, POSITION_WIDTH, FLAG_GIOUL,
)
from fevga_core.board cimport (
    zobrist_turn, position_load, position_store, position_start, position_winner, row_problem, row_problem_text,
    first_problem, ROLL_D1, ROLL_D2,
    check_interrupt, check_interrupt_every, moves_checked, mix64, dice_shape_checked, out_counts_checked,
    values_out_checked,
)
from fevga_core.movegen cimport (
    ScratchC, WorkspaceC, scratch_new, scratch_free, generate_moves, generate_block, can_play_die,
    apply_move, position_is_dead, player_can_move, MoveList, move_steps,
)
from fevga_core.net cimport (
    NetC, NetModel, EncodingC, model_bind, net_forward, net_sgd_step, encode_inputs, net_evaluate,
    net_base, net_finish, outputs_equity, encoding_dense, GIOUL_NET_INPUTS, NET_OUTPUTS, NET_MAX_HIDDEN,
)
from fevga_core cimport search
from fevga_core.search cimport EvaluatorC, static_value, best_move, finish_roll, ply_value, luck_values
from fevga_core.state cimport (
    gioul_initial, gioul_begin_roll, gioul_pending_moves, gioul_moves, gioul_apply, gioul_over, gioul_key,
    gioul_can_start,
)
from fevga_core.race cimport Tables, no_tables

cnp.import_array()

cdef enum:
    PERFT_SIGNAL_INTERVAL = 1 << 14   # generator calls of perft between two Ctrl-C checks (~ms apart)


ctypedef struct GioulPerftC:
    WorkspaceC* ws
    unsigned long long calls    # generator calls so far: Ctrl-C is checked every PERFT_SIGNAL_INTERVAL


cdef long long _perft(const GioulC* s, int depth, MoveC* buffers, GioulPerftC* run) except -1 nogil:
    """Leaves of the decision tree (docs/rules.md, "Perft for Gioul"); -1 with an exception
    set (Ctrl-C, or a generator overflow)."""
    cdef long long total = 0
    cdef int k, n, r, rolls = 1
    cdef GioulC rolled, child
    if depth == 0 or gioul_over(s):
        return 1
    if not s.count:
        rolls = NUM_ROLLS
    for r in range(rolls):
        run.calls += 1
        if run.calls % PERFT_SIGNAL_INTERVAL == 0:
            check_interrupt()
        rolled = s[0]
        if not s.count:
            gioul_begin_roll(&rolled, ROLL_D1[r], ROLL_D2[r])
        n = moves_checked(gioul_pending_moves(&rolled, buffers, run.ws))
        if depth == 1:
            total += n
            continue
        for k in range(n):
            child = rolled
            gioul_apply(&child, &buffers[k])
            total += _perft(&child, depth - 1, buffers + MAX_MOVES, run)
    return total


# ---------------------------------------------------------------------------------------
# The luck of a Gioul roll (roll_values): search.pyx's evaluator (a Gioul net, Gioul bear-off
# tables, FLAG_GIOUL) over the state a roll ends in.

# What roll_values passes search.luck_values: the state whose roll is due.
ctypedef struct RollLuckC:
    const EvaluatorC* ev
    const GioulC* state


cdef int _played_roll_value(const void* ctx, const PositionC* pos, int roll, const MoveC* moves, int n,
                            ScratchC* scratch, int level, double* value) except -1 nogil:
    """The roller's equity once roll `roll` is played out, its every decision (the first from
    `moves`, then its blocks and hand-overs) by the 1-ply choice of whoever decides: the
    static value (exact, tables or net) of the state the roll ends in (ctx: a RollLuckC)."""
    cdef const RollLuckC* c = <const RollLuckC*> ctx
    cdef GioulC t = c.state[0]
    cdef double out[3]
    cdef int k
    gioul_begin_roll(&t, ROLL_D1[roll], ROLL_D2[roll])
    k = best_move(c.ev, &t, moves, n, 1, scratch, level, out) if n > 1 else 0
    gioul_apply(&t, &moves[k])
    finish_roll(c.ev, &t, scratch, level)
    static_value(c.ev, &t, out)
    value[0] = outputs_equity(out) if t.pos.turn == c.state.pos.turn else -outputs_equity(out)
    return 0


# ---------------------------------------------------------------------------------------
# Batch entry point. Gioul row layout (GIOUL_WIDTH = 58 uint8 columns): the 51-byte board
# row of board.pyx (its turn byte = the side on turn), then rolls[0], rolls[1], roller,
# die, count, last, pair (the GioulC fields).

GIOUL_WIDTH = POSITION_WIDTH + 7


cdef void _load(GioulC* s, const uint8_t* row) noexcept nogil:
    position_load(&s.pos, row)
    s.rolls[0] = row[POSITION_WIDTH]
    s.rolls[1] = row[POSITION_WIDTH + 1]
    s.roller = row[POSITION_WIDTH + 2]
    s.die = row[POSITION_WIDTH + 3]
    s.count = row[POSITION_WIDTH + 4]
    s.last = row[POSITION_WIDTH + 5]
    s.pair = row[POSITION_WIDTH + 6]


# Problems of a Gioul row beyond its board (codes 1-4 are board.row_problem's).
cdef enum:
    GIOUL_BAD_ROLLS = 5         # a roll count field above 3
    GIOUL_STRAY_FIELDS = 6      # roller / die / last / pair set without pending dice
    GIOUL_BAD_ROLLER = 7
    GIOUL_BAD_DICE = 8          # die, count, last, pair are not the rest of a roll
    GIOUL_NO_ROLL = 9           # the roller has made no roll
    GIOUL_EARLY_CHAIN = 10      # a chain pending before the roller's fourth roll
    GIOUL_FINISHED = 11         # pending dice in a finished game
    GIOUL_UNPLAYABLE = 12       # the side on turn cannot start the pending dice

_GIOUL_PROBLEMS = {
    GIOUL_BAD_ROLLS: "has a roll count (columns 51-52) above 3",
    GIOUL_STRAY_FIELDS: "has roller, die, last or pair set (columns 53, 54, 56, 57) but no pending dice (count 0)",
    GIOUL_BAD_ROLLER: "has a roller (column 53) other than 0 or 1",
    GIOUL_BAD_DICE: "has pending dice (columns 54-57: die, count, last, pair) that are not the rest of a roll",
    GIOUL_NO_ROLL: "has pending dice rolled by a side that has made no roll",
    GIOUL_EARLY_CHAIN: "has a chain pending before its roller's fourth roll",
    GIOUL_FINISHED: "has pending dice in a finished game",
    GIOUL_UNPLAYABLE: "has a side on turn that cannot play any of the pending dice (in Gioul they would "
                      "already have passed to the opponent, or been lost)",
}


cdef int gioul_row_problem(const uint8_t* row) noexcept nogil:
    """0 for a valid Gioul row (the invariants GioulPosition.from_counts enforces), else a code."""
    cdef int code = row_problem(row)
    cdef int roller = row[POSITION_WIDTH + 2], die = row[POSITION_WIDTH + 3]
    cdef int count = row[POSITION_WIDTH + 4], last = row[POSITION_WIDTH + 5], pair = row[POSITION_WIDTH + 6]
    cdef GioulC s
    if code:
        return code
    if row[POSITION_WIDTH] > 3 or row[POSITION_WIDTH + 1] > 3:
        return GIOUL_BAD_ROLLS
    if count == 0:
        return GIOUL_STRAY_FIELDS if (roller or die or last or pair) else 0
    if roller > 1:
        return GIOUL_BAD_ROLLER
    if pair:
        if not (count == 1 and 1 <= pair < die <= 6 and last == die):
            return GIOUL_BAD_DICE
    elif not (1 <= die <= 6 and count <= 4 and (last == die or (last == 6 and die < 6))):
        return GIOUL_BAD_DICE
    if row[POSITION_WIDTH + roller] == 0:
        return GIOUL_NO_ROLL
    if last > die and row[POSITION_WIDTH + roller] < 3:
        return GIOUL_EARLY_CHAIN
    if row[0] == NUM_CHECKERS or row[NUM_SLOTS] == NUM_CHECKERS:
        return GIOUL_FINISHED
    _load(&s, row)
    if not gioul_can_start(&s, s.pos.turn):
        return GIOUL_UNPLAYABLE
    return 0


cdef int _gioul_batch_error(const uint8_t[:, ::1] states, const uint8_t[:, ::1] dice, Py_ssize_t i) except -1:
    """Raise the error of pair i (a bad state row or bad dice)."""
    cdef int code = gioul_row_problem(&states[i, 0])
    if 1 <= code <= 4:
        raise InvalidPositionError(f"Gioul state row {i} {list(states[i])}: {row_problem_text(&states[i, 0], code)}")
    if code:
        raise InvalidPositionError(f"Gioul state row {i} {_GIOUL_PROBLEMS[code]}: {list(states[i])}")
    raise InvalidDiceError(f"dice row {i} is {list(dice[i])}: values must be 1-6")


cdef int _check_gioul_shapes(const uint8_t[:, ::1] states, const uint8_t[:, ::1] dice) except -1:
    if states.shape[1] != GIOUL_WIDTH:
        raise InvalidPositionError(f"Gioul states must have shape (n, {GIOUL_WIDTH}), not "
                                   f"({states.shape[0]}, {states.shape[1]})")
    dice_shape_checked(dice, states.shape[0])
    return 0


cdef inline bint _bad_dice(const uint8_t[:, ::1] dice, Py_ssize_t i) noexcept nogil:
    return dice[i, 0] < 1 or dice[i, 0] > 6 or dice[i, 1] < 1 or dice[i, 1] > 6


def first_invalid_row(const uint8_t[:, ::1] states):
    """(index, message) of the first invalid row of an (n, 58) Gioul state array, or (-1, "");
    GIL released for the scan."""
    cdef int code
    cdef Py_ssize_t i = first_problem(states, GIOUL_WIDTH, gioul_row_problem, "Gioul state", &code)
    if i < 0:
        return (-1, "")
    if code <= 4:
        return (i, row_problem_text(&states[i, 0], code))
    return (i, _GIOUL_PROBLEMS[code])


def count_moves(const uint8_t[:, ::1] states, const uint8_t[:, ::1] dice, int32_t[::1] out_counts):
    """Legal moves of the next decision of each (state row, dice row) pair (the dice are
    ignored for a state with dice pending; 0 for a finished game), GIL released. Every row
    and dice pair is validated (InvalidPositionError / InvalidDiceError name the first bad one)."""
    cdef Py_ssize_t i, n = states.shape[0], bad = -1
    cdef GioulC s
    cdef ScratchC scratch
    _check_gioul_shapes(states, dice)
    out_counts_checked(out_counts, n)
    scratch_new(&scratch, 1)
    try:
        with nogil:
            for i in range(n):
                check_interrupt_every(i, 16384)
                if i == 0 or memcmp(&states[i, 0], &states[i - 1, 0], POSITION_WIDTH + 7) != 0:
                    if gioul_row_problem(&states[i, 0]):
                        bad = i
                        break
                    _load(&s, &states[i, 0])
                if _bad_dice(dice, i):
                    bad = i
                    break
                out_counts[i] = 0 if gioul_over(&s) else gioul_moves(&s, dice[i, 0], dice[i, 1], scratch.moves, scratch.ws)
    finally:
        scratch_free(&scratch)
    if bad >= 0:
        _gioul_batch_error(states, dice, bad)


cdef void gioul_store(const GioulC* s, uint8_t* row) noexcept nogil:
    position_store(&s.pos, row)
    row[POSITION_WIDTH] = s.rolls[0]
    row[POSITION_WIDTH + 1] = s.rolls[1]
    row[POSITION_WIDTH + 2] = s.roller
    row[POSITION_WIDTH + 3] = s.die
    row[POSITION_WIDTH + 4] = s.count
    row[POSITION_WIDTH + 5] = s.last
    row[POSITION_WIDTH + 6] = s.pair


def generate_batch(const uint8_t[:, ::1] states, const uint8_t[:, ::1] dice):
    """All legal moves of the next decision of each pair: (offsets int64[n+1], results
    uint8[m, 58] (the states after each move), steps uint8[m, 4, 2], nsteps uint8[m]); pair i
    owns rows offsets[i]:offsets[i+1]; none for a finished game. Validated like count_moves."""
    cdef Py_ssize_t i, n = states.shape[0], total = 0, cap
    cdef int k, j, count = 0
    cdef bint bad
    cdef GioulC s, child
    cdef ScratchC scratch
    cdef MoveC* buf
    _check_gioul_shapes(states, dice)
    cap = max(16, 8 * n)
    scratch_new(&scratch, 1)
    buf = scratch.moves
    offsets_arr = np.zeros(n + 1, dtype=np.int64)
    results_arr = np.zeros((cap, GIOUL_WIDTH), dtype=np.uint8)
    steps_arr = np.zeros((cap, MAX_STEPS, 2), dtype=np.uint8)
    nsteps_arr = np.zeros(cap, dtype=np.uint8)
    cdef int64_t[::1] offsets = offsets_arr
    cdef uint8_t[:, ::1] results = results_arr
    cdef uint8_t[:, :, ::1] steps = steps_arr
    cdef uint8_t[::1] nsteps = nsteps_arr
    try:
        for i in range(n):
            check_interrupt_every(i, 16384)
            with nogil:
                bad = _bad_dice(dice, i)
                if i == 0 or memcmp(&states[i, 0], &states[i - 1, 0], POSITION_WIDTH + 7) != 0:
                    bad = bad or gioul_row_problem(&states[i, 0]) != 0
                    if not bad:
                        _load(&s, &states[i, 0])
                if not bad:
                    count = 0 if gioul_over(&s) else gioul_moves(&s, dice[i, 0], dice[i, 1], buf, scratch.ws)
            if bad:
                _gioul_batch_error(states, dice, i)
            moves_checked(count)
            if total + count > cap:
                cap = max(2 * cap, total + count)
                results_arr = np.resize(results_arr, (cap, GIOUL_WIDTH))
                steps_arr = np.resize(steps_arr, (cap, MAX_STEPS, 2))
                nsteps_arr = np.resize(nsteps_arr, cap)
                results = results_arr
                steps = steps_arr
                nsteps = nsteps_arr
            with nogil:
                if count and not s.count:
                    child = s
                    gioul_begin_roll(&child, dice[i, 0], dice[i, 1])
                else:
                    child = s
                for k in range(count):
                    _apply_store(&child, &buf[k], &results[total + k, 0])
                    nsteps[total + k] = buf[k].nsteps
                    for j in range(MAX_STEPS):
                        steps[total + k, j, 0] = buf[k].steps[j][0] if j < buf[k].nsteps else 0
                        steps[total + k, j, 1] = buf[k].steps[j][1] if j < buf[k].nsteps else 0
                total += count
                offsets[i + 1] = total
    finally:
        scratch_free(&scratch)
    return offsets_arr, results_arr[:total].copy(), steps_arr[:total].copy(), nsteps_arr[:total].copy()


cdef void _apply_store(const GioulC* before, const MoveC* move, uint8_t* row) noexcept nogil:
    cdef GioulC after = before[0]
    gioul_apply(&after, move)
    gioul_store(&after, row)


# Scratch buffers for calls made with the GIL held (one call at a time).
cdef ScratchC _SCRATCH
scratch_new(&_SCRATCH, 1)


cdef class CoreGioul:
    """A Gioul game state (§11.5): board, roll counts, pending dice (see gioul.pxd)."""

    def __cinit__(self):
        memset(&self.c, 0, sizeof(GioulC))

    @classmethod
    def _from_fields(cls, row, rolls_white, rolls_black, roller, die, count, last, pair):
        """Constructor from the 51-byte board row (its turn byte is the side on turn) and the
        state fields of GioulC, as pickles carry them: the whole state is validated like a
        batch row (a finished game is allowed), so a crafted pickle cannot reach the core."""
        cdef CoreGioul p = cls.__new__(cls)
        cdef uint8_t state[POSITION_WIDTH + 7]
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
        if 1 <= code <= 4:
            raise InvalidPositionError(f"Gioul state {list(state[:GIOUL_WIDTH])}: {row_problem_text(state, code)}")
        if code and code != GIOUL_FINISHED:
            raise InvalidPositionError(f"Gioul state {_GIOUL_PROBLEMS[code]}: {list(state[:GIOUL_WIDTH])}")
        _load(&p.c, state)
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

    @property
    def turn(self):
        """The side that plays the pending decision, or rolls next: 0 = White, 1 = Black."""
        return self.c.pos.turn

    @property
    def zobrist(self):
        """64-bit key: the board's Zobrist key mixed with the roll counts and pending dice."""
        return gioul_key(&self.c)

    def counts(self, color):
        """25 counts in `color`'s own numbering; index 0 = borne off."""
        if isinstance(color, bool) or not (color == 0 or color == 1):
            from fevga_core.errors import InvalidArgumentError
            raise InvalidArgumentError(f"color {color!r} must be WHITE (0) or BLACK (1)")
        cdef const uint8_t* c = self.c.pos.side[color].counts
        return tuple([c[i] for i in range(NUM_SLOTS)])

    def _winner(self):
        """0 or 1 for a side that has borne off all 15 checkers, else -1."""
        return position_winner(&self.c.pos)

    def __hash__(self):
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
        cdef GioulMoves moves = GioulMoves.__new__(GioulMoves)  # made before the generator runs
        moves.move_cls = move_cls
        moves.state_cls = type(self)
        moves.before = self.c
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

    def _perft(self, int depth):
        """Leaves of the decision tree to `depth` (GIL released; answers Ctrl-C)."""
        cdef ScratchC scratch
        cdef long long total
        cdef GioulC root = self.c
        cdef GioulPerftC run
        scratch_new(&scratch, max(depth, 1))
        run.ws, run.calls = scratch.ws, 0
        try:
            with nogil:
                total = _perft(&root, depth, scratch.moves, &run)
        finally:
            scratch_free(&scratch)
        return total


cdef class GioulMoves(MoveList):
    """The legal moves of a Gioul state's next decision (fevga_core.movegen.MoveList)."""
    cdef GioulC before      # the state with the decision's dice pending
    cdef type state_cls

    cdef object _make(self, int k):
        cdef CoreGioul child = self.state_cls.__new__(self.state_cls)
        child.c = self.before
        gioul_apply(&child.c, &self.moves[k])
        return tuple.__new__(self.move_cls, (move_steps(&self.moves[k]), child))


# ---------------------------------------------------------------------------------------
# The Gioul net: the network of net.pyx over the Gioul encoding ("gioul-1", net.pyx). A type
# of its own, so the core refuses it where a Fevga net (CoreNet) is due, and the reverse.

cdef int _check_state_rows(const uint8_t[:, ::1] rows) except -1:
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
    _load(&s, row)
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
        _check_state_rows(rows)


def encode_state(const uint8_t[::1] row not None):
    """The dense float32 Gioul net input vector of one valid state row (documentation and tests)."""
    cdef EncodingC enc
    _check_state_rows(np.asarray(row).reshape(1, -1))
    _encode_row(&row[0], &enc)
    return encoding_dense(&enc, GIOUL_NET_INPUTS)


# ---------------------------------------------------------------------------------------
# Judgment entry points (fevga.analysis: evaluate and hint of Gioul states; fevga.search).

GIOUL_MAX_PLIES = 2     # evaluate_state's deepest; rank_moves searches one ply more


cdef int _gioul_evaluator(EvaluatorC* ev, CoreGioulNet net, Tables tables, int plies, int low, int high) except -1:
    if not low <= plies <= high:
        raise InvalidArgumentError(f"plies {plies} must be in {low}..{high}")
    ev.net = &net.c
    ev.qnet = NULL          # Gioul nets are evaluated in float (qnet holds Fevga's encoding)
    ev.tables = no_tables() if tables is None else &tables.c
    ev.flags = FLAG_GIOUL
    return 0


def evaluate_state(CoreGioulNet net not None, CoreGioul state not None, int plies, Tables tables=None):
    """(win, win_mars, lose_mars) of `state` for its side to decide at `plies` plies (0..2),
    with `tables` (Gioul bear-off tables) overriding the net in covered races: a roll due is
    search.ply_value(plies); a decision in hand is always searched, ply_value(plies + 1)
    (the best of rank_moves at plies + 1). GIL released; Ctrl-C stops it."""
    cdef EvaluatorC ev
    cdef GioulC s = state.c
    cdef ScratchC scratch
    cdef double out[3]
    cdef int depth
    _gioul_evaluator(&ev, net, tables, plies, 0, GIOUL_MAX_PLIES)
    depth = plies + 1 if s.count else plies
    scratch_new(&scratch, depth + 1)
    try:
        with nogil:
            ply_value(&ev, &s, depth, &scratch, 0, out)
    finally:
        scratch_free(&scratch)
    return (out[0], out[1], out[2])


def evaluate_states(CoreGioulNet net not None, const uint8_t[:, ::1] rows not None, double[:, ::1] out not None,
                    Tables tables=None):
    """evaluate_state at 0 plies of every Gioul state row (checked first) into out (n, 3): a
    roll due valued statically, a decision in hand searched at 1 ply. GIL released; Ctrl-C
    stops it."""
    cdef EvaluatorC ev
    cdef GioulC s
    cdef ScratchC scratch
    cdef Py_ssize_t i, n = rows.shape[0]
    _check_state_rows(rows)
    values_out_checked(out, n)
    _gioul_evaluator(&ev, net, tables, 0, 0, 0)
    scratch_new(&scratch, 2)
    try:
        with nogil:
            for i in range(n):
                check_interrupt_every(i, 256)
                _load(&s, &rows[i, 0])
                ply_value(&ev, &s, 1 if s.count else 0, &scratch, 0, &out[i, 0])
    finally:
        scratch_free(&scratch)


def roll_values(CoreGioulNet net not None, CoreGioul state not None, Tables tables=None):
    """(values of the 21 rolls, their mean over the 36) for the side to roll in `state` (a roll
    due, the game not over): each roll's equity for it once the roll is played out, every
    decision by the 1-ply choice of whoever decides (`tables` override the net in covered
    races). What the analysis measures a roll's luck by. GIL released; Ctrl-C stops it."""
    cdef EvaluatorC ev
    cdef GioulC s = state.c
    cdef RollLuckC c
    cdef ScratchC scratch
    cdef double values[NUM_ROLLS]
    cdef double mean
    _gioul_evaluator(&ev, net, tables, 1, 1, 1)
    c.ev = &ev
    c.state = &s
    if s.count or gioul_over(&s):
        raise InvalidArgumentError("roll_values: the state must have its roll due (no dice pending, game not over)")
    scratch_new(&scratch, 1)
    try:
        with nogil:
            luck_values(&s.pos, FLAG_GIOUL, &scratch, 0, _played_roll_value, &c, values, &mean)
    finally:
        scratch_free(&scratch)
    return [values[r] for r in range(NUM_ROLLS)], mean


def rank_moves(CoreGioulNet net not None, CoreGioul state not None, int d1, int d2, int plies, Tables tables=None):
    """Every legal move of the next decision of `state` (its pending decision, or the first of
    the roll d1-d2 when a roll is due), in the order of its legal moves, valued for the mover:
    (values (n, 3) float64, plies used (n,) int8). Every move gets its 1-ply value; with
    plies 2 ("net2") the candidates it keeps get their 2-ply value. The move best_move
    picks is the best of these. GIL released; Ctrl-C stops it."""
    cdef EvaluatorC ev
    cdef GioulC s = state.c
    cdef ScratchC scratch
    cdef double out[3]
    cdef int n
    cdef double[:, ::1] values
    cdef int8_t[::1] used
    _gioul_evaluator(&ev, net, tables, plies, 1, GIOUL_MAX_PLIES)
    if gioul_over(&s):
        raise InvalidArgumentError("rank_moves: the state is a finished game")
    if not s.count:
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise InvalidDiceError(f"dice ({d1}, {d2}): values must be 1-6")
        gioul_begin_roll(&s, d1, d2)
    scratch_new(&scratch, plies + 1)
    try:
        n = moves_checked(gioul_pending_moves(&s, scratch.moves, scratch.ws))
        values_array = np.zeros((n, 3), dtype=np.float64)
        used_array = np.ones(n, dtype=np.int8)
        values = values_array
        used = used_array
        with nogil:
            search.rank_moves(&ev, &s, scratch.moves, n, plies, &scratch, 0, out, &values[0, 0], &used[0])
        return values_array, used_array
    finally:
        scratch_free(&scratch)
