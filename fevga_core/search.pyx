# Evaluation and move choice over the net, for both games (docs/net.md "Plies").
#
# Values are probabilities for the side to decide (win, win_mars, lose_mars); a draw (dead
# position) counts as half a win. Every function is written once over StateC (a Fevga
# PositionC or a Gioul GioulC, state.pxd), specialised at compile time. Plies, as gnubg and
# the policies count them:
#   ply_value(s, 0)     static_value: final result, exact race table (Gioul: when a roll is
#                       due and both sides' doubles are chains, what its tables assume), else
#                       the net
#   ply_value(s, p)     a roll due: the average over the 21 rolls of the mover's best result,
#                       the best chosen by best_move(p) (on a Gioul roll's first decision);
#                       a Gioul decision in hand: the value of best_move(p)'s move
#   best_move(1)      the move whose result has the best static value for the mover: the
#                       value for whoever decides next (the mover again for a Gioul chain's
#                       next block), flipped when that is the other side ("net" policy)
#   best_move(p)      the FILTER_TOP moves best at 1 ply within FILTER_MARGIN of the best
#                       are searched: the rest of a Gioul roll played by the 1-ply choice of
#                       whoever decides (finish_roll), then ply_value(p - 1) ("net2": p = 2);
#                       with ev.every_move, every move of the root decision (level 0) is
#                       searched so at 2 plies, and a deeper search (p >= 3) searches the
#                       FILTER_TOP best of those 2-ply values within FILTER_MARGIN at p plies
#                       (hint(..., every_move=True); Gioul's default)
# The average over the rolls is roll_expectation, the core's one 21-roll expectation loop
# (rollout.pyx's expectimax, the luck of both games and the lookahead policy run on it too,
# with their own values).

import numpy as np

from libc.stdint cimport int8_t, int32_t, int64_t
from libc.stdlib cimport realloc, free
from libc.string cimport memcpy

from fevga_core.types cimport PositionC, GioulC, StateC, MoveC, uint8_t, NUM_ROLLS, MAX_MOVES, FLAG_GIOUL
from fevga_core.board cimport (
    position_load, rows_checked, position_winner, position_points, fevga_flags_checked, check_interrupt,
    check_interrupt_every, moves_checked, ROLL_D1, ROLL_D2, ROLL_WEIGHT,
)
from fevga_core.movegen cimport scratch_new, scratch_free, generate_moves, position_is_dead
from fevga_core.state import generate_batch
from fevga_core.position cimport CorePosition, position_move_list
from fevga_core.state cimport (
    state_board, state_apply, gioul_begin_roll, gioul_pending_moves, gioul_apply, gioul_tables_apply, gioul_over,
    gioul_load, BatchHook,
)
from fevga_core.net cimport (
    NetModel, CoreNet, NET_MAX_HIDDEN, net_base, net_finish, net_evaluate, outputs_equity, net_checked,
)
from fevga_core.gioul cimport CoreGioul, CoreGioulNet, gioul_rows_checked, gioul_move_list
from fevga_core.qnet cimport QParentC, qnet_evaluate, qnet_parent, qnet_result, net_quantised
from fevga_core.race cimport Tables, race_value

from fevga_core.errors import InvalidArgumentError, InvalidDiceError, InvalidRulesError

PLIES_LIMIT = MAX_PLIES
FILTER_MARGIN = 0.16        # equity: gnubg's default move filter width
FILTER_KEEP = FILTER_TOP

cdef double MARGIN = FILTER_MARGIN


cdef bint exact_value(const EvaluatorC* ev, const StateC* s, double* out) noexcept nogil:
    cdef const PositionC* pos = state_board(s)
    cdef double equity
    cdef int winner
    cdef double mars
    winner = position_winner(pos)
    if winner >= 0:
        # After a game-ending move the loser is on roll; a finished position built by hand
        # may have either side on roll, so the winner is read from the board, never assumed.
        mars = 1.0 if position_points(pos, winner) == 2 else 0.0
        if winner == pos.turn:
            out[0], out[1], out[2] = 1.0, mars, 0.0
        else:
            out[0], out[1], out[2] = 0.0, 0.0, mars
        return True
    if StateC is GioulC:
        if not gioul_tables_apply(s):
            return False
    return race_value(ev.tables, pos, &equity, &out[0], &out[1], &out[2])


cdef bint static_value(const EvaluatorC* ev, const StateC* s, double* out) noexcept nogil:
    if exact_value(ev, s, out):
        return True
    _net_value(ev, s, out)
    return False


cdef inline void _net_value(const EvaluatorC* ev, const StateC* s, double* out) noexcept nogil:
    if ev.qnet != NULL:
        qnet_evaluate(ev.qnet, s, out)
    else:
        net_evaluate(ev.net, s, out)


# The results of one decision that leave the next decision to the opponent share that side
# (the mover moved only its own checkers): its half of the net's first layer (the float
# net's), or the accumulator of the quantised net's, is computed once, at the first result
# that needs the net.
ctypedef struct ResultsC:
    bint have_base
    float base[NET_MAX_HIDDEN]
    QParentC parent


cdef inline bint _same_mover(const StateC* before, const StateC* after) noexcept nogil:
    """Does the mover of `before` decide `after` too (a Gioul chain's next block)?"""
    if StateC is PositionC:
        return False
    else:
        return after.pos.turn == before.pos.turn


cdef inline double _for_mover(const StateC* before, const double* value, bint same, double* mine) noexcept nogil:
    """A value for the side to decide, as the mover of `before` sees it (`same`: the mover
    decides): into mine; returns its equity for the mover. (Gioul negates the other side's
    equity, Fevga recomputes it from the flipped value: each game's figures as pinned.)"""
    if same:
        mine[0], mine[1], mine[2] = value[0], value[1], value[2]
        return outputs_equity(value)
    flip(value, mine)
    if StateC is PositionC:
        return outputs_equity(mine)
    else:
        return -outputs_equity(value)


cdef double _result_value(const EvaluatorC* ev, const StateC* s, const MoveC* move, ResultsC* shared,
                          double* mine) noexcept nogil:
    """Static value, for the mover, of the state `move` leads to, into mine; returns its equity."""
    cdef double value[3]
    cdef StateC child = s[0]
    cdef bint same
    state_apply(&child, move)
    same = _same_mover(s, &child)
    if not exact_value(ev, &child, value):
        if same:
            _net_value(ev, &child, value)
        elif not _quantised_result(ev, s, move, &child, shared, value):
            if not shared.have_base:
                net_base(ev.net, &child, shared.base)
                shared.have_base = True
            net_finish(ev.net, &child, shared.base, value)
    return _for_mover(s, value, same, mine)


cdef inline bint _quantised_result(const EvaluatorC* ev, const StateC* s, const MoveC* move, const StateC* child,
                                   ResultsC* shared, double* value) noexcept nogil:
    """With a quantised net: a move's result from the parent's accumulator."""
    if ev.qnet == NULL:
        return False
    if not shared.have_base:
        qnet_parent(ev.qnet, s, &shared.parent)
        shared.have_base = True
    qnet_result(ev.qnet, &shared.parent, move, child, value)
    return True


cdef int filter_moves(const double* equities, int n, int* keep) noexcept nogil:
    cdef int k, i, count = 0
    cdef double best = -1e300
    for k in range(n):
        if equities[k] > best:
            best = equities[k]
    for k in range(n):
        if equities[k] < best - MARGIN:
            continue
        if count == FILTER_TOP and equities[k] <= equities[keep[count - 1]]:
            continue
        i = count if count < FILTER_TOP else FILTER_TOP - 1
        while i > 0 and equities[keep[i - 1]] < equities[k]:
            keep[i] = keep[i - 1]
            i -= 1
        keep[i] = k
        if count < FILTER_TOP:
            count += 1
    return count


cdef int best_move(const EvaluatorC* ev, const StateC* s, const MoveC* moves, int n, int plies,
                     ScratchC* scratch, int level, double* out) except -1 nogil:
    return rank_moves(ev, s, moves, n, plies, scratch, level, out, NULL, NULL)


cdef int rank_moves(const EvaluatorC* ev, const StateC* s, const MoveC* moves, int n, int plies,
                    ScratchC* scratch, int level, double* out, double* values, int8_t* used) except -1 nogil:
    cdef int k, best = 0, count
    cdef double value, best_value = -1e300
    cdef double mine[3]
    cdef double equities[MAX_MOVES]
    cdef int keep[FILTER_TOP]
    cdef ResultsC shared
    shared.have_base = False
    for k in range(n):
        value = _result_value(ev, s, &moves[k], &shared, mine)
        equities[k] = value
        if values != NULL:
            values[3 * k], values[3 * k + 1], values[3 * k + 2] = mine[0], mine[1], mine[2]
            used[k] = 1
        if value > best_value:
            best_value = value
            best = k
            out[0], out[1], out[2] = mine[0], mine[1], mine[2]
    if plies == 1:
        return best
    if StateC is PositionC:
        if n == 1 and values == NULL:
            return best     # Fevga's forced move keeps its 1-ply value (its pinned figures)
    # plies >= 2: the filtered candidates searched one ply less deep; with every move (the root
    # of an ev.every_move search) every move is searched at 2 plies first, and a deeper search
    # filters those 2-ply values instead of the 1-ply ones
    if level == 0 and ev.every_move:
        best = _search_moves(ev, s, moves, n, NULL, 2, scratch, level, out, values, used, equities)
        if plies == 2:
            return best
    count = filter_moves(equities, n, keep)
    return _search_moves(ev, s, moves, count, keep, plies, scratch, level, out, values, used, NULL)


cdef int _search_moves(const EvaluatorC* ev, const StateC* s, const MoveC* moves, int count, const int* keep,
                       int plies, ScratchC* scratch, int level, double* out, double* values, int8_t* used,
                       double* equities) except -1 nogil:
    """rank_moves' deeper stage: moves keep[0..count) (keep NULL: the first count) searched at
    `plies` (the rest of a Gioul roll by finish_roll, then ply_value(plies - 1)); each value
    into values/used (not NULL) and its equity into equities (not NULL); out = the best's
    value; returns its index."""
    cdef int j, k, best = 0
    cdef double value, best_value = -1e300
    cdef double mine[3]
    cdef double theirs[3]
    cdef StateC child
    for j in range(count):
        k = j if keep == NULL else keep[j]
        child = s[0]
        state_apply(&child, &moves[k])
        finish_roll(ev, &child, scratch, level + 1)
        ply_value(ev, &child, plies - 1, scratch, level + 1, theirs)
        value = _for_mover(s, theirs, _same_mover(s, &child), mine)
        if equities != NULL:
            equities[k] = value
        if values != NULL:
            values[3 * k], values[3 * k + 1], values[3 * k + 2] = mine[0], mine[1], mine[2]
            used[k] = plies
        if value > best_value:
            best_value = value
            best = k
            out[0], out[1], out[2] = mine[0], mine[1], mine[2]
    return best


cdef int finish_roll(const EvaluatorC* ev, StateC* s, ScratchC* scratch, int level) except -1 nogil:
    cdef MoveC* moves
    cdef double unused[3]
    cdef int n, k
    if StateC is GioulC:
        moves = scratch.moves + <Py_ssize_t> level * MAX_MOVES
        while s.count:
            n = moves_checked(gioul_pending_moves(s, moves, scratch.ws))
            k = best_move(ev, s, moves, n, 1, scratch, level, unused) if n > 1 else 0
            gioul_apply(s, &moves[k])
    return 0


cdef int roll_expectation(const PositionC* pos, int flags, bint dead_is_draw, ScratchC* scratch, int level,
                          int width, RollValueFn roll_value, const void* ctx, double* out) except -1 nogil:
    cdef int r, i, n, dead = -1 if dead_is_draw else 0
    cdef bint larger_first = flags & FLAG_GIOUL     # Gioul plays a pair larger die first
    cdef MoveC* moves = scratch.moves + <Py_ssize_t> level * MAX_MOVES
    cdef double value[3]
    for i in range(width):
        out[i] = 0.0
    for r in range(NUM_ROLLS):
        scratch.calls += 1
        if scratch.calls % SIGNAL_INTERVAL == 0:
            check_interrupt()
        if larger_first:
            n = generate_moves(pos, ROLL_D2[r], ROLL_D1[r], flags, moves, scratch.ws)
        else:
            n = generate_moves(pos, ROLL_D1[r], ROLL_D2[r], flags, moves, scratch.ws)
        moves_checked(n)
        if dead and n == 1 and moves[0].nsteps == 0:
            if dead < 0:
                dead = position_is_dead(pos, flags)
            if dead:
                return 1
        roll_value(ctx, pos, r, moves, n, scratch, level, value)
        for i in range(width):
            out[i] += ROLL_WEIGHT[r] * value[i]
    return 0


# What luck_values passes roll_expectation: the caller's roll value and where each goes.
ctypedef struct KeptRollsC:
    RollValueFn roll_value
    const void* ctx
    double* values


cdef int _kept_roll_value(const void* ctx, const PositionC* pos, int roll, const MoveC* moves, int n,
                          ScratchC* scratch, int level, double* value) except -1 nogil:
    cdef const KeptRollsC* c = <const KeptRollsC*> ctx
    c.roll_value(c.ctx, pos, roll, moves, n, scratch, level, value)
    c.values[roll] = value[0]
    return 0


cdef int luck_values(const PositionC* pos, int flags, ScratchC* scratch, int level, RollValueFn roll_value,
                     const void* ctx, double* values, double* mean) except -1 nogil:
    cdef KeptRollsC c
    c.roll_value = roll_value
    c.ctx = ctx
    c.values = values
    roll_expectation(pos, flags, False, scratch, level, 1, _kept_roll_value, &c, mean)
    return 0


# What ply_value passes roll_expectation: the state whose roll is due; the mover's best result
# of a roll is the move best_move picks at `plies` plies (a Gioul roll: on its first decision).
ctypedef struct PlyC:
    const EvaluatorC* ev
    const void* state
    int plies


cdef int _fevga_roll_value(const void* ctx, const PositionC* pos, int roll, const MoveC* moves, int n,
                           ScratchC* scratch, int level, double* value) except -1 nogil:
    cdef const PlyC* ply = <const PlyC*> ctx
    best_move(ply.ev, pos, moves, n, ply.plies, scratch, level, value)
    return 0


cdef int _gioul_roll_value(const void* ctx, const PositionC* pos, int roll, const MoveC* moves, int n,
                           ScratchC* scratch, int level, double* value) except -1 nogil:
    cdef const PlyC* ply = <const PlyC*> ctx
    cdef GioulC rolled = (<const GioulC*> ply.state)[0]
    gioul_begin_roll(&rolled, ROLL_D1[roll], ROLL_D2[roll])
    best_move(ply.ev, &rolled, moves, n, ply.plies, scratch, level, value)
    return 0


cdef int ply_value(const EvaluatorC* ev, const StateC* s, int plies, ScratchC* scratch,
                   int level, double* out) except -1 nogil:
    cdef PlyC ply
    cdef RollValueFn roll_value = _fevga_roll_value
    cdef MoveC* moves
    if exact_value(ev, s, out):
        return 0
    if plies == 0:
        _net_value(ev, s, out)
        return 0
    if StateC is GioulC:
        roll_value = _gioul_roll_value
        if s.count:     # a decision in hand: the value of the move chosen at `plies`
            moves = scratch.moves + <Py_ssize_t> level * MAX_MOVES
            best_move(ev, s, moves, moves_checked(gioul_pending_moves(s, moves, scratch.ws)), plies,
                        scratch, level, out)
            return 0
    ply.ev = ev
    ply.state = s
    ply.plies = plies
    if roll_expectation(state_board(s), ev.flags, True, scratch, level, 3, roll_value, &ply, out):
        out[0], out[1], out[2] = 0.5, 0.0, 0.0     # dead: a draw counts as half a win
    return 0


# ---------------------------------------------------------------------------------------
# Python entry points: each checks its arguments (rows, dice, plies, flags) in O(1) per row.

GIOUL_MAX_PLIES = 2     # a Gioul state's deepest evaluate_position; a move choice searches one ply more


cdef int _evaluator(EvaluatorC* ev, NetModel net, Tables tables, int flags) except -1:
    """The evaluator of a call. FLAG_GIOUL: a Gioul net (CoreGioulNet) over Gioul states;
    Fevga's rule flags (checked): a Fevga net (CoreNet). A quantised net is evaluated in its tables."""
    if flags == FLAG_GIOUL:
        if not isinstance(net, CoreGioulNet):
            raise TypeError(f"a Gioul state is judged by a Gioul net (CoreGioulNet), not {type(net).__name__}")
    else:
        fevga_flags_checked(flags)
        if not isinstance(net, CoreNet):
            raise TypeError(f"a Fevga position is judged by a Fevga net (CoreNet), not {type(net).__name__}")
    ev.qnet = net_quantised(net)
    net_checked(net)
    ev.net = &net.c
    ev.tables = &tables.c
    ev.flags = flags
    ev.every_move = False
    return 0


cdef bint _is_gioul(object position, int flags) except -1:
    """Which game `position` is of: True for a Gioul state (a CoreGioul, flags FLAG_GIOUL),
    False for a Fevga position (a CorePosition, Fevga's flags)."""
    if isinstance(position, CoreGioul):
        if flags != FLAG_GIOUL:
            raise InvalidRulesError(f"flags {flags}: a Gioul state is judged under FLAG_GIOUL ({FLAG_GIOUL}) alone")
        return True
    if not isinstance(position, CorePosition):
        raise TypeError(f"position must be a CorePosition or a CoreGioul, not {type(position).__name__}")
    if flags & FLAG_GIOUL:
        raise InvalidRulesError(f"flags {flags}: FLAG_GIOUL is for Gioul states, not a Fevga position")
    return False


cdef int _deepest(bint gioul, bint choice) except -1:
    """The deepest plies of an evaluation (choice False) or a move choice (True, one more) of
    a Gioul state or a Fevga position."""
    return (GIOUL_MAX_PLIES if gioul else MAX_PLIES) + choice


cdef int _check_plies(int plies, int low, int high) except -1:
    if not low <= plies <= high:
        raise InvalidArgumentError(f"plies {plies} must be in {low}..{high}")
    return 0


cdef int _check_dice(int d1, int d2) except -1:
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise InvalidDiceError(f"dice ({d1}, {d2}): values must be 1-6")
    return 0


def evaluate_position(NetModel net not None, Tables tables not None, position not None, int plies, int flags):
    """(win, win_mars, lose_mars) of `position` for its side to decide at `plies` plies: a
    Fevga position (CorePosition, a CoreNet) at 0..PLIES_LIMIT, or a Gioul state (CoreGioul,
    a CoreGioulNet, flags FLAG_GIOUL) at 0..GIOUL_MAX_PLIES, a decision in hand always
    searched (ply_value(plies + 1): the best of rank_position at plies + 1). GIL released;
    Ctrl-C stops it."""
    cdef EvaluatorC ev
    cdef PositionC pos
    cdef GioulC s
    cdef ScratchC scratch
    cdef double out[3]
    cdef int depth = plies
    cdef bint gioul = _is_gioul(position, flags)
    _check_plies(plies, 0, _deepest(gioul, False))
    _evaluator(&ev, net, tables, flags)
    if gioul:
        s = (<CoreGioul> position).c
        depth = plies + 1 if s.count else plies
    else:
        pos = (<CorePosition> position).c
    scratch_new(&scratch, depth + 1)       # one move list per level of the search
    try:
        with nogil:
            if gioul:
                ply_value(&ev, &s, depth, &scratch, 0, out)
            else:
                ply_value(&ev, &pos, depth, &scratch, 0, out)
    finally:
        scratch_free(&scratch)
    return (out[0], out[1], out[2])


cdef int _apart_checked(rows, out) except -1:
    """InvalidArgumentError if an output array shares memory with the rows: the rows are checked
    before the loop and trusted in it, so writing the outputs must not change them."""
    if np.may_share_memory(np.asarray(rows), np.asarray(out)):
        raise InvalidArgumentError("out must not share memory with rows")
    return 0


def evaluate_rows(NetModel net not None, Tables tables not None, const uint8_t[:, ::1] rows not None,
                  double[:, ::1] out not None, int flags=0):
    """The 0-ply value of every row for its side to decide into out (n, 3), every row checked
    first, GIL released: Fevga position rows (n, 51) by static_value, or with FLAG_GIOUL (and
    a Gioul net) Gioul state rows (n, 58) as evaluate_position values them at 0 plies (a
    decision in hand searched at 1 ply). Ctrl-C stops it."""
    cdef EvaluatorC ev
    cdef PositionC pos
    cdef GioulC s
    cdef ScratchC scratch
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef bint gioul = flags == FLAG_GIOUL
    if gioul:
        gioul_rows_checked(rows)
    else:
        rows_checked(rows)
    if out.shape[0] != n or out.shape[1] != 3:
        raise InvalidArgumentError(f"out of shape {tuple(out.shape)[:2]} must be ({n}, 3)")
    _apart_checked(rows, out)
    _evaluator(&ev, net, tables, flags)
    scratch_new(&scratch, 2)
    try:
        with nogil:
            for i in range(n):
                if gioul:
                    check_interrupt_every(i, 256)
                    gioul_load(&s, &rows[i, 0])
                    ply_value(&ev, &s, 1 if s.count else 0, &scratch, 0, &out[i, 0])
                else:
                    check_interrupt_every(i, 65536)
                    position_load(&pos, &rows[i, 0])
                    static_value(&ev, &pos, &out[i, 0])
    finally:
        scratch_free(&scratch)


# The luck of a Gioul roll (roll_values): the state whose roll is due.
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


def roll_values(CoreGioulNet net not None, Tables tables not None, CoreGioul position not None):
    """(values of the 21 rolls, their mean over the 36) for the side to roll in a Gioul state
    (a roll due, the game not over): each roll's equity for it once the roll is played out,
    every decision by the 1-ply choice of whoever decides (`tables` override the net in
    covered races). What the analysis measures a Gioul roll's luck by. GIL released; Ctrl-C
    stops it."""
    cdef EvaluatorC ev
    cdef GioulC s = position.c
    cdef RollLuckC c
    cdef ScratchC scratch
    cdef double values[NUM_ROLLS]
    cdef double mean
    if s.count or gioul_over(&s):
        raise InvalidArgumentError("roll_values: the state must have its roll due (no dice pending, game not over)")
    _evaluator(&ev, net, tables, FLAG_GIOUL)
    c.ev = &ev
    c.state = &s
    scratch_new(&scratch, 1)
    try:
        with nogil:
            luck_values(&s.pos, FLAG_GIOUL, &scratch, 0, _played_roll_value, &c, values, &mean)
    finally:
        scratch_free(&scratch)
    return [values[r] for r in range(NUM_ROLLS)], mean


def choose_rows(CoreNet net not None, Tables tables not None, const uint8_t[:, ::1] rows not None,
                const uint8_t[:, ::1] dice not None, int plies, int flags, int32_t[::1] out not None):
    """For each (valid, trusted) row and roll: the index of the move `plies`-ply search picks
    (the "net" / "net2" policies), GIL released; returns the number of legal moves seen."""
    cdef EvaluatorC ev
    cdef PositionC pos
    cdef ScratchC scratch
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef int64_t moves = 0
    cdef int count
    cdef double value[3]
    rows_checked(rows)
    if dice.shape[0] != n or dice.shape[1] != 2 or out.shape[0] != n:
        raise InvalidArgumentError(f"dice (n, 2) and out (n,) must match {n} rows")
    _apart_checked(rows, out)
    _apart_checked(dice, out)
    if n and not np.all((np.asarray(dice) >= 1) & (np.asarray(dice) <= 6)):
        raise InvalidDiceError("dice values must be 1-6")
    _check_plies(plies, 1, MAX_PLIES + 1)
    _evaluator(&ev, net, tables, flags)
    scratch_new(&scratch, plies + 1)
    try:
        with nogil:
            for i in range(n):
                check_interrupt_every(i, 1024)
                position_load(&pos, &rows[i, 0])
                count = moves_checked(generate_moves(&pos, dice[i, 0], dice[i, 1], flags, scratch.moves, scratch.ws))
                moves += count
                out[i] = best_move(&ev, &pos, scratch.moves, count, plies, &scratch, 0, value)
    finally:
        scratch_free(&scratch)
    return moves


def rank_position(NetModel net not None, Tables tables not None, position not None, int d1, int d2, int plies,
                  int flags, type move_cls not None, bint every_move=False):
    """Every legal move of the next decision of `position` (a CorePosition with roll d1-d2, or
    a CoreGioul: its pending decision, or the first of roll d1-d2), generated once: (its
    legal-move sequence of `move_cls` values, as the position's _legal_moves gives it, values
    (n, 3) float64 for the mover, plies used per move (n,) int8), in the generator's order,
    ranked by rank_moves (nets and flags as evaluate_position takes them; `every_move`: every
    move searched at 2 plies, not only the move filter's, then at `plies` >= 3 the filter of
    those 2-ply values searched at `plies`). GIL released; Ctrl-C stops it."""
    cdef EvaluatorC ev
    cdef ScratchC scratch
    cdef GioulC s
    cdef int n
    cdef double unused[3]
    cdef double[:, ::1] values
    cdef int8_t[::1] used
    cdef bint gioul = _is_gioul(position, flags)
    _check_plies(plies, 1, _deepest(gioul, True))
    _evaluator(&ev, net, tables, flags)
    ev.every_move = every_move
    if gioul:
        s = (<CoreGioul> position).c
        if gioul_over(&s):
            raise InvalidArgumentError("a finished game has no moves to rank")
        if not s.count:
            _check_dice(d1, d2)
            gioul_begin_roll(&s, d1, d2)
    else:
        _check_dice(d1, d2)
        if position_winner(&(<CorePosition> position).c) >= 0:
            raise InvalidArgumentError("a finished game has no moves to rank")
    scratch_new(&scratch, plies + 1)       # the decision's moves, then one list per deeper level
    try:
        if gioul:
            n = moves_checked(gioul_pending_moves(&s, scratch.moves, scratch.ws))
        else:
            n = moves_checked(generate_moves(&(<CorePosition> position).c, d1, d2, flags, scratch.moves, scratch.ws))
        values_array = np.empty((n, 3), dtype=np.float64)
        used_array = np.empty(n, dtype=np.int8)
        values = values_array
        used = used_array
        with nogil:
            if gioul:
                rank_moves(&ev, &s, scratch.moves, n, plies, &scratch, 0, unused, &values[0, 0], &used[0])
            else:
                rank_moves(&ev, &(<CorePosition> position).c, scratch.moves, n, plies, &scratch, 0, unused,
                           &values[0, 0], &used[0])
        if gioul:
            moves = gioul_move_list(<CoreGioul> position, &s, scratch.moves, n, move_cls)
        else:
            moves = position_move_list(<CorePosition> position, scratch.moves, n, move_cls)
        return moves, values_array, used_array
    finally:
        scratch_free(&scratch)


cdef class _Ranker(BatchHook):
    """rank_batch's hook: values each pair's moves as they come (rank_moves), into C arrays
    grown with them; its own scratch serves the deeper levels."""
    cdef EvaluatorC ev
    cdef ScratchC scratch
    cdef int plies
    cdef double* values
    cdef int8_t* used
    cdef Py_ssize_t cap

    def __cinit__(self):
        self.ev.net = NULL
        self.values = NULL
        self.used = NULL
        self.cap = 0
        self.scratch.ws = NULL
        self.scratch.moves = NULL

    def __dealloc__(self):
        scratch_free(&self.scratch)
        free(self.values)
        free(self.used)

    cdef int moves_made(self, Py_ssize_t pair, const PositionC* pos, const GioulC* state, const MoveC* moves,
                        int count, Py_ssize_t first) except -1 nogil:
        cdef Py_ssize_t cap
        cdef void* grown
        cdef double unused[3]
        if self.ev.net == NULL:
            with gil:
                raise InvalidArgumentError("a _Ranker ranks only inside search.rank_batch (it holds no evaluator)")
        if pair % 64 == 63:
            check_interrupt()
        if first + count > self.cap:
            cap = max(2 * self.cap, first + count)
            grown = realloc(self.values, cap * 3 * sizeof(double))
            if grown == NULL:
                with gil:
                    raise MemoryError("no memory for the ranked moves' values")
            self.values = <double*> grown
            grown = realloc(self.used, cap * sizeof(int8_t))
            if grown == NULL:
                with gil:
                    raise MemoryError("no memory for the ranked moves' plies")
            self.used = <int8_t*> grown
            self.cap = cap
        if state != NULL:
            rank_moves(&self.ev, state, moves, count, self.plies, &self.scratch, 0, unused, self.values + 3 * first,
                       self.used + first)
        else:
            rank_moves(&self.ev, pos, moves, count, self.plies, &self.scratch, 0, unused, self.values + 3 * first,
                       self.used + first)
        return 0


def rank_batch(NetModel net not None, Tables tables not None, const uint8_t[:, ::1] rows not None,
               const uint8_t[:, ::1] dice not None, int plies, int flags, bint every_move=False):
    """Every legal move of the next decision of each (row, dice) pair ranked by rank_moves, the
    moves generated once: (offsets, results, steps, nsteps) as state.generate_batch gives
    them, values (m, 3) float64 for the mover and plies used (m,) int8, in the generator's
    order. Fevga position rows under rule `flags` with a Fevga net, or with FLAG_GIOUL Gioul
    state rows with a Gioul net (plies 1..GIOUL_MAX_PLIES + 1, as rank_position; `every_move`
    as rank_position takes it). Rows and dice are validated as generate_batch validates them;
    a finished row has no moves."""
    cdef _Ranker ranker = _Ranker()
    cdef Py_ssize_t m
    cdef double[:, ::1] values
    cdef int8_t[::1] used
    _check_plies(plies, 1, _deepest(flags == FLAG_GIOUL, True))
    _evaluator(&ranker.ev, net, tables, flags)
    ranker.ev.every_move = every_move
    ranker.plies = plies
    scratch_new(&ranker.scratch, plies + 1)     # list 0 unused: generate_batch generates into its own
    offsets, results, steps, nsteps = generate_batch(rows, dice, flags, ranker)
    m = results.shape[0]
    values_array = np.empty((m, 3), dtype=np.float64)
    used_array = np.empty(m, dtype=np.int8)
    if m:
        values = values_array
        used = used_array
        memcpy(&values[0, 0], ranker.values, m * 3 * sizeof(double))
        memcpy(&used[0], ranker.used, m * sizeof(int8_t))
    return offsets, results, steps, nsteps, values_array, used_array
