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

from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset
from libc.math cimport tanh

from fevga_core.types cimport (
    PositionC, MoveC, SideC, uint8_t, uint16_t, uint32_t, uint64_t, int32_t, int64_t,
    NUM_CHECKERS, MAX_MOVES, POSITION_WIDTH, FLAG_OPENING_DICE,
)
from fevga_core.board cimport position_load, position_load_checked, position_store, zobrist_turn
from fevga_core.movegen cimport (
    WorkspaceC, ScratchC, scratch_new, scratch_free, generate_moves, apply_move, position_is_dead,
    ROLL_D1 as ROLL_A, ROLL_D2 as ROLL_B,
)
from fevga_core.game cimport (
    RngC, rng_seed, rng_below, game_seed, roll_dice, heuristic_eval, choose_move, opening_draw,
    POLICY_RANDOM, POLICY_HEURISTIC, POLICY_CALLBACK, POLICY_BEAROFF, POLICY_LOOKAHEAD,
)
from fevga_core.bearoff cimport (
    OneSidedTableC, TwoSidedTableC, MAX_ROLLS, position_rank, one_sided_mean,
    one_sided_distribution, two_sided_equity, two_sided_win, fill_one_sided_table, fill_two_sided_table,
)
from cpython.exc cimport PyErr_CheckSignals

import numpy as np

from fevga_core.errors import InvalidArgumentError

# Fields of the per-target sums row (fevga.rollout mirrors these).
SUM_FIELDS = ("games", "equity", "equity_sq", "win", "win_mars", "lose_mars", "draw",
              "luck", "luck_sq", "equity_luck", "truncated", "plies")
cdef enum:
    NUM_STRATA = 1296
    LENGTH_BINS = 512   # game-length histogram bins; the last one counts longer games

STRATA = NUM_STRATA
MAX_LENGTH = LENGTH_BINS
MAX_EXPECTIMAX_DEPTH = 6     # depth 3 from a mid-game position already takes minutes
KNOWN_POLICIES = (POLICY_RANDOM, POLICY_HEURISTIC, POLICY_CALLBACK, POLICY_BEAROFF, POLICY_LOOKAHEAD)


# ---------------------------------------------------------------------------------------
# Argument checks of the Python entry points (O(1) per call, or O(rows) for the start rows).

cdef int _check_color(int color) except -1:
    if color != 0 and color != 1:
        raise InvalidArgumentError(f"color {color} must be WHITE (0) or BLACK (1)")
    return 0


cdef int _check_flags(int flags) except -1:
    if flags < 0 or flags & ~31:
        raise InvalidArgumentError(f"rule flags {flags} must be a combination of the bits of 31")
    return 0


cdef int _check_policy(int policy, object callback) except -1:
    if policy not in KNOWN_POLICIES:
        raise InvalidArgumentError(f"policy id {policy} must be one of {KNOWN_POLICIES}")
    if policy == POLICY_CALLBACK and callback is None:
        raise InvalidArgumentError("a callback policy needs a callback")
    return 0


cdef int _check_shape(str name, object array, tuple shape) except -1:
    if tuple(array.shape[:len(shape)]) != shape:
        raise InvalidArgumentError(f"{name} must have shape {shape}, not {tuple(array.shape[:len(shape)])}")
    return 0

# Probability of each of movegen's 21 distinct rolls (doubles 1/36, others 2/36).
cdef double ROLL_W[21]


cdef void _fill_weights() noexcept nogil:
    cdef int i
    for i in range(21):
        ROLL_W[i] = (1.0 if ROLL_A[i] == ROLL_B[i] else 2.0) / 36.0


_fill_weights()


cdef inline bint _is_over(const PositionC* pos) noexcept nogil:
    return pos.side[0].counts[0] == NUM_CHECKERS or pos.side[1].counts[0] == NUM_CHECKERS


cdef inline double _final_points(const PositionC* pos, int color) noexcept nogil:
    """Points of a finished game for `color` (+ won, - lost)."""
    cdef int winner = 0 if pos.side[0].counts[0] == NUM_CHECKERS else 1
    cdef double points = 2.0 if pos.side[1 - winner].counts[0] == 0 else 1.0
    return points if winner == color else -points


cdef bint no_contact(const PositionC* pos) noexcept nogil:
    """True when no checker can ever again block or be blocked (docs/rollout.md): every
    checker of both sides on its own points 1..12, the two halves that never meet."""
    return (pos.side[0].mask & ~0xFFFu) == 0 and (pos.side[1].mask & ~0xFFFu) == 0


cdef inline bint _side_covered(const SideC* side, int points, int checkers) noexcept nogil:
    return points > 0 and (side.mask >> points) == 0 and NUM_CHECKERS - side.counts[0] <= checkers


cdef inline int64_t _rank(const SideC* side, int points) noexcept nogil:
    return position_rank(&side.counts[1], points)


cdef void _first_distribution(const OneSidedTableC* t, int64_t rank, double* out) noexcept nogil:
    """P(rolls until the first checker is off = i) into out[0..MAX_ROLLS)."""
    cdef int i, start, length
    cdef int64_t index, offset
    for i in range(MAX_ROLLS):
        out[i] = 0.0
    if rank < t.first_base:
        out[0] = 1.0
        return
    index = rank - t.first_base
    start = t.first_start[index]
    length = t.first_length[index]
    offset = t.first_offset[index]
    for i in range(length):
        if start + i < MAX_ROLLS:
            out[start + i] = t.first_pool[offset + i]


cdef void _survival(const double* p, double* out) noexcept nogil:
    """out[k] = sum of p[j] for j >= k."""
    cdef int k
    cdef double tail = 0.0
    for k in range(MAX_ROLLS - 1, -1, -1):
        tail += p[k]
        out[k] = tail


cdef bint race_value(const TablesC* tables, const PositionC* pos, double* equity, double* win,
                     double* win_mars, double* lose_mars) noexcept nogil:
    """Value of a no-contact race for the side on roll: exact from the two-sided table when it
    covers both sides, else the one-sided estimate; False when neither table covers it."""
    cdef const SideC* a = &pos.side[pos.turn]
    cdef const SideC* b = &pos.side[1 - pos.turn]
    cdef const TwoSidedTableC* two = &tables.two
    cdef const OneSidedTableC* one = &tables.one
    cdef int64_t ra, rb
    cdef int k
    cdef double net
    cdef double pa[MAX_ROLLS]
    cdef double pb[MAX_ROLLS]
    cdef double first[MAX_ROLLS]
    cdef double tail[MAX_ROLLS]
    if not no_contact(pos):
        return False
    if _side_covered(a, two.points, two.checkers) and _side_covered(b, two.points, two.checkers):
        ra = _rank(a, two.points)
        rb = _rank(b, two.points)
        equity[0] = two_sided_equity(two, ra, rb)
        win[0] = two_sided_win(two, ra, rb)
        net = equity[0] - (2.0 * win[0] - 1.0)     # mars bonus won minus mars bonus lost
        win_mars[0] = net if net > 0.0 else 0.0
        lose_mars[0] = -net if net < 0.0 else 0.0
        return True
    if not (_side_covered(a, one.points, one.checkers) and _side_covered(b, one.points, one.checkers)):
        return False
    ra = _rank(a, one.points)
    rb = _rank(b, one.points)
    one_sided_distribution(one, ra, pa, MAX_ROLLS)
    one_sided_distribution(one, rb, pb, MAX_ROLLS)
    # The side on roll finishing on its k-th roll wins if the other needs at least k rolls.
    _survival(pb, tail)
    win[0] = 0.0
    for k in range(1, MAX_ROLLS):
        win[0] += pa[k] * tail[k]
    win_mars[0] = 0.0
    lose_mars[0] = 0.0
    if b.counts[0] == 0:
        _first_distribution(one, rb, first)
        _survival(first, tail)
        for k in range(1, MAX_ROLLS):
            win_mars[0] += pa[k] * tail[k]
    if a.counts[0] == 0:
        _first_distribution(one, ra, first)
        _survival(first, tail)
        for k in range(1, MAX_ROLLS - 1):
            lose_mars[0] += pb[k] * tail[k + 1]
    equity[0] = 2.0 * win[0] - 1.0 + win_mars[0] - lose_mars[0]
    return True


cdef double position_value(const JobC* job, const PositionC* pos, int color) noexcept nogil:
    """Equity estimate for `color`: final points, a covered race from the tables, else
    tanh(heuristic_eval / scale)."""
    cdef double equity, win, win_mars, lose_mars
    if _is_over(pos):
        return _final_points(pos, color)
    if race_value(job.tables, pos, &equity, &win, &win_mars, &lose_mars):
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
    if _side_covered(me, t.two.points, t.two.checkers) and _side_covered(opp, t.two.points, t.two.checkers):
        for k in range(n):
            if moves[k].after.counts[0] == NUM_CHECKERS:
                value = 2.0 if opp.counts[0] == 0 else 1.0
            else:
                value = -two_sided_equity(&t.two, _rank(opp, t.two.points), _rank(&moves[k].after, t.two.points))
            if value > best_value:
                best_value = value
                best = k
        return best
    if _side_covered(me, t.one.points, t.one.checkers):
        # Fewest expected rolls: the strategy under which the one-sided race estimate is exact.
        for k in range(n):
            value = -one_sided_mean(&t.one, _rank(&moves[k].after, t.one.points))
            if value > best_value:
                best_value = value
                best = k
        return best
    return -1


cdef int _lookahead_choice(const JobC* job, const PositionC* pos, const MoveC* moves, int n,
                           ScratchC* scratch) except -1 nogil:
    """The move with the best average over the 21 replies of the reply worst for the mover."""
    cdef int mover = pos.turn, k, r, j, m, best = 0
    cdef double value, worst, e, best_value = -1e300
    cdef PositionC child, grandchild
    cdef double equity, win, win_mars, lose_mars
    for k in range(n):
        child = pos[0]
        apply_move(&child, &moves[k])
        if _is_over(&child) or race_value(job.tables, &child, &equity, &win, &win_mars, &lose_mars):
            value = position_value(job, &child, mover)
        else:
            value = 0.0
            for r in range(21):
                m = generate_moves(&child, ROLL_A[r], ROLL_B[r], job.flags, (scratch.moves + MAX_MOVES), scratch.ws)
                if m < 0:
                    with gil:
                        raise OverflowError("more legal moves than the generator buffer holds")
                worst = 1e300
                for j in range(m):
                    grandchild = child
                    apply_move(&grandchild, &(scratch.moves + MAX_MOVES)[j])
                    e = position_value(job, &grandchild, mover)
                    if e < worst:
                        worst = e
                value += ROLL_W[r] * worst
        if value > best_value:
            best_value = value
            best = k
    return best


cdef double _best_value(const JobC* job, const PositionC* pos, const MoveC* moves, int n) noexcept nogil:
    """max over moves of position_value(child) for the mover: the luck evaluator of one roll."""
    cdef int k
    cdef double value, best = -1e300
    cdef PositionC child
    for k in range(n):
        child = pos[0]
        apply_move(&child, &moves[k])
        value = position_value(job, &child, pos.turn)
        if value > best:
            best = value
    return best


cdef int _callback_choice(object callback, const PositionC* pos, int d1, int d2, int n) except -1:
    cdef uint8_t row[POSITION_WIDTH]
    position_store(pos, row)
    index = callback(bytes(row[:POSITION_WIDTH]), d1, d2)
    if not (0 <= index < n):
        raise IndexError(f"policy chose move {index} of {n}")
    return index


cdef int _record_ply(RecordC* rec, int turn, int d1, int d2, const MoveC* move) noexcept nogil:
    cdef PlyC* grown
    if rec.size == rec.capacity:
        grown = <PlyC*> realloc(rec.plies, 2 * rec.capacity * sizeof(PlyC))
        if grown == NULL:
            return -1
        rec.plies = grown
        rec.capacity *= 2
    rec.plies[rec.size].turn = turn
    rec.plies[rec.size].dice[0] = d1
    rec.plies[rec.size].dice[1] = d2
    rec.plies[rec.size].nsteps = move.nsteps
    memset(rec.plies[rec.size].steps, 0, sizeof(move.steps))
    memcpy(rec.plies[rec.size].steps, move.steps, 2 * move.nsteps)
    rec.size += 1
    return 0


cdef int rollout_game(const JobC* job, PositionC* pos, int color, RngC* rng,
                      const int* fixed_rolls, int nfixed, object callback, ScratchC* scratch,
                      GameOutC* out, RecordC* rec, int max_plies) except -1 nogil:
    """Play `pos` to the end, to truncation or to `max_plies` plies (0 = no limit; returns 1
    when it stops there); fill `out` for `color`. The first `nfixed` rolls are
    fixed_rolls[i] (roll index (d1 - 1) * 6 + (d2 - 1)), later ones drawn from `rng`.
    With `rec`, every ply is recorded."""
    cdef int d1, d2, n, k, r, m, policy, mover
    cdef double actual, mean, equity, win, win_mars, lose_mars
    out.plies = 0
    out.luck = 0.0
    out.truncated = False
    out.first_roll = -1
    out.draw = 0.0
    while True:
        if _is_over(pos):
            out.equity = _final_points(pos, color)
            out.win = 1.0 if out.equity > 0 else 0.0
            out.win_mars = 1.0 if out.equity > 1.5 else 0.0
            out.lose_mars = 1.0 if out.equity < -1.5 else 0.0
            return 0
        if job.truncate and race_value(job.tables, pos, &equity, &win, &win_mars, &lose_mars):
            out.truncated = True
            if pos.turn == color:
                out.equity, out.win, out.win_mars, out.lose_mars = equity, win, win_mars, lose_mars
            else:
                out.equity, out.win, out.win_mars, out.lose_mars = -equity, 1.0 - win, lose_mars, win_mars
            return 0
        if max_plies and out.plies >= max_plies:
            out.equity = out.win = out.win_mars = out.lose_mars = 0.0
            return 1
        if out.plies < nfixed:
            d1 = fixed_rolls[out.plies] // 6 + 1
            d2 = fixed_rolls[out.plies] % 6 + 1
        else:
            roll_dice(rng, &d1, &d2)
        if out.plies == 0:
            out.first_roll = (d1 - 1) * 6 + (d2 - 1)
        mover = pos.turn
        n = generate_moves(pos, d1, d2, job.flags, scratch.moves, scratch.ws)
        if n < 0:
            with gil:
                raise OverflowError("more legal moves than the generator buffer holds")
        if n == 1 and scratch.moves[0].nsteps == 0 and position_is_dead(pos, job.flags):
            out.equity = out.win = out.win_mars = out.lose_mars = 0.0
            out.draw = 1.0
            return 0
        if job.luck:
            # luck = value of the roll played minus the mean over all 36 rolls (mean zero)
            actual = _best_value(job, pos, scratch.moves, n)
            mean = 0.0
            for r in range(21):
                m = generate_moves(pos, ROLL_A[r], ROLL_B[r], job.flags, (scratch.moves + MAX_MOVES), scratch.ws)
                if m < 0:
                    with gil:
                        raise OverflowError("more legal moves than the generator buffer holds")
                mean += ROLL_W[r] * _best_value(job, pos, (scratch.moves + MAX_MOVES), m)
            out.luck += (actual - mean) if mover == color else (mean - actual)
        policy = job.policy[mover]
        k = 0
        if n > 1:
            if policy == POLICY_CALLBACK:
                with gil:
                    k = _callback_choice(callback, pos, d1, d2, n)
            elif policy == POLICY_BEAROFF:
                k = _bearoff_choice(job, pos, scratch.moves, n)
                if k < 0:
                    k = choose_move(pos, scratch.moves, n, POLICY_HEURISTIC, rng)
            elif policy == POLICY_LOOKAHEAD:
                k = _lookahead_choice(job, pos, scratch.moves, n, scratch)
            else:
                k = choose_move(pos, scratch.moves, n, policy, rng)
        if rec != NULL and _record_ply(rec, mover, d1, d2, &scratch.moves[k]) < 0:
            with gil:
                raise MemoryError("no memory for the game record")
        apply_move(pos, &scratch.moves[k])
        out.plies += 1


# ---------------------------------------------------------------------------------------
# Python entry points (trusted input: fevga.rollout validates).

cdef class Tables:
    """Bear-off tables in the layout the kernels read (arrays are kept alive here)."""

    cdef TablesC c
    cdef list _keep

    def __init__(self, one=None, two=None):
        """`one` = (points, checkers, arrays dict), `two` = (points, checkers, total, equity, win)."""
        self._keep = []
        self.c.one.points = 0
        self.c.one.checkers = 0
        self.c.two.points = 0
        self.c.two.checkers = 0
        # Every array is converted to the kernels' dtype and checked against the table's size
        # (bearoff.fill_*_table): the kernels index them without bounds checks.
        if one is not None:
            points, checkers, arrays = one
            dtypes = {"offset": np.int64, "start": np.uint16, "length": np.uint16}
            converted = {name: np.ascontiguousarray(a, dtype=dtypes.get(name.rpartition("_")[2], np.float64))
                         for name, a in arrays.items()}
            self._keep.append(converted)
            fill_one_sided_table(converted, points, checkers, &self.c.one)
        if two is not None:
            points, checkers, total, equity, win = two
            if total != NUM_CHECKERS:
                # Its terminal values (mars) assume `total` checkers a side: wrong in a Fevga game.
                raise InvalidArgumentError(f"a two-sided table built for total={total} checkers a side cannot "
                                           f"score Fevga races (15 checkers a side): build it with total=15")
            converted = {"equity": np.ascontiguousarray(equity, dtype=np.float64).reshape(-1)}
            if win is not None:
                converted["win"] = np.ascontiguousarray(win, dtype=np.float64).reshape(-1)
            self._keep.append(converted)
            fill_two_sided_table(converted, points, checkers, total, &self.c.two)

    @property
    def one_sided(self):
        """(points, checkers) of the one-sided table, (0, 0) when absent."""
        return (self.c.one.points, self.c.one.checkers)

    @property
    def two_sided(self):
        """(points, checkers) of the two-sided table, (0, 0) when absent."""
        return (self.c.two.points, self.c.two.checkers)


cdef void _job_init(JobC* job, int flags, int white_policy, int black_policy, bint truncate,
                    bint luck, double scale, Tables tables):
    job.flags = flags
    job.policy[0] = white_policy
    job.policy[1] = black_policy
    job.truncate = truncate
    job.luck = luck
    job.scale = scale
    job.tables = &tables.c


cdef void _rotation_perms(uint64_t master, int64_t rotation, uint8_t* perm) noexcept nogil:
    """perm[h * 36 + j]: the second roll of the j-th game with first roll h in a rotation."""
    cdef RngC rng
    cdef int h, j, k
    cdef uint8_t swap
    rng_seed(&rng, game_seed(master ^ 0x5354524154554D53ULL, <uint64_t> rotation))
    for h in range(36):
        for j in range(36):
            perm[h * 36 + j] = j
        for j in range(35, 0, -1):
            k = rng_below(&rng, j + 1)
            swap = perm[h * 36 + j]
            perm[h * 36 + j] = perm[h * 36 + k]
            perm[h * 36 + k] = swap


cdef int64_t _block(const JobC* job, const PositionC* starts, int targets, int color, object callback,
                    bint stratify, uint64_t master, int64_t first_index, int64_t games,
                    double[:, ::1] sums, double[:, :, ::1] first, double[:, ::1] cross,
                    int64_t[:, ::1] lengths, const int32_t[::1] stop, double* values,
                    ScratchC* scratch) except -1 nogil:
    cdef int64_t i, index
    cdef int k, j, stratum, length
    cdef PositionC pos
    cdef RngC rng
    cdef GameOutC out
    cdef double value
    cdef uint8_t perm[NUM_STRATA]
    cdef int fixed[2]
    cdef int64_t rotation = -1
    for i in range(games):
        if stop[0]:
            return i
        index = first_index + i
        stratum = -1
        if stratify:
            if index // NUM_STRATA != rotation:
                rotation = index // NUM_STRATA
                _rotation_perms(master, rotation, perm)
            j = <int> (index % NUM_STRATA)
            stratum = perm[(j % 36) * 36 + j // 36] * 36 + j % 36
            fixed[0] = stratum % 36
            fixed[1] = stratum // 36
        for k in range(targets):
            pos = starts[k]
            rng_seed(&rng, game_seed(master, <uint64_t> index))
            rollout_game(job, &pos, color, &rng, fixed, 2 if stratum >= 0 else 0, callback,
                         scratch, &out, NULL, 0)
            value = out.equity
            values[k] = value
            sums[k, 0] += 1.0
            sums[k, 1] += value
            sums[k, 2] += value * value
            sums[k, 3] += out.win
            sums[k, 4] += out.win_mars
            sums[k, 5] += out.lose_mars
            sums[k, 6] += out.draw
            sums[k, 7] += out.luck
            sums[k, 8] += out.luck * out.luck
            sums[k, 9] += value * out.luck
            sums[k, 10] += out.truncated
            sums[k, 11] += out.plies
            j = out.first_roll if out.first_roll >= 0 else (stratum % 36 if stratum >= 0 else 0)
            first[k, j, 0] += 1.0
            first[k, j, 1] += value
            first[k, j, 2] += value * value
            length = out.plies if out.plies < LENGTH_BINS else LENGTH_BINS - 1
            lengths[k, length] += 1
        if targets > 1:
            for k in range(targets):
                for j in range(targets):
                    cross[k, j] += values[k] * values[j]
    return games


def run_block(bytes rows, int color, int flags, int white_policy, int black_policy, object callback,
              Tables tables, bint truncate, bint luck, double scale, bint stratify, uint64_t master,
              int64_t first_index, int64_t games, double[:, ::1] sums, double[:, :, ::1] first,
              double[:, ::1] cross, int64_t[:, ::1] lengths, const int32_t[::1] stop):
    """Games first_index .. first_index + games - 1 of a job from each start row (K rows of
    51 bytes), added into sums[K, 12], first[K, 36, 3], cross[K, K], lengths[K, 512].
    Returns the games played (fewer when stop[0] became non-zero)."""
    cdef int targets = len(rows) // POSITION_WIDTH, k
    cdef PositionC* starts
    cdef double* values
    cdef ScratchC scratch
    cdef JobC job
    cdef int64_t done
    if len(rows) == 0 or len(rows) % POSITION_WIDTH:
        raise InvalidArgumentError(f"rows must be K >= 1 rows of {POSITION_WIDTH} bytes, not {len(rows)} bytes")
    _check_color(color)
    _check_flags(flags)
    _check_policy(white_policy, callback)
    _check_policy(black_policy, callback)
    if tables is None:
        raise InvalidArgumentError("run_block needs a Tables object (Tables() for none)")
    if first_index < 0 or games < 0:
        raise InvalidArgumentError(f"first_index {first_index} and games {games} must be >= 0")
    _check_shape("sums", sums, (targets, len(SUM_FIELDS)))
    _check_shape("first", first, (targets, 36, 3))
    _check_shape("cross", cross, (targets, targets))
    _check_shape("lengths", lengths, (targets, LENGTH_BINS))
    if stop.shape[0] < 1:
        raise InvalidArgumentError("stop must hold one flag")
    starts = <PositionC*> malloc(targets * sizeof(PositionC))
    values = <double*> malloc(targets * sizeof(double))
    scratch.ws = NULL
    scratch.moves = NULL
    try:
        if starts == NULL or values == NULL:
            raise MemoryError("no memory for the rollout loop")
        scratch_new(&scratch, 2)
        for k in range(targets):
            position_load_checked(&starts[k], rows[k * POSITION_WIDTH:(k + 1) * POSITION_WIDTH])
        _job_init(&job, flags, white_policy, black_policy, truncate, luck, scale, tables)
        if callback is None:
            with nogil:
                done = _block(&job, starts, targets, color, None, stratify, master, first_index, games,
                              sums, first, cross, lengths, stop, values, &scratch)
        else:
            done = _block(&job, starts, targets, color, callback, stratify, master, first_index, games,
                          sums, first, cross, lengths, stop, values, &scratch)
        return done
    finally:
        free(starts)
        free(values)
        scratch_free(&scratch)


def play_recorded(bytes row, int flags, int white_policy, int black_policy, object callback,
                  uint64_t seed, bint opening, int max_plies, Tables tables=None, double scale=1.0):
    """One self-play game with its record: (winner or -1 for a draw or a cut game, points,
    plies, cut at max_plies, opening dice or None, ply array uint8[plies, 12] = turn, d1, d2,
    nsteps, 4 x (from, to), final row). With `opening` the game starts with the one-die draw
    of RULES.md §2 (and with FLAG_OPENING_DICE the starter plays those two dice). `tables`
    serve the bearoff and lookahead policies (none by default)."""
    cdef PositionC pos
    cdef RngC rng
    cdef GameOutC out
    cdef RecordC rec
    cdef ScratchC scratch
    cdef JobC job
    cdef int dice[2]
    cdef int fixed[1]
    cdef int nfixed = 0, status = 0, starter
    _check_flags(flags)
    _check_policy(white_policy, callback)
    _check_policy(black_policy, callback)
    if max_plies < 0:
        raise InvalidArgumentError(f"max_plies {max_plies} must be >= 0")
    position_load_checked(&pos, row)
    scratch_new(&scratch, 2)
    rec.capacity = 256
    rec.size = 0
    rec.plies = <PlyC*> malloc(rec.capacity * sizeof(PlyC))
    try:
        if rec.plies == NULL:
            raise MemoryError("no memory for the game record")
        if tables is None:
            tables = Tables()      # kept alive by this local while the game runs
        _job_init(&job, flags, white_policy, black_policy, False, False, scale, tables)
        rng_seed(&rng, seed)
        if opening:
            starter = opening_draw(&rng, &dice[0], &dice[1])
            if starter != pos.turn:
                pos.turn = starter
                pos.key ^= zobrist_turn()
            if flags & FLAG_OPENING_DICE:
                fixed[0] = (dice[starter] - 1) * 6 + dice[1 - starter] - 1
                nfixed = 1
        if callback is not None:
            status = rollout_game(&job, &pos, 0, &rng, fixed, nfixed, callback, &scratch, &out, &rec, max_plies)
        else:
            with nogil:
                status = rollout_game(&job, &pos, 0, &rng, fixed, nfixed, None, &scratch, &out, &rec, max_plies)
        plies = np.frombuffer((<char*> rec.plies)[:rec.size * sizeof(PlyC)], dtype=np.uint8)
        plies = plies.reshape(rec.size, sizeof(PlyC)).copy()
        final = bytearray(POSITION_WIDTH)
        position_store(&pos, <uint8_t*> (<char*> final))
        winner = -1 if out.equity == 0 else (0 if out.equity > 0 else 1)
        return (winner, abs(int(out.equity)), out.plies, status == 1,
                (dice[0], dice[1]) if opening else None, plies, bytes(final))
    finally:
        scratch_free(&scratch)
        free(rec.plies)


cdef double _expectimax(const JobC* job, const PositionC* pos, int depth, MoveC* buffers,
                        WorkspaceC* ws, uint64_t* calls) except? -1e300 nogil:
    """Exact expectation over the 21 rolls, `depth` plies deep, for the side on roll.
    `calls` counts generator calls: every 2^14 of them, Ctrl-C is checked."""
    cdef int r, k, n, dead = -1
    cdef double total = 0.0, best, value
    cdef PositionC child
    if _is_over(pos):
        return _final_points(pos, pos.turn)
    if depth == 0:
        return position_value(job, pos, pos.turn)
    for r in range(21):
        calls[0] += 1
        if calls[0] % 16384 == 0:
            with gil:
                PyErr_CheckSignals()
        n = generate_moves(pos, ROLL_A[r], ROLL_B[r], job.flags, buffers, ws)
        if n < 0:
            with gil:
                raise OverflowError("more legal moves than the generator buffer holds")
        if n == 1 and buffers[0].nsteps == 0:
            if dead < 0:
                dead = position_is_dead(pos, job.flags)
            if dead:
                return 0.0
        best = -1e300
        for k in range(n):
            child = pos[0]
            apply_move(&child, &buffers[k])
            value = -_expectimax(job, &child, depth - 1, buffers + MAX_MOVES, ws, calls)
            if value > best:
                best = value
        total += ROLL_W[r] * best
    return total


def expectimax_value(bytes row, int depth, int flags, Tables tables not None, double scale):
    """Expectimax value of a row for its side on roll (leaves: position_value); Ctrl-C stops it."""
    cdef PositionC pos
    cdef JobC job
    cdef double value
    cdef ScratchC scratch
    cdef uint64_t calls = 0
    if not 0 <= depth <= MAX_EXPECTIMAX_DEPTH:
        raise InvalidArgumentError(f"expectimax depth {depth} must be from 0 to {MAX_EXPECTIMAX_DEPTH}")
    _check_flags(flags)
    position_load_checked(&pos, row)
    scratch_new(&scratch, depth + 1)       # one move list per level
    try:
        _job_init(&job, flags, POLICY_HEURISTIC, POLICY_HEURISTIC, False, False, scale, tables)
        with nogil:
            value = _expectimax(&job, &pos, depth, scratch.moves, scratch.ws, &calls)
        return value
    finally:
        scratch_free(&scratch)


def value(bytes row, int color, Tables tables not None, double scale):
    """position_value of a row for `color` (the evaluator of luck, lookahead and expectimax)."""
    cdef PositionC pos
    cdef JobC job
    _check_color(color)
    position_load_checked(&pos, row)
    _job_init(&job, 0, POLICY_HEURISTIC, POLICY_HEURISTIC, False, False, scale, tables)
    return position_value(&job, &pos, color)


def race(bytes row, Tables tables not None):
    """(equity, win, win_mars, lose_mars) of a covered no-contact race for the side on roll, or None."""
    cdef PositionC pos
    cdef double equity, win, win_mars, lose_mars
    position_load_checked(&pos, row)
    if race_value(&tables.c, &pos, &equity, &win, &win_mars, &lose_mars):
        return (equity, win, win_mars, lose_mars)
    return None
