# Rollouts and exhaustive search over the core's move generator (definitions: docs/rollout.md).
#
# A job is a list of K start positions (one for a position rollout, one per legal move for a
# move ranking) played from the point of view of one colour (the root side). Game i of the
# job uses the dice stream rng_seed(game_seed(master, i)) for every start position (common
# random numbers), and with stratification its first two rolls are fixed: with
#   q = i div 1296 (the rotation), r = i mod 1296, h = r mod 36, j = r div 36,
#   first roll = h,  second roll = perm[q][h][j]
# (roll index = (d1 - 1) * 6 + (d2 - 1); perm[q][h] a permutation of the 36 rolls drawn from
# the master seed), so every rotation of 1,296 games plays every pair of opening rolls exactly
# once, any 36 consecutive games every first roll once, and the second rolls of a partial
# rotation are a uniform sample without replacement (no bias whatever the game count).
#
# run_block() adds the games of one block into caller-owned sums in game-index order; the
# Python side splits a job into fixed blocks and adds block sums in block order, so results
# do not depend on how many workers (threads, processes or Dask workers) played the blocks.
#
# One block machinery serves both games; the job's rule flags name the game. A Gioul job
# (FLAG_GIOUL, docs/rollout.md "Gioul") starts from K Gioul states (58-byte rows, gioul.pyx)
# and differs only in its hooks (section "Gioul" below): its playout step, its evaluator and
# its luck. Its game i draws every die and every random policy choice from the same stream,
# and the stratified schedule fixes its first two RANDOM rolls: a start state waiting for a
# roll makes its first random roll at once, a state with dice pending once the pending dice
# are played (or lost). The output fields mean, for Gioul:
#   plies        = random rolls made in the game (a chain with its hand-overs is one roll)
#   first roll   = the game's first random roll (the stratum's for a game that makes none)
#   luck         = sum over the random rolls of (value after the roll's decisions) minus the
#                  mean of that value over the 36 rolls, from the root side's view; every
#                  roll's decisions (blocks, hand-overs) are played by the heuristic policy
#                  and the value is gioul_value (_roll_values)
#   truncated    = stopped at a covered no-contact race, scored from the (Gioul) tables

from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t
from libc.math cimport tanh
from cpython.ref cimport PyObject

from fevga_core.types cimport (
    PositionC, GioulC, MoveC, SideC, uint8_t, uint16_t, uint32_t, uint64_t, int32_t, int64_t, COLOR_WHITE,
    NUM_CHECKERS, NUM_ROLLS, MAX_MOVES, POSITION_WIDTH, GIOUL_WIDTH, FLAG_OPENING_DICE, FLAG_GIOUL,
)
from fevga_core.board cimport (
    position_load, position_load_checked, position_store, position_winner, position_points, fevga_flags_checked,
    check_interrupt_every, moves_checked,
    ROLL_D1, ROLL_D2, ROLL_WEIGHT,
)
from fevga_core.movegen cimport (
    WorkspaceC, ScratchC, scratch_new, scratch_free, generate_moves, apply_move, position_is_dead,
)
from fevga_core.game cimport (
    RngC, rng_seed, rng_below, game_seed, roll_dice, heuristic_eval, choose_move, opening_draw,
    POLICY_RANDOM, POLICY_HEURISTIC, POLICY_CALLBACK, POLICY_BEAROFF, POLICY_LOOKAHEAD,
    POLICY_NET, POLICY_NET2,
)
from fevga_core.net cimport NetModel, CoreNet, NetC, net_evaluate, outputs_equity, net_checked
from fevga_core.search cimport EvaluatorC, best_move, roll_expectation, luck_values
from fevga_core.qnet cimport QNetC, qnet_evaluate, net_quantised
from fevga_core.bearoff cimport one_sided_mean, two_sided_equity
from fevga_core.race cimport TablesC, Tables, no_contact, race_value, side_covered, side_rank
from fevga_core.gioul cimport CoreGioul, CoreGioulNet
from fevga_core.state cimport (
    gioul_initial, gioul_begin_roll, gioul_pending_moves, gioul_apply, gioul_over, gioul_tables_apply, gioul_load,
)

import numpy as np

from fevga_core.errors import InvalidArgumentError, InvalidPositionError, NetGameError
from fevga_core.gioul import first_invalid_row

# Fields of the per-target sums row (fevga.rollout mirrors these).
# "match" is the game's value for the job's match score (weights over its outcome
# probabilities, see run_block), or its equity when the job has no score; moves are compared
# (the cross sums) by it.
SUM_FIELDS = ("games", "equity", "equity_sq", "win", "win_mars", "lose_mars", "draw",
              "luck", "luck_sq", "equity_luck", "truncated", "plies", "match", "match_sq", "match_luck")
MATCH_WEIGHTS = NUM_MATCH_WEIGHTS  # constant, win, win_mars, lose_mars, draw
STRATA = NUM_STRATA
MAX_LENGTH = LENGTH_BINS
MAX_EXPECTIMAX_DEPTH = 6     # depth 3 from a mid-game position already takes minutes
KNOWN_POLICIES = (POLICY_RANDOM, POLICY_HEURISTIC, POLICY_CALLBACK, POLICY_BEAROFF, POLICY_LOOKAHEAD, POLICY_NET,
                  POLICY_NET2)
GIOUL_POLICIES = (POLICY_RANDOM, POLICY_HEURISTIC, POLICY_NET, POLICY_NET2)   # what a Gioul job plays


# ---------------------------------------------------------------------------------------
# Argument checks of the Python entry points (O(1) per call, or O(rows) for the start rows).

cdef int _check_color(int color) except -1:
    if color != 0 and color != 1:
        raise InvalidArgumentError(f"color {color} must be WHITE (0) or BLACK (1)")
    return 0


cdef int _check_policy(int policy, object callback, tuple known=KNOWN_POLICIES) except -1:
    if policy not in known:
        raise InvalidArgumentError(f"policy id {policy} must be one of {known}")
    if policy == POLICY_CALLBACK and callback is None:
        raise InvalidArgumentError("a callback policy needs a callback")
    return 0


cdef int _row_width(int flags) except -1:
    """The start-row width of the game the rule `flags` name (checked): a Gioul state row for
    FLAG_GIOUL alone, else a Fevga position row."""
    if flags == FLAG_GIOUL:
        return GIOUL_WIDTH
    fevga_flags_checked(flags)
    return POSITION_WIDTH


cdef int _starts_checked(GioulC* starts, bytes rows, int width) except -1:
    """Fill starts[] from K rows of `width` (_row_width), or raise InvalidPositionError naming
    the first bad row: Fevga rows load the board alone (position_load_checked); Gioul rows the
    whole state, checked by gioul.first_invalid_row (the board, then the roll counts and
    pending dice exactly as fevga.gioul.GioulPosition.from_counts accepts them)."""
    cdef int k, targets = len(rows) // width
    cdef const uint8_t* raw = rows
    if width == POSITION_WIDTH:
        for k in range(targets):
            position_load_checked(&starts[k].pos, rows[k * width:(k + 1) * width])
        return 0
    bad, problem = first_invalid_row(np.frombuffer(rows, dtype=np.uint8).reshape(targets, width))
    if bad >= 0:
        raise InvalidPositionError(f"Gioul row {bad}: {problem}")
    for k in range(targets):
        gioul_load(&starts[k], raw + k * width)
    return 0


cdef int _check_shape(str name, object array, tuple shape) except -1:
    if tuple(array.shape[:len(shape)]) != shape:
        raise InvalidArgumentError(f"{name} must have shape {shape}, not {tuple(array.shape[:len(shape)])}")
    return 0

cdef int _check_block_args(int targets, int64_t first_index, int64_t games, object sums, object first,
                          object cross, object lengths, object stop, object match_weights) except -1:
    """The game range, the shapes of the arrays a block of `targets` start positions adds into,
    and the match weights (None, or MATCH_WEIGHTS numbers)."""
    if first_index < 0 or games < 0:
        raise InvalidArgumentError(f"first_index {first_index} and games {games} must be >= 0")
    _check_shape("sums", sums, (targets, len(SUM_FIELDS)))
    _check_shape("first", first, (targets, 36, 3))
    _check_shape("cross", cross, (targets, targets))
    _check_shape("lengths", lengths, (targets, LENGTH_BINS))
    if stop.shape[0] < 1:
        raise InvalidArgumentError("stop must hold one flag")
    if match_weights is not None and match_weights.shape[0] != NUM_MATCH_WEIGHTS:
        raise InvalidArgumentError(f"match_weights must hold {NUM_MATCH_WEIGHTS} numbers, not {match_weights.shape[0]}")
    return 0


cdef inline bint _is_over(const PositionC* pos) noexcept nogil:
    return position_winner(pos) >= 0


cdef inline double _final_points(const PositionC* pos, int color) noexcept nogil:
    """Points of a finished game for `color` (+ won, - lost)."""
    cdef int winner = position_winner(pos)
    cdef double points = position_points(pos, winner)
    return points if winner == color else -points


cdef void score_final(GameOutC* out, const PositionC* pos, int color) noexcept nogil:
    """The outcome of a finished game for `color`: its points and 0/1 probabilities."""
    out.equity = _final_points(pos, color)
    out.win = 1.0 if out.equity > 0 else 0.0
    out.win_mars = 1.0 if out.equity > 1.5 else 0.0
    out.lose_mars = 1.0 if out.equity < -1.5 else 0.0


cdef bint score_race(GameOutC* out, const TablesC* tables, const PositionC* pos, int color) noexcept nogil:
    """The outcome of a covered no-contact race for `color` from the tables (its side on roll
    is pos.turn): marks the game truncated and returns True; False (out untouched) when the
    tables do not cover it."""
    cdef double equity, win, win_mars, lose_mars
    if not race_value(tables, pos, &equity, &win, &win_mars, &lose_mars):
        return False
    out.truncated = True
    if pos.turn == color:
        out.equity, out.win, out.win_mars, out.lose_mars = equity, win, win_mars, lose_mars
    else:
        out.equity, out.win, out.win_mars, out.lose_mars = -equity, 1.0 - win, lose_mars, win_mars
    return True


cdef void score_draw(GameOutC* out) noexcept nogil:
    """The outcome of a dead position: a draw, 0 points."""
    out.equity = out.win = out.win_mars = out.lose_mars = 0.0
    out.draw = 1.0


cdef double position_value(const JobC* job, const PositionC* pos, int color) noexcept nogil:
    """Equity estimate for `color` (the luck evaluator and expectimax leaves): final points, a
    covered race from the tables, else the job's value net, or tanh(heuristic_eval / scale)
    for a job without one."""
    return _value(job, pos, color, job.value_net, job.value_qnet)


cdef double _heuristic_value(const JobC* job, const PositionC* pos, int color) noexcept nogil:
    """position_value without a net: the built-in lookahead policy's evaluator."""
    return _value(job, pos, color, NULL, NULL)


cdef inline double _value(const JobC* job, const PositionC* pos, int color, const NetC* net,
                          const QNetC* qnet) noexcept nogil:
    """With `qnet` (not NULL) the net is evaluated in its quantised tables."""
    cdef double equity, win, win_mars, lose_mars
    cdef double out[3]
    if _is_over(pos):
        return _final_points(pos, color)
    if race_value(job.tables, pos, &equity, &win, &win_mars, &lose_mars):
        return equity if pos.turn == color else -equity
    if net != NULL:
        if qnet != NULL:
            qnet_evaluate(qnet, pos, out)
        else:
            net_evaluate(net, pos, out)
        equity = outputs_equity(out)
        return equity if pos.turn == color else -equity
    return tanh(heuristic_eval(pos, color) / job.scale)


cdef int _bearoff_choice(const JobC* job, const PositionC* pos, const MoveC* moves, int n) noexcept nogil:
    """Table-optimal move of a covered no-contact race, or -1 when the tables do not cover it."""
    cdef const TablesC* t = job.tables
    cdef int mover = pos.turn, k, best = -1
    cdef const SideC* me = &pos.side[mover]
    cdef const SideC* opp = &pos.side[1 - mover]
    cdef double value, best_value = -1e300
    if not no_contact(pos):
        return -1
    if side_covered(me, t.two.points, t.two.checkers) and side_covered(opp, t.two.points, t.two.checkers):
        for k in range(n):
            if moves[k].after.counts[0] == NUM_CHECKERS:
                value = 2.0 if opp.counts[0] == 0 else 1.0
            else:
                value = -two_sided_equity(&t.two, side_rank(opp, t.two.points), side_rank(&moves[k].after, t.two.points))
            if value > best_value:
                best_value = value
                best = k
        return best
    if side_covered(me, t.one.points, t.one.checkers):
        # Fewest expected rolls: the strategy under which the one-sided race estimate is exact.
        for k in range(n):
            value = -one_sided_mean(&t.one, side_rank(&moves[k].after, t.one.points))
            if value > best_value:
                best_value = value
                best = k
        return best
    return -1


cdef int _worst_reply_value(const void* ctx, const PositionC* pos, int roll, const MoveC* moves, int n,
                            ScratchC* scratch, int level, double* value) except -1 nogil:
    """What the lookahead policy passes search.roll_expectation (ctx: the JobC): a reply roll
    of the side on roll in `pos` is worth, to the player who moved into `pos`, the heuristic
    value of the reply worst for that player."""
    cdef int j, mover = 1 - pos.turn
    cdef double e, worst = 1e300
    cdef PositionC grandchild
    for j in range(n):
        grandchild = pos[0]
        apply_move(&grandchild, &moves[j])
        e = _heuristic_value(<const JobC*> ctx, &grandchild, mover)
        if e < worst:
            worst = e
    value[0] = worst
    return 0


cdef int _lookahead_choice(const JobC* job, const PositionC* pos, const MoveC* moves, int n,
                           ScratchC* scratch) except -1 nogil:
    """The move with the best average over the 21 replies of the reply worst for the mover
    (a dead result's passes are valued like any reply: no draw rule here)."""
    cdef int mover = pos.turn, k, best = 0
    cdef double value, best_value = -1e300
    cdef PositionC child
    cdef double equity, win, win_mars, lose_mars
    for k in range(n):
        child = pos[0]
        apply_move(&child, &moves[k])
        if _is_over(&child) or race_value(job.tables, &child, &equity, &win, &win_mars, &lose_mars):
            value = _heuristic_value(job, &child, mover)
        else:
            roll_expectation(&child, job.flags, False, scratch, 1, 1, _worst_reply_value, job, &value)
        if value > best_value:
            best_value = value
            best = k
    return best


cdef int _net_choice(const JobC* job, const PositionC* pos, const GioulC* state, const MoveC* moves, int n,
                     int plies, ScratchC* scratch) except -1 nogil:
    """search.best_move over the job's net and tables, of a Gioul `state`
    (NULL in a Fevga game; pos is its board); deeper levels in the spare move list."""
    cdef EvaluatorC ev
    cdef double value[3]
    ev.net = job.net[pos.turn]
    ev.qnet = job.qnet[pos.turn]
    ev.tables = job.tables
    ev.flags = job.flags
    ev.every_move = False
    if state != NULL:
        return best_move(&ev, state, moves, n, plies, scratch, 0, value)
    return best_move(&ev, pos, moves, n, plies, scratch, 0, value)


cdef int _best_value(const void* ctx, const PositionC* pos, int roll, const MoveC* moves, int n,
                     ScratchC* scratch, int level, double* value) except -1 nogil:
    """max over moves of position_value(child) for the mover: the luck evaluator of one roll
    (ctx: the JobC), in search.roll_expectation's form."""
    cdef const JobC* job = <const JobC*> ctx
    cdef int k
    cdef double e, best = -1e300
    cdef PositionC child
    for k in range(n):
        child = pos[0]
        apply_move(&child, &moves[k])
        e = position_value(job, &child, pos.turn)
        if e > best:
            best = e
    value[0] = best
    return 0


cdef int _callback_choice(object callback, const PositionC* pos, int d1, int d2, int n) except -1:
    cdef uint8_t row[POSITION_WIDTH]
    position_store(pos, row)
    index = callback(bytes(row[:POSITION_WIDTH]), d1, d2)
    if not (0 <= index < n):
        raise IndexError(f"policy chose move {index} of {n}")
    return index


cdef inline int _policy_choice(const JobC* job, const PositionC* pos, const GioulC* state, int d1, int d2,
                               const MoveC* moves, int n, object callback, ScratchC* scratch, RngC* rng) except -1 nogil:
    """THE policy dispatch of both games' playouts: the index of the move the policy of the
    side on roll picks among the n > 1 legal `moves` (move list 0 of `scratch`; the deeper
    lists are the lookahead's and the nets') of the dice d1-d2. A Gioul game passes its
    state (pos is its board; only the net policies read the rest), a Fevga game NULL."""
    cdef int k, policy = job.policy[pos.turn]
    if policy == POLICY_CALLBACK:
        with gil:
            return _callback_choice(callback, pos, d1, d2, n)
    if policy == POLICY_BEAROFF:
        k = _bearoff_choice(job, pos, moves, n)
        return k if k >= 0 else choose_move(pos, moves, n, POLICY_HEURISTIC, rng)
    if policy == POLICY_LOOKAHEAD:
        return _lookahead_choice(job, pos, moves, n, scratch)
    if policy == POLICY_NET or policy == POLICY_NET2:
        return _net_choice(job, pos, state, moves, n, 1 if policy == POLICY_NET else 2, scratch)
    return choose_move(pos, moves, n, policy, rng)


cdef inline void _game_begin(GameOutC* out) noexcept nogil:
    """The outcome fields a game fills as it goes, before its first roll."""
    out.plies = 0
    out.luck = 0.0
    out.truncated = False
    out.first_roll = -1
    out.draw = 0.0


cdef inline void _next_roll(GameOutC* out, RngC* rng, const int* fixed_rolls, int nfixed,
                            int* d1, int* d2) noexcept nogil:
    """The game's next random roll (its out.plies-th): fixed_rolls[i] (roll index (d1 - 1) * 6 +
    (d2 - 1)) for the first `nfixed`, later ones drawn from `rng`; the first is kept in
    out.first_roll."""
    if out.plies < nfixed:
        d1[0] = fixed_rolls[out.plies] // 6 + 1
        d2[0] = fixed_rolls[out.plies] % 6 + 1
    else:
        roll_dice(rng, d1, d2)
    if out.plies == 0:
        out.first_roll = (d1[0] - 1) * 6 + (d2[0] - 1)


# ---------------------------------------------------------------------------------------
# Gioul: the hooks of a Gioul job (FLAG_GIOUL). Its evaluator, gioul_value: final points of a
# finished game; a state whose roll is due with both sides at their fourth roll or later
# (every double a chain: the assumption of Gioul bear-off tables) goes through position_value
# (covered race from the job's tables, else the heuristic); any other state
# tanh(heuristic_eval / scale).

cdef double gioul_value(const JobC* job, const GioulC* s, int color) noexcept nogil:
    """The evaluator's equity of a Gioul state for `color` (above)."""
    if gioul_over(s) or gioul_tables_apply(s):
        return position_value(job, &s.pos, color)
    return tanh(heuristic_eval(&s.pos, color) / job.scale)


cdef inline int _roll_index(int d1, int d2) noexcept nogil:
    """Index of the roll d1-d2 in the core's roll table (ROLL_D1 <= ROLL_D2)."""
    cdef int r, low = d1 if d1 < d2 else d2, high = d2 if d1 < d2 else d1
    for r in range(NUM_ROLLS):
        if ROLL_D1[r] == low and ROLL_D2[r] == high:
            return r
    return 0


# What Gioul luck passes search.luck_values: the job and the state whose roll is due.
ctypedef struct GioulRollC:
    const JobC* job
    const GioulC* state


cdef int _gioul_roll_value(const void* ctx, const PositionC* pos, int roll, const MoveC* moves, int n,
                           ScratchC* scratch, int level, double* value) except -1 nogil:
    """Gioul's value of a roll for its roller: the state once the roll's every decision (the
    first from `moves`, then its blocks and any hand-overs, generated into the same list) is
    played by the heuristic policy, valued by gioul_value."""
    cdef const GioulRollC* c = <const GioulRollC*> ctx
    cdef MoveC* later = scratch.moves + <Py_ssize_t> level * MAX_MOVES    # where `moves` are
    cdef int k
    cdef GioulC t = c.state[0]
    cdef RngC unused          # the heuristic policy draws nothing
    gioul_begin_roll(&t, ROLL_D1[roll], ROLL_D2[roll])
    while True:
        k = choose_move(&t.pos, moves, n, POLICY_HEURISTIC, &unused) if n > 1 else 0
        gioul_apply(&t, &moves[k])
        if not t.count or gioul_over(&t):
            break
        n = moves_checked(gioul_pending_moves(&t, later, scratch.ws))
        moves = later
    value[0] = gioul_value(c.job, &t, c.state.pos.turn)
    return 0


cdef int _roll_values(const JobC* job, const GioulC* s, double* values, double* mean,
                      ScratchC* scratch, int level) except -1 nogil:
    """The luck's values: for each of the 21 rolls of the side to roll in `s` (no dice
    pending), the value for it of the roll played (Fevga: its best result, _best_value; Gioul:
    _gioul_roll_value), into values[21]; their mean over the 36 rolls into mean[0]. Uses move
    list `level` of `scratch` (one the game is not using)."""
    cdef GioulRollC c
    if not job.flags & FLAG_GIOUL:
        return luck_values(&s.pos, job.flags, scratch, level, _best_value, job, values, mean)
    c.job = job
    c.state = s
    return luck_values(&s.pos, job.flags, scratch, level, _gioul_roll_value, &c, values, mean)


cdef int _record_decision(RecordC* rec, const GioulC* s, int d1, int d2, const MoveC* move,
                          int choices) noexcept nogil:
    """Count (and with rec.decisions record) the decision `move` of `s` about to be played;
    1 when a record (decisions or trail) is full, else 0."""
    cdef DecisionC* r
    if (rec.decisions != NULL or rec.trail != NULL) and rec.size == MAX_RECORDED:
        return 1
    if rec.decisions != NULL:
        r = &rec.decisions[rec.size]
        r.mover = s.pos.turn
        r.roller = s.roller
        r.d1 = d1
        r.d2 = d2
        r.die = s.die
        r.count = s.count
        r.pair = s.pair
        r.nsteps = move.nsteps
        memset(r.steps, 0, sizeof(r.steps))
        memcpy(r.steps, move.steps, 2 * move.nsteps)
        r.choices = choices
    rec.size += 1
    return 0


cdef int play_game(const JobC* job, GioulC* s, int color, RngC* rng, const int* fixed_rolls, int nfixed,
                   object callback, ScratchC* scratch, GameOutC* out, RecordC* rec, int max_plies) except -1 nogil:
    """THE game loop of both games (rollouts, games, duels, records, training): play `s` to
    the end, to truncation or to `max_plies` plies (0 = no limit); fill `out` for `color`.
    A decision is a Fevga turn, or one of a Gioul roll's blocks and hand-overs; the game's
    hooks are its moves (generate_moves of the board / gioul_pending_moves), its transition
    (apply_move / gioul_begin_roll and gioul_apply), its tables (Gioul's cover only states
    gioul_tables_apply) and its luck values (_roll_values). The first `nfixed` random rolls
    are fixed_rolls[i] (roll index (d1 - 1) * 6 + (d2 - 1)), later ones drawn from `rng`.
    scratch needs two move lists (the second for the luck and "net2"). With `rec`, the
    decisions are counted and kept (RecordC). Returns 1 when the game stops unfinished, at
    max_plies or with its record full, else 0."""
    cdef bint gioul = job.flags & FLAG_GIOUL
    cdef int d1 = 0, d2 = 0, n, k        # the last roll made
    cdef bint rolled
    cdef double mean
    cdef double values[NUM_ROLLS]
    cdef GioulC before
    _game_begin(out)
    if rec != NULL:
        rec.size = 0
        if rec.trail != NULL:
            rec.trail[0] = s[0]
    while True:
        if gioul_over(s):
            score_final(out, &s.pos, color)
            return 0
        rolled = s.count == 0
        if rolled:
            if job.truncate and (not gioul or gioul_tables_apply(s)) and score_race(out, job.tables, &s.pos, color):
                return 0
            if max_plies and out.plies >= max_plies:
                out.equity = out.win = out.win_mars = out.lose_mars = 0.0
                return 1
            _next_roll(out, rng, fixed_rolls, nfixed, &d1, &d2)
            if job.luck:
                before = s[0]       # the luck is measured once the roll is known not to be a dead pass
            if gioul:
                gioul_begin_roll(s, d1, d2)
                out.plies += 1      # Gioul counts rolls (a roll may take several decisions)
        if gioul:
            n = gioul_pending_moves(s, scratch.moves, scratch.ws)
        else:
            n = generate_moves(&s.pos, d1, d2, job.flags, scratch.moves, scratch.ws)
        moves_checked(n)
        if n == 1 and scratch.moves[0].nsteps == 0 and position_is_dead(&s.pos, job.flags):
            score_draw(out)
            return 0
        if rolled and job.luck:
            # luck = value of the roll rolled minus the mean over all 36 rolls (mean zero)
            _roll_values(job, &before, values, &mean, scratch, 1)
            if before.pos.turn == color:
                out.luck += values[_roll_index(d1, d2)] - mean
            else:
                out.luck += mean - values[_roll_index(d1, d2)]
        k = _policy_choice(job, &s.pos, s if gioul else NULL, d1, d2, scratch.moves, n, callback, scratch,
                           rng) if n > 1 else 0
        if rec != NULL and _record_decision(rec, s, d1 if rolled else 0, d2 if rolled else 0, &scratch.moves[k], n):
            return 1
        if gioul:
            gioul_apply(s, &scratch.moves[k])
        else:
            apply_move(&s.pos, &scratch.moves[k])
            out.plies += 1          # Fevga counts moves played (a dead roll is not one)
        if rec != NULL and rec.trail != NULL:
            rec.trail[rec.size] = s[0]


cdef int gioul_play(const JobC* job, GioulC* s, RngC* rng, bint opening_dice, ScratchC* scratch,
                    RecordC* rec, int* points) except -1 nogil:
    cdef int wd, bd
    cdef int fixed[1]
    cdef GameOutC out
    gioul_initial(s, opening_draw(rng, &wd, &bd))
    fixed[0] = ((wd if wd > bd else bd) - 1) * 6 + (bd if wd > bd else wd) - 1    # the larger die first
    if play_game(job, s, COLOR_WHITE, rng, fixed, 1 if opening_dice else 0, None, scratch, &out, rec, 0):
        return 1
    points[0] = <int> out.equity
    return 0


# ---------------------------------------------------------------------------------------
# Python entry points: every argument is checked here before the nogil code trusts it.

cdef int _job_init(JobC* job, int flags, int white_policy, int black_policy, object callback, bint truncate,
                   bint luck, double scale, Tables tables, NetModel white_net, NetModel black_net=None) except -1:
    """The job of a call, its arguments checked (`flags` by _row_width or fevga_flags_checked
    first). `black_net` defaults to `white_net` (one net for both colours). A Gioul job plays
    the Gioul policies (GIOUL_POLICIES) with no callback; its nets are Gioul nets, for its net
    policies only (its luck is valued by the heuristic: value_net stays NULL)."""
    cdef bint gioul = (flags & FLAG_GIOUL) != 0
    _check_policy(white_policy, callback, GIOUL_POLICIES if gioul else KNOWN_POLICIES)
    _check_policy(black_policy, callback, GIOUL_POLICIES if gioul else KNOWN_POLICIES)
    if gioul and callback is not None:
        raise InvalidArgumentError("a Gioul job takes no callback")
    for net in (white_net, black_net):
        if net is not None:
            net_checked(net)
        if net is not None and isinstance(net, CoreGioulNet) != gioul:
            raise NetGameError(f"a {'Fevga' if gioul else 'Gioul'} net ({type(net).__name__}) was given for a "
                               f"{'Gioul' if gioul else 'Fevga'} job, which needs a "
                               f"{'Gioul net (CoreGioulNet)' if gioul else 'Fevga net (CoreNet)'}")
    if tables is None:
        raise InvalidArgumentError("a rollout job needs a Tables object (Tables() for none)")
    if not scale > 0.0:
        raise InvalidArgumentError(f"scale {scale} must be > 0")
    if black_net is None:
        black_net = white_net
    if (white_net is None and white_policy in (POLICY_NET, POLICY_NET2)) or \
            (black_net is None and black_policy in (POLICY_NET, POLICY_NET2)):
        raise InvalidArgumentError("the net policies (ids 5, 6) need a net for their colour")
    job.net[0] = NULL if white_net is None else &white_net.c
    job.net[1] = NULL if black_net is None else &black_net.c
    job.qnet[0] = net_quantised(white_net)
    job.qnet[1] = net_quantised(black_net)
    job.value_net = NULL if gioul else (job.net[0] if job.net[0] != NULL else job.net[1])
    job.value_qnet = NULL if gioul else (job.qnet[0] if job.net[0] != NULL else job.qnet[1])
    job.flags = flags
    job.policy[0] = white_policy
    job.policy[1] = black_policy
    job.truncate = truncate
    job.luck = luck
    job.scale = scale
    job.tables = &tables.c
    return 0


# The stratified schedule of a job's first two rolls (top comment): the permutations of the
# rotation that game indices are currently in.
ctypedef struct StrataC:
    uint64_t master
    int64_t rotation        # the rotation `perm` belongs to, -1 before the first game
    uint8_t perm[NUM_STRATA]


cdef void strata_init(StrataC* strata, uint64_t master) noexcept nogil:
    strata.master = master
    strata.rotation = -1


cdef int strata_rolls(StrataC* strata, int64_t index, int* fixed) noexcept nogil:
    """The stratum of game `index` (first roll + 36 * second roll, roll index (d1 - 1) * 6 +
    (d2 - 1)); fixed[0], fixed[1] = its first and second rolls. perm[h * 36 + j] is the second
    roll of the j-th game with first roll h in the rotation, drawn once per rotation."""
    cdef RngC rng
    cdef int h, j, k
    cdef uint8_t swap
    cdef uint8_t* perm = strata.perm
    cdef int64_t rotation = index // NUM_STRATA
    if rotation != strata.rotation:
        strata.rotation = rotation
        rng_seed(&rng, game_seed(strata.master ^ 0x5354524154554D53ULL, <uint64_t> rotation))
        for h in range(36):
            for j in range(36):
                perm[h * 36 + j] = j
            for j in range(35, 0, -1):
                k = rng_below(&rng, j + 1)
                swap = perm[h * 36 + j]
                perm[h * 36 + j] = perm[h * 36 + k]
                perm[h * 36 + k] = swap
    j = <int> (index % NUM_STRATA)
    h = perm[(j % 36) * 36 + j // 36] * 36 + j % 36
    fixed[0] = h % 36
    fixed[1] = h // 36
    return h


cdef double add_game(const GameOutC* out, int stratum, const double* weights, double* sums, double* first,
                     int64_t* lengths) noexcept nogil:
    """Add one game of one target into its rows: sums[15] (SUM_FIELDS), first[36 * 3] (games,
    sum and sum of squares of the equity per first roll: the rolled one, else the stratum's,
    else roll 0) and lengths[LENGTH_BINS]. Returns the game's match value (weights[5] =
    constant, win, win_mars, lose_mars, draw over its outcome; its equity when NULL), which
    the cross sums take."""
    cdef double value = out.equity
    cdef double match = value
    cdef int j, length
    if weights != NULL:
        match = (weights[0] + weights[1] * out.win + weights[2] * out.win_mars
                 + weights[3] * out.lose_mars + weights[4] * out.draw)
    sums[0] += 1.0
    sums[1] += value
    sums[2] += value * value
    sums[3] += out.win
    sums[4] += out.win_mars
    sums[5] += out.lose_mars
    sums[6] += out.draw
    sums[7] += out.luck
    sums[8] += out.luck * out.luck
    sums[9] += value * out.luck
    sums[10] += out.truncated
    sums[11] += out.plies
    sums[12] += match
    sums[13] += match * match
    sums[14] += match * out.luck
    j = out.first_roll if out.first_roll >= 0 else (stratum % 36 if stratum >= 0 else 0)
    first[j * 3] += 1.0
    first[j * 3 + 1] += value
    first[j * 3 + 2] += value * value
    length = out.plies if out.plies < LENGTH_BINS else LENGTH_BINS - 1
    lengths[length] += 1
    return match


cdef void add_cross(double* cross, const double* values, int targets) noexcept nogil:
    """cross[k * targets + j] += values[k] * values[j]: the common-random-number products of one
    game index (nothing for a single target)."""
    cdef int k, j
    if targets > 1:
        for k in range(targets):
            for j in range(targets):
                cross[k * targets + j] += values[k] * values[j]


cdef int64_t _block(const JobC* job, const GioulC* starts, int targets, int color, object callback,
                    bint stratify, uint64_t master, int64_t first_index, int64_t games,
                    double[:, ::1] sums, double[:, :, ::1] first, double[:, ::1] cross,
                    int64_t[:, ::1] lengths, const int32_t[::1] stop, const double* weights,
                    double* values, ScratchC* scratch) except -1 nogil:
    """The games of a block from each start state (a Fevga job plays the board alone), in
    game-index order."""
    cdef int64_t i, index
    cdef int k, stratum
    cdef GioulC s
    cdef RngC rng
    cdef GameOutC out
    cdef StrataC strata
    cdef int fixed[2]
    strata_init(&strata, master)
    for i in range(games):
        if stop[0]:
            return i
        index = first_index + i
        stratum = strata_rolls(&strata, index, fixed) if stratify else -1
        for k in range(targets):
            s = starts[k]
            rng_seed(&rng, game_seed(master, <uint64_t> index))
            play_game(job, &s, color, &rng, fixed, 2 if stratum >= 0 else 0, callback, scratch, &out, NULL, 0)
            values[k] = add_game(&out, stratum, weights, &sums[k, 0], &first[k, 0, 0], &lengths[k, 0])
        add_cross(&cross[0, 0], values, targets)
    return games


def run_block(bytes rows, int color, int flags, int white_policy, int black_policy, object callback,
              Tables tables, NetModel white_net, NetModel black_net, bint truncate, bint luck, double scale, bint stratify, uint64_t master,
              int64_t first_index, int64_t games, double[:, ::1] sums, double[:, :, ::1] first,
              double[:, ::1] cross, int64_t[:, ::1] lengths, const int32_t[::1] stop,
              const double[::1] match_weights=None):
    """Games first_index .. first_index + games - 1 of a job from each start row, added into
    sums[K, 15], first[K, 36, 3], cross[K, K], lengths[K, 512]. The rule `flags` name the
    game: K Fevga position rows of 51 bytes, or for FLAG_GIOUL K Gioul state rows of 58 bytes
    (gioul.pyx) played by GIOUL_POLICIES (the net ones with Gioul nets), with no callback.
    `match_weights` (constant, win, win_mars, lose_mars, draw) turn a game's outcome
    probabilities into its "match" value (its match winning chance at the job's score); without
    them that value is the game's equity. Cross sums are of the match values.
    Returns the games played (fewer when stop[0] became non-zero)."""
    cdef int width = _row_width(flags)
    cdef int targets = len(rows) // width
    cdef GioulC* starts
    cdef double* values
    cdef ScratchC scratch
    cdef JobC job
    cdef int64_t done
    cdef const double* weights = NULL
    if len(rows) == 0 or len(rows) % width:
        raise InvalidArgumentError(f"rows must be K >= 1 rows of {width} bytes, not {len(rows)} bytes")
    _check_color(color)
    _job_init(&job, flags, white_policy, black_policy, callback, truncate, luck, scale, tables, white_net, black_net)
    _check_block_args(targets, first_index, games, sums, first, cross, lengths, stop, match_weights)
    if match_weights is not None:
        weights = &match_weights[0]
    starts = <GioulC*> calloc(targets, sizeof(GioulC))
    values = <double*> malloc(targets * sizeof(double))
    scratch.ws = NULL
    scratch.moves = NULL
    try:
        if starts == NULL or values == NULL:
            raise MemoryError("no memory for the rollout loop")
        scratch_new(&scratch, 2)
        _starts_checked(starts, rows, width)
        if callback is None:
            with nogil:
                done = _block(&job, starts, targets, color, None, stratify, master, first_index, games,
                              sums, first, cross, lengths, stop, weights, values, &scratch)
        else:
            done = _block(&job, starts, targets, color, callback, stratify, master, first_index, games,
                          sums, first, cross, lengths, stop, weights, values, &scratch)
        return done
    finally:
        free(starts)
        free(values)
        scratch_free(&scratch)


def play_recorded(bytes row, int flags, int white_policy, int black_policy, object callback,
                  uint64_t seed, bint opening, int max_plies, Tables tables=None, double scale=1.0,
                  CoreNet net=None):
    """One self-play game with its record: (winner or -1 for a draw or a cut game, points,
    plies, cut (at max_plies, or past MAX_RECORDED plies), opening dice or None, ply array uint8[plies, 12] = turn, d1, d2,
    nsteps, 4 x (from, to), final row). With `opening` the game starts with the one-die draw
    of docs/rules.md §2 (and with FLAG_OPENING_DICE the starter plays those two dice). `tables`
    serve the bearoff and lookahead policies (none by default)."""
    cdef GioulC s
    cdef RngC rng
    cdef GameOutC out
    cdef RecordC rec
    cdef ScratchC scratch
    cdef JobC job
    cdef DecisionC* r
    cdef int dice[2]
    cdef int fixed[1]
    cdef int nfixed = 0, status = 0, starter, j
    fevga_flags_checked(flags)
    if max_plies < 0:
        raise InvalidArgumentError(f"max_plies {max_plies} must be >= 0")
    memset(&s, 0, sizeof(GioulC))
    position_load_checked(&s.pos, row)
    if tables is None:
        tables = Tables()      # kept alive by this local while the game runs
    _job_init(&job, flags, white_policy, black_policy, callback, False, False, scale, tables, net)
    buffer = np.zeros(MAX_RECORDED * sizeof(DecisionC), dtype=np.uint8)
    cdef uint8_t[::1] raw = buffer
    rec.decisions = <DecisionC*> &raw[0]
    rec.trail = NULL
    rng_seed(&rng, seed)
    if opening:
        starter = opening_draw(&rng, &dice[0], &dice[1])
        s.pos.turn = starter
        if flags & FLAG_OPENING_DICE:
            fixed[0] = (dice[starter] - 1) * 6 + dice[1 - starter] - 1
            nfixed = 1
    scratch_new(&scratch, 2)
    try:
        if callback is not None:
            status = play_game(&job, &s, 0, &rng, fixed, nfixed, callback, &scratch, &out, &rec, max_plies)
        else:
            with nogil:
                status = play_game(&job, &s, 0, &rng, fixed, nfixed, None, &scratch, &out, &rec, max_plies)
    finally:
        scratch_free(&scratch)
    plies = np.zeros((rec.size, 12), dtype=np.uint8)
    cdef uint8_t[:, ::1] ply = plies
    for j in range(rec.size):
        r = &rec.decisions[j]
        ply[j, 0], ply[j, 1], ply[j, 2], ply[j, 3] = r.mover, r.d1, r.d2, r.nsteps
        memcpy(&ply[j, 4], r.steps, sizeof(r.steps))
    final = bytearray(POSITION_WIDTH)
    position_store(&s.pos, <uint8_t*> (<char*> final))
    winner = -1 if out.equity == 0 else (0 if out.equity > 0 else 1)
    return (winner, abs(int(out.equity)), out.plies, status == 1,
            (dice[0], dice[1]) if opening else None, plies, bytes(final))


# Gioul games (fevga.game.play_gioul_game, fevga.strength.gioul_duel, fevga.gioul.self_play):
# the Gioul game loop from the one-die draw, or on from a given state.

_NO_TABLES = Tables()       # kept alive here: a Gioul game without tables points into it


cdef int _gioul_job(JobC* job, int white_policy, int black_policy, NetModel white_net, NetModel black_net,
                    Tables tables) except -1:
    """The job of a Gioul game call (_job_init: policies, nets of the right game, tables)."""
    _job_init(job, FLAG_GIOUL, white_policy, black_policy, None, False, False, 1.0,
              _NO_TABLES if tables is None else tables, white_net, black_net)
    return 0


def gioul_games(uint64_t master, long long first, long long n, bint opening_dice,
                int white_policy=POLICY_RANDOM, int black_policy=POLICY_RANDOM,
                NetModel white_net=None, NetModel black_net=None, Tables tables=None):
    """Play Gioul games first .. first+n-1 of a seeded job (game i draws its dice from
    game_seed(master, i)); returns (White's points per game as int8, total decisions). The
    policies are GIOUL_POLICIES; "net" and "net2" play with the side's Gioul net (`black_net`
    defaults to `white_net`), overridden in covered races by `tables` (Gioul bear-off tables;
    none by default). GIL released; Ctrl-C stops it."""
    cdef long long i, total = 0
    cdef int result
    cdef JobC job
    cdef GioulC s
    cdef RngC rng
    cdef ScratchC scratch
    cdef RecordC rec
    if n < 0:
        raise InvalidArgumentError(f"games {n} must be >= 0")
    _gioul_job(&job, white_policy, black_policy, white_net, black_net, tables)
    rec.decisions = NULL
    rec.trail = NULL
    out = np.zeros(n, dtype=np.int8)
    cdef int8_t[::1] points = out
    scratch_new(&scratch, 2)
    try:
        with nogil:
            for i in range(n):
                check_interrupt_every(i, 256)
                rng_seed(&rng, game_seed(master, <uint64_t> (first + i)))
                gioul_play(&job, &s, &rng, opening_dice, &scratch, &rec, &result)
                points[i] = result
                total += rec.size
    finally:
        scratch_free(&scratch)
    return out, total


def record_gioul_game(uint64_t master, long long index, bint opening_dice,
                      int white_policy=POLICY_RANDOM, int black_policy=POLICY_RANDOM, CoreGioul start=None,
                      NetModel white_net=None, NetModel black_net=None, Tables tables=None):
    """Game `index` of gioul_games, recorded: (White's points, [decision tuples]) where a
    decision is (mover, roller, d1, d2, die, count, pair, steps, choices). With `start` (not
    finished) the game is played on from that state, without the one-die draw."""
    cdef int j, points = 0, long_game
    cdef JobC job
    cdef GioulC s
    cdef RngC rng
    cdef ScratchC scratch
    cdef RecordC rec
    cdef GameOutC out
    cdef DecisionC* r
    cdef bint from_start = start is not None
    _gioul_job(&job, white_policy, black_policy, white_net, black_net, tables)
    buffer = np.zeros(MAX_RECORDED * sizeof(DecisionC), dtype=np.uint8)
    cdef uint8_t[::1] raw = buffer
    rec.decisions = <DecisionC*> &raw[0]
    rec.trail = NULL
    if from_start:
        if gioul_over(&start.c):
            raise InvalidArgumentError("record_gioul_game: the start state is a finished game")
        s = start.c
    rng_seed(&rng, game_seed(master, <uint64_t> index))
    scratch_new(&scratch, 2)
    try:
        with nogil:
            if from_start:
                long_game = play_game(&job, &s, COLOR_WHITE, &rng, NULL, 0, None, &scratch, &out, &rec, 0)
                points = <int> out.equity
            else:
                long_game = gioul_play(&job, &s, &rng, opening_dice, &scratch, &rec, &points)
    finally:
        scratch_free(&scratch)
    if long_game:
        raise OverflowError(f"a Gioul game longer than {MAX_RECORDED} decisions")
    decisions = []
    for j in range(rec.size):
        r = &rec.decisions[j]
        steps = tuple([(r.steps[k][0], r.steps[k][1]) for k in range(r.nsteps)])
        decisions.append((r.mover, r.roller, r.d1, r.d2, r.die, r.count, r.pair, steps, r.choices))
    return points, decisions


# What expectimax passes search.roll_expectation: the mover's best result of a roll is the
# best expectimax value, `depth` - 1 plies deep, of the roll's moves (full width). Leaves are
# position_value, or with `leaf` (a Python callable: 51-byte row -> equity of its side on
# roll, called with the GIL) that callable's values.
ctypedef struct ExpectimaxC:
    const JobC* job
    PyObject* leaf
    int depth


cdef int _leaf_value(PyObject* leaf, const PositionC* pos, double* out) except -1 with gil:
    cdef uint8_t row[POSITION_WIDTH]
    position_store(pos, row)
    out[0] = float((<object> leaf)(bytes(row[:POSITION_WIDTH])))
    return 0


cdef int _expectimax_roll_value(const void* ctx, const PositionC* pos, int roll, const MoveC* moves, int n,
                                ScratchC* scratch, int level, double* value) except -1 nogil:
    cdef const ExpectimaxC* e = <const ExpectimaxC*> ctx
    cdef int k
    cdef double below, best = -1e300
    cdef PositionC child
    for k in range(n):
        child = pos[0]
        apply_move(&child, &moves[k])
        _expectimax(e.job, e.leaf, &child, e.depth - 1, scratch, level + 1, &below)
        if -below > best:
            best = -below
    value[0] = best
    return 0


cdef int _expectimax(const JobC* job, PyObject* leaf, const PositionC* pos, int depth, ScratchC* scratch,
                     int level, double* out) except -1 nogil:
    """Exact expectation over the 21 rolls, `depth` plies deep, for the side on roll (move
    lists level .. level + depth - 1 of `scratch`); dead positions are draws (0)."""
    cdef ExpectimaxC e
    if _is_over(pos):
        out[0] = _final_points(pos, pos.turn)
        return 0
    if depth == 0:
        if leaf != NULL:
            return _leaf_value(leaf, pos, out)
        out[0] = position_value(job, pos, pos.turn)
        return 0
    e.job = job
    e.leaf = leaf
    e.depth = depth
    if roll_expectation(pos, job.flags, True, scratch, level, 1, _expectimax_roll_value, &e, out):
        out[0] = 0.0
    return 0


def expectimax_value(bytes row, int depth, int flags, Tables tables not None, double scale, CoreNet net=None,
                     object leaf=None):
    """Expectimax value of a row for its side on roll (leaves: position_value, or `leaf(row)`,
    a callable's equity for the leaf's side on roll); Ctrl-C stops it."""
    cdef PositionC pos
    cdef JobC job
    cdef double value
    cdef ScratchC scratch
    cdef PyObject* leaf_ptr = NULL if leaf is None else <PyObject*> leaf    # kept alive by `leaf`
    if not 0 <= depth <= MAX_EXPECTIMAX_DEPTH:
        raise InvalidArgumentError(f"expectimax depth {depth} must be from 0 to {MAX_EXPECTIMAX_DEPTH}")
    if leaf is not None and not callable(leaf):
        raise InvalidArgumentError(f"leaf {leaf!r} must be a callable or None")
    fevga_flags_checked(flags)
    position_load_checked(&pos, row)
    scratch_new(&scratch, depth + 1)       # one move list per level
    try:
        _job_init(&job, flags, POLICY_HEURISTIC, POLICY_HEURISTIC, None, False, False, scale, tables, net)
        with nogil:
            _expectimax(&job, leaf_ptr, &pos, depth, &scratch, 0, &value)
        return value
    finally:
        scratch_free(&scratch)


def value(bytes row, int color, Tables tables not None, double scale, CoreNet net=None, int flags=0):
    """The evaluator's equity of a row for `color`: position_value of a Fevga row (the
    evaluator of luck, lookahead and expectimax), or with flags FLAG_GIOUL gioul_value of a
    Gioul state row (the evaluator of Gioul luck)."""
    cdef GioulC s
    cdef JobC job
    cdef int width = _row_width(flags)
    if len(row) != width:
        raise InvalidArgumentError(f"row must be one row of {width} bytes, not {len(row)} bytes")
    _check_color(color)
    _starts_checked(&s, row, width)
    _job_init(&job, flags, POLICY_HEURISTIC, POLICY_HEURISTIC, None, False, False, scale, tables, net)
    return gioul_value(&job, &s, color) if flags & FLAG_GIOUL else position_value(&job, &s.pos, color)


def roll_values(bytes row, int flags, Tables tables not None, double scale):
    """(values[21], mean) of the luck (_roll_values) of the game the rule `flags` name, for a
    row whose roll is due: each roll's value for the side to roll once it is played (Fevga:
    its best result by the heuristic evaluator; Gioul: every decision of it played by the
    heuristic policy)."""
    cdef GioulC s
    cdef JobC job
    cdef ScratchC scratch
    cdef double values[NUM_ROLLS]
    cdef double mean
    cdef int width = _row_width(flags)
    if len(row) != width:
        raise InvalidArgumentError(f"row must be one row of {width} bytes, not {len(row)} bytes")
    memset(&s, 0, sizeof(GioulC))
    _starts_checked(&s, row, width)
    if s.count or gioul_over(&s):
        raise InvalidArgumentError("roll values need a state whose roll is due (no dice pending, game not over)")
    _job_init(&job, flags, POLICY_HEURISTIC, POLICY_HEURISTIC, None, False, True, scale, tables, None)
    scratch.ws = NULL
    scratch.moves = NULL
    try:
        scratch_new(&scratch, 1)
        with nogil:
            _roll_values(&job, &s, values, &mean, &scratch, 0)
        return [values[r] for r in range(NUM_ROLLS)], mean
    finally:
        scratch_free(&scratch)


def race(bytes row, Tables tables not None):
    """(equity, win, win_mars, lose_mars) of a covered no-contact race for the side on roll, or None."""
    cdef PositionC pos
    cdef double equity, win, win_mars, lose_mars
    position_load_checked(&pos, row)
    if race_value(&tables.c, &pos, &equity, &win, &win_mars, &lose_mars):
        return (equity, win, win_mars, lose_mars)
    return None
