# Gioul rollouts (docs/rollout.md, "Gioul"): the block runner with the output contract of
# fevga_core.rollout.run_block, over Gioul game states (gioul.pxd).
#
# A job is K start states (58-byte Gioul rows, gioul.pyx) played from the point of view of
# one colour. Game i of the job draws every die and every random policy choice from
# rng_seed(game_seed(master, i)) for every start state (common random numbers); with
# stratification the game's first two RANDOM rolls are those of the shared schedule
# (rollout.strata_rolls: every rotation of 1,296 games plays each ordered pair once). A start
# state waiting for a roll makes its first random roll at once; a state with dice pending
# makes it once the pending dice are played (or lost). The sums, first-roll, cross-product
# and length arrays are filled by the same code as Fevga's (rollout.add_game, add_cross):
#   plies        = random rolls made in the game (a chain with its hand-overs is one roll)
#   first roll   = the game's first random roll (the stratum's for a game that makes none)
#   luck         = sum over the random rolls of (value after the roll's decisions) minus the
#                  mean of that value over the 36 rolls, from the root side's view; every
#                  roll's decisions (blocks, hand-overs) are played by the heuristic policy
#                  and the value is the evaluator below (gioul_roll_values)
#   truncated    = stopped at a covered no-contact race, scored from the (Gioul) tables
#
# Evaluator (gioul_value): final points of a finished game; a state whose roll is due with
# both sides at their fourth roll or later (every double a chain: the assumption of Gioul
# bear-off tables) goes through rollout.position_value (covered race from the job's tables,
# else the heuristic); any other state tanh(heuristic_eval / scale).

from libc.stdlib cimport malloc, free
from libc.math cimport tanh

from fevga_core.types cimport (
    PositionC, MoveC, uint8_t, uint64_t, int32_t, int64_t, MAX_MOVES, POSITION_WIDTH, FLAG_GIOUL, NUM_ROLLS,
)
from fevga_core.movegen cimport ScratchC, scratch_new, scratch_free, position_is_dead
from fevga_core.board cimport ROLL_D1, ROLL_D2, ROLL_WEIGHT
from fevga_core.game cimport RngC, rng_seed, game_seed, roll_dice, heuristic_eval, choose_move, POLICY_RANDOM, POLICY_HEURISTIC
from fevga_core.race cimport Tables
from fevga_core.rollout cimport (
    JobC, GameOutC, StrataC, position_value, check_block_args, strata_init, strata_rolls,
    score_final, score_race, score_draw, add_game, add_cross,
)
from fevga_core.gioul cimport GioulC, gioul_begin_roll, gioul_pending_moves, gioul_apply, gioul_over, _load

import numpy as np

from fevga_core.errors import InvalidArgumentError, InvalidPositionError
from fevga_core.gioul import first_invalid_row

GIOUL_ROW = POSITION_WIDTH + 7      # gioul.GIOUL_WIDTH: board row, rolls[2], roller, die, count, last, pair
POLICIES = (POLICY_RANDOM, POLICY_HEURISTIC)


cdef inline bint _tables_apply(const GioulC* s) noexcept nogil:
    """A roll is due and every double of both sides is a chain: what Gioul tables value."""
    return s.count == 0 and s.rolls[0] >= 3 and s.rolls[1] >= 3


cdef double gioul_value(const JobC* job, const GioulC* s, int color) noexcept nogil:
    """The evaluator's equity of a Gioul state for `color` (top comment)."""
    if gioul_over(s) or _tables_apply(s):
        return position_value(job, &s.pos, color)
    return tanh(heuristic_eval(&s.pos, color) / job.scale)


cdef inline int _roll_index(int d1, int d2) noexcept nogil:
    """Index of the roll d1-d2 in the core's roll table (ROLL_D1 <= ROLL_D2)."""
    cdef int r, low = d1 if d1 < d2 else d2, high = d2 if d1 < d2 else d1
    for r in range(NUM_ROLLS):
        if ROLL_D1[r] == low and ROLL_D2[r] == high:
            return r
    return 0


cdef int gioul_roll_values(const JobC* job, const GioulC* s, double* values, double* mean,
                           MoveC* moves, ScratchC* scratch) except -1 nogil:
    """For each of the 21 rolls of the side to roll in `s` (no dice pending): the value for it
    of the state once the roll's every decision (its blocks and any hand-overs) is played by
    the heuristic policy, into values[21]; their mean over the 36 rolls into mean[0]. `moves`
    is a move list other than the one the game is using."""
    cdef int r, n, k, roller = s.pos.turn
    cdef GioulC t
    cdef RngC unused          # the heuristic policy draws nothing
    mean[0] = 0.0
    for r in range(NUM_ROLLS):
        t = s[0]
        gioul_begin_roll(&t, ROLL_D1[r], ROLL_D2[r])
        while t.count and not gioul_over(&t):
            n = gioul_pending_moves(&t, moves, scratch.ws)
            if n < 0:
                with gil:
                    raise OverflowError("more legal moves than the generator buffer holds")
            k = choose_move(&t.pos, moves, n, POLICY_HEURISTIC, &unused) if n > 1 else 0
            gioul_apply(&t, &moves[k])
        values[r] = gioul_value(job, &t, roller)
        mean[0] += ROLL_WEIGHT[r] * values[r]
    return 0


cdef int gioul_rollout_game(const JobC* job, GioulC* s, int color, RngC* rng, const int* fixed_rolls,
                            int nfixed, ScratchC* scratch, GameOutC* out) except -1 nogil:
    """Play the Gioul state `s` to the end or to truncation; fill `out` for `color`. The first
    `nfixed` random rolls are fixed_rolls[i] (roll index (d1 - 1) * 6 + (d2 - 1)), later ones
    drawn from `rng`. scratch needs two move lists (the second for the luck)."""
    cdef int d1, d2, n, k
    cdef bint rolled
    cdef double mean
    cdef double values[NUM_ROLLS]
    cdef GioulC before
    out.plies = 0
    out.luck = 0.0
    out.truncated = False
    out.first_roll = -1
    out.draw = 0.0
    while True:
        if gioul_over(s):
            score_final(out, &s.pos, color)
            return 0
        rolled = s.count == 0
        if rolled:
            if job.truncate and _tables_apply(s) and score_race(out, job.tables, &s.pos, color):
                return 0
            if out.plies < nfixed:
                d1 = fixed_rolls[out.plies] // 6 + 1
                d2 = fixed_rolls[out.plies] % 6 + 1
            else:
                roll_dice(rng, &d1, &d2)
            if out.plies == 0:
                out.first_roll = (d1 - 1) * 6 + (d2 - 1)
            if job.luck:
                before = s[0]       # the luck is measured once the roll is known not to be a dead pass
            gioul_begin_roll(s, d1, d2)
            out.plies += 1
        n = gioul_pending_moves(s, scratch.moves, scratch.ws)
        if n < 0:
            with gil:
                raise OverflowError("more legal moves than the generator buffer holds")
        if n == 1 and scratch.moves[0].nsteps == 0 and position_is_dead(&s.pos, FLAG_GIOUL):
            score_draw(out)
            return 0
        if rolled and job.luck:
            # luck = value of the roll rolled minus the mean over all 36 rolls (mean zero)
            gioul_roll_values(job, &before, values, &mean, scratch.moves + MAX_MOVES, scratch)
            if before.pos.turn == color:
                out.luck += values[_roll_index(d1, d2)] - mean
            else:
                out.luck += mean - values[_roll_index(d1, d2)]
        k = choose_move(&s.pos, scratch.moves, n, job.policy[s.pos.turn], rng) if n > 1 else 0
        gioul_apply(s, &scratch.moves[k])


cdef int64_t _block(const JobC* job, const GioulC* starts, int targets, int color, bint stratify,
                    uint64_t master, int64_t first_index, int64_t games, double[:, ::1] sums,
                    double[:, :, ::1] first, double[:, ::1] cross, int64_t[:, ::1] lengths,
                    const int32_t[::1] stop, const double* weights, double* values,
                    ScratchC* scratch) except -1 nogil:
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
            gioul_rollout_game(job, &s, color, &rng, fixed, 2 if stratum >= 0 else 0, scratch, &out)
            values[k] = add_game(&out, stratum, weights, &sums[k, 0], &first[k, 0, 0], &lengths[k, 0])
        add_cross(&cross[0, 0], values, targets)
    return games


# ---------------------------------------------------------------------------------------
# Python entry points: every row is validated here (the kernels trust GioulC).

cdef int _states_checked(GioulC* states, bytes rows) except -1:
    """Fill states[] from K 58-byte Gioul rows, or raise InvalidPositionError naming the first
    bad row and its problem (gioul.first_invalid_row: the board, then the roll counts and
    pending dice exactly as fevga.gioul.GioulPosition.from_counts accepts them)."""
    cdef int k, width = POSITION_WIDTH + 7, targets = len(rows) // width
    cdef const uint8_t* raw = rows
    bad, problem = first_invalid_row(np.frombuffer(rows, dtype=np.uint8).reshape(targets, width))
    if bad >= 0:
        raise InvalidPositionError(f"Gioul row {bad}: {problem}")
    for k in range(targets):
        _load(&states[k], raw + k * width)
    return 0


cdef int _job_init(JobC* job, int white_policy, int black_policy, bint truncate, bint luck, double scale,
                   Tables tables) except -1:
    for policy in (white_policy, black_policy):
        if policy not in POLICIES:
            raise InvalidArgumentError(f"Gioul policy id {policy} must be one of {POLICIES} (random, heuristic)")
    if tables is None:
        raise InvalidArgumentError("a Gioul rollout needs a Tables object (Tables() for none)")
    if not scale > 0.0:
        raise InvalidArgumentError(f"scale {scale} must be > 0")
    job.flags = FLAG_GIOUL
    job.policy[0] = white_policy
    job.policy[1] = black_policy
    job.truncate = truncate
    job.luck = luck
    job.scale = scale
    job.tables = &tables.c
    job.net[0] = job.net[1] = job.value_net = NULL
    return 0


def run_block(bytes rows, int color, int white_policy, int black_policy, Tables tables, bint truncate,
              bint luck, double scale, bint stratify, uint64_t master, int64_t first_index, int64_t games,
              double[:, ::1] sums, double[:, :, ::1] first, double[:, ::1] cross, int64_t[:, ::1] lengths,
              const int32_t[::1] stop, const double[::1] match_weights=None):
    """Games first_index .. first_index + games - 1 of a Gioul job from each start row (K rows
    of 58 bytes), added into sums[K, 15], first[K, 36, 3], cross[K, K], lengths[K, 512], with
    the optional match weights, exactly as fevga_core.rollout.run_block; GIL released. Returns
    the games played (fewer when stop[0] became non-zero)."""
    cdef int targets = len(rows) // GIOUL_ROW, k
    cdef GioulC* starts
    cdef double* values
    cdef ScratchC scratch
    cdef JobC job
    cdef int64_t done
    cdef const double* weights = NULL
    if len(rows) == 0 or len(rows) % GIOUL_ROW:
        raise InvalidArgumentError(f"rows must be K >= 1 Gioul rows of {GIOUL_ROW} bytes, not {len(rows)} bytes")
    if color != 0 and color != 1:
        raise InvalidArgumentError(f"color {color} must be WHITE (0) or BLACK (1)")
    _job_init(&job, white_policy, black_policy, truncate, luck, scale, tables)
    check_block_args(targets, first_index, games, sums, first, cross, lengths, stop, match_weights)
    if match_weights is not None:
        weights = &match_weights[0]
    starts = <GioulC*> malloc(targets * sizeof(GioulC))
    values = <double*> malloc(targets * sizeof(double))
    scratch.ws = NULL
    scratch.moves = NULL
    try:
        if starts == NULL or values == NULL:
            raise MemoryError("no memory for the rollout loop")
        _states_checked(starts, rows)
        scratch_new(&scratch, 2)
        with nogil:
            done = _block(&job, starts, targets, color, stratify, master, first_index, games,
                          sums, first, cross, lengths, stop, weights, values, &scratch)
        return done
    finally:
        free(starts)
        free(values)
        scratch_free(&scratch)


def roll_values(bytes row, Tables tables not None, double scale):
    """(values[21], mean) of gioul_roll_values for a Gioul row whose roll is due: each roll's
    value for the side to roll once the heuristic policy has played all its decisions."""
    cdef GioulC s
    cdef JobC job
    cdef ScratchC scratch
    cdef double values[NUM_ROLLS]
    cdef double mean
    if len(row) != GIOUL_ROW:
        raise InvalidArgumentError(f"row must be one Gioul row of {GIOUL_ROW} bytes, not {len(row)} bytes")
    _states_checked(&s, row)
    if s.count or gioul_over(&s):
        raise InvalidArgumentError("roll values need a state whose roll is due (no dice pending, game not over)")
    _job_init(&job, POLICY_HEURISTIC, POLICY_HEURISTIC, False, True, scale, tables)
    scratch.ws = NULL
    scratch.moves = NULL
    try:
        scratch_new(&scratch, 1)
        with nogil:
            gioul_roll_values(&job, &s, values, &mean, scratch.moves, &scratch)
        return [values[r] for r in range(NUM_ROLLS)], mean
    finally:
        scratch_free(&scratch)


def value(bytes row, int color, Tables tables not None, double scale):
    """gioul_value of a Gioul row for `color`: the evaluator of Gioul luck."""
    cdef GioulC s
    cdef JobC job
    if len(row) != GIOUL_ROW:
        raise InvalidArgumentError(f"row must be one Gioul row of {GIOUL_ROW} bytes, not {len(row)} bytes")
    if color != 0 and color != 1:
        raise InvalidArgumentError(f"color {color} must be WHITE (0) or BLACK (1)")
    _states_checked(&s, row)
    _job_init(&job, POLICY_HEURISTIC, POLICY_HEURISTIC, False, False, scale, tables)
    return gioul_value(&job, &s, color)
