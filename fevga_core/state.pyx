# A game state of either game (state.pxd): Gioul's transitions (docs/rules.md §11.4-11.5),
# the rows of both games and the batch kernels over them, written once over StateC.
#
# One decision (§11.5) is a non-double pair, a block of four (or the rest of one) of a
# double or chain, or a single leftover die: its legal moves are those of the Fevga
# generator (movegen) under FLAG_GIOUL (no mother rule, no prime rules) for those dice:
# generate_moves for a pair, generate_block for n dice of one number.
#
# After a decision (gioul_apply) the state is settled, so that the player who holds the
# pending dice can always start them (§11.4): the holder of a finished block keeps the
# later blocks; dice a decision leaves unplayed pass to the opponent; dice the holder
# cannot start pass to the other player; when neither player can play the next die the
# rest is lost. With no dice left the opponent of the roller rolls next. The only
# decision that plays no die is therefore a fresh roll its roller cannot play (a pass).

from libc.string cimport memcmp, memset

import numpy as np

from fevga_core.errors import InvalidArgumentError, InvalidDiceError, InvalidPositionError

from fevga_core.types cimport (
    PositionC, MoveC, GioulC, StateC, uint8_t, int32_t, int64_t, uint64_t, NUM_SLOTS, NUM_CHECKERS, NUM_ROLLS,
    MAX_STEPS, MAX_MOVES, POSITION_WIDTH, GIOUL_WIDTH, FLAG_GIOUL,
)
from fevga_core.board cimport (
    position_key, position_start, mix64, position_load, position_store, row_problem, row_problem_text,
    fevga_flags_checked, dice_shape_checked, moves_checked, check_interrupt, check_interrupt_every, ROLL_D1, ROLL_D2,
)
from fevga_core.movegen cimport (
    WorkspaceC, ScratchC, scratch_new, scratch_free, generate_moves, generate_block, can_play_die, apply_move,
)


cdef inline void _clear_dice(GioulC* s) noexcept nogil:
    s.roller = 0
    s.die = 0
    s.count = 0
    s.last = 0
    s.pair = 0


cdef void gioul_initial(GioulC* s, int turn) noexcept nogil:
    """The start (board.position_start): no rolls made, no dice pending, `turn` to roll."""
    memset(s, 0, sizeof(GioulC))
    position_start(&s.pos, turn)


cdef uint64_t gioul_key(const GioulC* s) noexcept nogil:
    """The board's Zobrist key mixed with the roll counts and the pending dice."""
    cdef uint64_t extra = (s.rolls[0] | (s.rolls[1] << 2) | (s.roller << 4) | (s.die << 5)
                           | (s.count << 8) | (s.last << 11) | (s.pair << 14))
    return position_key(&s.pos) ^ mix64(extra + 0x6A09E667F3BCC909ULL)


cdef void gioul_begin_roll(GioulC* s, int d1, int d2) noexcept nogil:
    """The side on turn rolls (d1, d2): its roll count advances, the roll's dice are pending."""
    cdef int roller = s.pos.turn
    cdef bint chain = s.rolls[roller] >= 3          # this is its roll 4 or later
    if s.rolls[roller] < 3:
        s.rolls[roller] += 1
    s.roller = roller
    if d1 != d2:
        s.die = d1 if d1 > d2 else d2
        s.pair = d2 if d1 > d2 else d1
        s.count = 1
        s.last = s.die
    else:
        s.die = d1
        s.pair = 0
        s.count = 4
        s.last = 6 if chain else d1


cdef int gioul_pending_moves(const GioulC* s, MoveC* out, WorkspaceC* ws) noexcept nogil:
    """The legal moves of the pending decision (dice must be pending)."""
    if s.pair:
        return generate_moves(&s.pos, s.die, s.pair, FLAG_GIOUL, out, ws)
    return generate_block(&s.pos, s.die, s.count, FLAG_GIOUL, out, ws)


cdef int gioul_moves(const GioulC* s, int d1, int d2, MoveC* out, WorkspaceC* ws) noexcept nogil:
    """The legal moves of the next decision: the pending one, or the first of roll (d1, d2)."""
    cdef GioulC rolled
    if s.count:
        return gioul_pending_moves(s, out, ws)
    rolled = s[0]
    gioul_begin_roll(&rolled, d1, d2)
    return gioul_pending_moves(&rolled, out, ws)


cdef bint gioul_can_start(const GioulC* s, int color) noexcept nogil:
    """Can `color` play at least one die of the pending decision?"""
    if can_play_die(&s.pos, color, s.die, FLAG_GIOUL):
        return True
    return s.pair != 0 and can_play_die(&s.pos, color, s.pair, FLAG_GIOUL)


cdef void gioul_apply(GioulC* s, const MoveC* move) noexcept nogil:
    """Play `move` (one of gioul_pending_moves) and settle who holds what is left (§11.4)."""
    cdef int mover = s.pos.turn
    cdef int played = move.nsteps
    cdef bint completed
    if s.pair:
        completed = played == 2
        if played == 1:
            # §6 step 5: the larger die was played if it could be played on its own
            s.die = s.pair if can_play_die(&s.pos, mover, s.die, FLAG_GIOUL) else s.die
            s.last = s.die
            s.pair = 0
        elif played == 2:
            s.count = 0
    else:
        s.count -= played
        completed = s.count == 0
        if completed and s.die < s.last:
            s.die += 1
            s.count = 4
    apply_move(&s.pos, move)
    if gioul_over(s) or s.count == 0:
        s.pos.turn = 1 - s.roller
        _clear_dice(s)
        return
    if completed:
        s.pos.turn = mover
    else:
        s.pos.turn = 1 - mover
    if gioul_can_start(s, s.pos.turn):
        return
    s.pos.turn ^= 1
    if gioul_can_start(s, s.pos.turn):
        return
    s.pos.turn = 1 - s.roller   # neither player can play the next die: the rest is lost
    _clear_dice(s)


cdef long long perft(const StateC* s, int depth, PerftC* run, MoveC* moves) except -1 nogil:
    cdef long long total = 0
    cdef int r, k, n, rolls = NUM_ROLLS
    cdef StateC rolled, child
    cdef const StateC* parent = s     # the state the roll's moves are played from
    if depth == 0 or _over(s):
        return 1
    if StateC is GioulC:
        if s.count:
            rolls = 1       # a decision in hand: its dice are rolled already
    for r in range(rolls):
        run.calls += 1
        if run.calls % PERFT_SIGNAL_INTERVAL == 0:
            check_interrupt()
        if StateC is PositionC:
            n = moves_checked(generate_moves(s, ROLL_D1[r], ROLL_D2[r], run.flags, moves, run.ws))
        else:
            rolled = s[0]
            _decision(&rolled, ROLL_D1[r], ROLL_D2[r])
            parent = &rolled
            n = moves_checked(gioul_pending_moves(&rolled, moves, run.ws))
        if depth == 1:
            total += n
            continue
        for k in range(n):
            child = parent[0]
            state_apply(&child, &moves[k])
            total += perft(&child, depth - 1, run, moves + MAX_MOVES)
    return total


# ---------------------------------------------------------------------------------------
# Rows. A Fevga position row is board.pyx's (POSITION_WIDTH = 51 bytes). A Gioul state row
# (GIOUL_WIDTH = 58) is that board row (its turn byte = the side on turn), then rolls[0],
# rolls[1], roller, die, count, last, pair (the GioulC fields).

cdef void gioul_load(GioulC* s, const uint8_t* row) noexcept nogil:
    position_load(&s.pos, row)
    s.rolls[0] = row[POSITION_WIDTH]
    s.rolls[1] = row[POSITION_WIDTH + 1]
    s.roller = row[POSITION_WIDTH + 2]
    s.die = row[POSITION_WIDTH + 3]
    s.count = row[POSITION_WIDTH + 4]
    s.last = row[POSITION_WIDTH + 5]
    s.pair = row[POSITION_WIDTH + 6]


cdef void gioul_store(const GioulC* s, uint8_t* row) noexcept nogil:
    position_store(&s.pos, row)
    row[POSITION_WIDTH] = s.rolls[0]
    row[POSITION_WIDTH + 1] = s.rolls[1]
    row[POSITION_WIDTH + 2] = s.roller
    row[POSITION_WIDTH + 3] = s.die
    row[POSITION_WIDTH + 4] = s.count
    row[POSITION_WIDTH + 5] = s.last
    row[POSITION_WIDTH + 6] = s.pair


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
    gioul_load(&s, row)
    if not gioul_can_start(&s, s.pos.turn):
        return GIOUL_UNPLAYABLE
    return 0


cdef str gioul_row_text(const uint8_t* row, int code):
    return row_problem_text(row, code) if code <= 4 else _GIOUL_PROBLEMS[code]


# ---------------------------------------------------------------------------------------
# Batch entry points over NumPy arrays of either game's rows (FLAG_GIOUL in `flags`: Gioul
# state rows, else Fevga position rows under those rules). Shapes are checked once per call;
# each row is validated when it is loaded (a run of equal rows once: a position's 21 rolls)
# and each dice pair as it is read, so bad input raises instead of reaching the kernel.

cdef enum:
    BATCH_SIGNAL_ROWS = 1 << 14    # rows of a batch kernel between two Ctrl-C checks (~10 ms)


cdef inline Py_ssize_t _width(const StateC* s) noexcept nogil:
    if StateC is PositionC:
        return POSITION_WIDTH
    else:
        return GIOUL_WIDTH


cdef int _shapes_checked(const StateC* s, const uint8_t[:, ::1] rows, const uint8_t[:, ::1] dice) except -1:
    cdef str what = "positions" if StateC is PositionC else "Gioul states"
    if rows.shape[1] != _width(s):
        raise InvalidPositionError(f"{what} must have shape (n, {_width(s)}), not ({rows.shape[0]}, {rows.shape[1]})")
    dice_shape_checked(dice, rows.shape[0])
    return 0


cdef inline bint _pair_bad(StateC* s, const uint8_t[:, ::1] rows, const uint8_t[:, ::1] dice,
                           Py_ssize_t i) noexcept nogil:
    """Load pair i's row into `s` (unless it is the row before, already there); True when the
    row or the dice are not valid."""
    if i == 0 or memcmp(&rows[i, 0], &rows[i - 1, 0], _width(s)) != 0:
        if StateC is PositionC:
            if row_problem(&rows[i, 0]):
                return True
            position_load(s, &rows[i, 0])
        else:
            if gioul_row_problem(&rows[i, 0]):
                return True
            gioul_load(s, &rows[i, 0])
    return dice[i, 0] < 1 or dice[i, 0] > 6 or dice[i, 1] < 1 or dice[i, 1] > 6


cdef int _pair_error(const StateC* s, const uint8_t[:, ::1] rows, const uint8_t[:, ::1] dice, Py_ssize_t i) except -1:
    """Raise the error of pair i (a bad row or bad dice)."""
    cdef int code
    if StateC is PositionC:
        code = row_problem(&rows[i, 0])
        if code:
            raise InvalidPositionError(f"position row {i} {list(rows[i])}: {row_problem_text(&rows[i, 0], code)}")
    else:
        code = gioul_row_problem(&rows[i, 0])
        if code:
            raise InvalidPositionError(f"Gioul state row {i} {list(rows[i])}: {gioul_row_text(&rows[i, 0], code)}")
    raise InvalidDiceError(f"dice row {i} is {list(dice[i])}: values must be 1-6")


cdef inline int _decision(StateC* s, int d1, int d2) noexcept nogil:
    """Make `s` the state whose decision the pair's moves play (a Gioul roll due: rolled d1-d2)."""
    if StateC is GioulC:
        if not s.count:
            gioul_begin_roll(s, d1, d2)
    return 0


cdef inline bint _over(const StateC* s) noexcept nogil:
    return position_winner(state_board(s)) >= 0


cdef inline int _moves(const StateC* s, int d1, int d2, int flags, MoveC* out, WorkspaceC* ws) noexcept nogil:
    """The legal moves of the next decision of `s` with roll d1-d2 (0 for a finished game)."""
    if _over(s):
        return 0
    if StateC is PositionC:
        return generate_moves(s, d1, d2, flags, out, ws)
    else:
        return gioul_moves(s, d1, d2, out, ws)


cdef inline void _store(const StateC* s, uint8_t* row) noexcept nogil:
    if StateC is PositionC:
        position_store(s, row)
    else:
        gioul_store(s, row)


cdef int _game_checked(int flags) except -1:
    """1 for Gioul rows (flags FLAG_GIOUL), 0 for Fevga's (its rule flags, checked)."""
    if flags == FLAG_GIOUL:
        return 1
    fevga_flags_checked(flags)
    return 0


cdef int _count_moves(StateC* s, const uint8_t[:, ::1] rows, const uint8_t[:, ::1] dice, int flags,
                      int32_t[::1] out_counts) except -1:
    cdef Py_ssize_t i, n = rows.shape[0], bad = -1
    cdef ScratchC scratch
    _shapes_checked(s, rows, dice)
    if out_counts.shape[0] != n:
        raise InvalidArgumentError(f"out_counts must hold {n} values, not {out_counts.shape[0]}")
    scratch_new(&scratch, 1)
    try:
        with nogil:
            for i in range(n):
                check_interrupt_every(i, BATCH_SIGNAL_ROWS)
                if _pair_bad(s, rows, dice, i):
                    bad = i
                    break
                out_counts[i] = _moves(s, dice[i, 0], dice[i, 1], flags, scratch.moves, scratch.ws)
    finally:
        scratch_free(&scratch)
    if bad >= 0:
        _pair_error(s, rows, dice, bad)
    return 0


def count_moves(const uint8_t[:, ::1] rows, const uint8_t[:, ::1] dice, int flags, int32_t[::1] out_counts):
    """Number of distinct legal moves of the next decision of each (row, dice row) pair into
    out_counts (n), GIL released: Fevga position rows (n, 51) under rule `flags`, or with
    FLAG_GIOUL Gioul state rows (n, 58) (the dice are ignored for a state with dice pending).
    Every row and dice pair is validated (InvalidPositionError / InvalidDiceError name the
    first bad one). A finished game has 0."""
    cdef PositionC pos
    cdef GioulC s
    if _game_checked(flags):
        _count_moves(&s, rows, dice, flags, out_counts)
    else:
        _count_moves(&pos, rows, dice, flags, out_counts)


cdef class BatchHook:
    """What generate_batch calls after each pair's moves (state.pxd); this one does nothing."""

    cdef int moves_made(self, Py_ssize_t pair, const PositionC* pos, const GioulC* state, const MoveC* moves,
                        int count, Py_ssize_t first) except -1 nogil:
        return 0


cdef object _generate_batch(StateC* s, const uint8_t[:, ::1] rows, const uint8_t[:, ::1] dice, int flags,
                            BatchHook hook):
    cdef Py_ssize_t i, n = rows.shape[0], total = 0, cap
    cdef Py_ssize_t width = _width(s)
    cdef int k, j, count = 0
    cdef bint bad
    cdef StateC before, child
    cdef ScratchC scratch
    cdef MoveC* buf
    _shapes_checked(s, rows, dice)
    cap = max(16, 8 * n)
    scratch_new(&scratch, 1)
    buf = scratch.moves
    offsets_arr = np.zeros(n + 1, dtype=np.int64)
    results_arr = np.zeros((cap, width), dtype=np.uint8)
    steps_arr = np.zeros((cap, MAX_STEPS, 2), dtype=np.uint8)
    nsteps_arr = np.zeros(cap, dtype=np.uint8)
    cdef int64_t[::1] offsets = offsets_arr
    cdef uint8_t[:, ::1] results = results_arr
    cdef uint8_t[:, :, ::1] steps = steps_arr
    cdef uint8_t[::1] nsteps = nsteps_arr
    try:
        for i in range(n):
            check_interrupt_every(i, BATCH_SIGNAL_ROWS)
            with nogil:
                bad = _pair_bad(s, rows, dice, i)
                if not bad:
                    count = _moves(s, dice[i, 0], dice[i, 1], flags, buf, scratch.ws)
            if bad:
                _pair_error(s, rows, dice, i)
            moves_checked(count)
            if total + count > cap:
                cap = max(2 * cap, total + count)
                results_arr = np.resize(results_arr, (cap, width))
                steps_arr = np.resize(steps_arr, (cap, MAX_STEPS, 2))
                nsteps_arr = np.resize(nsteps_arr, cap)
                results = results_arr
                steps = steps_arr
                nsteps = nsteps_arr
            with nogil:
                before = s[0]
                if count:
                    _decision(&before, dice[i, 0], dice[i, 1])
                for k in range(count):
                    child = before
                    state_apply(&child, &buf[k])
                    _store(&child, &results[total + k, 0])
                    nsteps[total + k] = buf[k].nsteps
                    for j in range(MAX_STEPS):
                        steps[total + k, j, 0] = buf[k].steps[j][0] if j < buf[k].nsteps else 0
                        steps[total + k, j, 1] = buf[k].steps[j][1] if j < buf[k].nsteps else 0
                if hook is not None:
                    if StateC is PositionC:
                        hook.moves_made(i, &before, NULL, buf, count, total)
                    else:
                        hook.moves_made(i, &before.pos, &before, buf, count, total)
                total += count
                offsets[i + 1] = total
    finally:
        scratch_free(&scratch)
    return offsets_arr, results_arr[:total].copy(), steps_arr[:total].copy(), nsteps_arr[:total].copy()


def generate_batch(const uint8_t[:, ::1] rows, const uint8_t[:, ::1] dice, int flags, BatchHook hook=None):
    """All legal moves of the next decision of each (row, dice row) pair, rows as count_moves
    takes them: (offsets int64[n+1], results uint8[m, width] (the rows after each move),
    steps uint8[m, 4, 2], nsteps uint8[m]); pair i owns flat rows offsets[i]:offsets[i+1];
    none for a finished game. Validated like count_moves; `hook.moves_made` sees each pair's
    moves (with the Gioul state whose decision they play)."""
    cdef PositionC pos
    cdef GioulC s
    if _game_checked(flags):
        return _generate_batch(&s, rows, dice, flags, hook)
    return _generate_batch(&pos, rows, dice, flags, hook)
