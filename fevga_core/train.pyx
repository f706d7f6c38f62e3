# Training data by self-play (docs/net.md "Training"): games played by the net policy with
# frozen weights, turned into (position, lambda-return target) samples.
#
# Game i of a batch uses rng_seed(game_seed(master, i)) and starts from the initial position
# with White on roll (the colours are symmetric for the net: it sees the side on roll).
# Each game is played by the game loop of rollout.pyx (policy "net" for both sides,
# truncated at a covered no-contact race), then replayed: with s_0 .. s_T the positions
# before each ply and V(s) the static value of s for its side on roll (exact at s_T: the
# final result, the race table's value, or a draw), the target of s_t is
#   G_t = flip((1 - lam) V(s_{t+1}) + lam G_{t+1}),   G_T = V(s_T) (flipped into s_{T-1})
# where flip swaps the views (win <-> loss and the mars terms): TD(lambda)'s forward view.

from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from libc.stdint cimport int64_t, uint64_t, uint8_t

import numpy as np

from fevga_core.errors import InvalidArgumentError

from fevga_core.types cimport PositionC, NUM_CHECKERS, POSITION_WIDTH
from fevga_core.board cimport position_load, position_store, position_update, fevga_flags_checked, check_interrupt
from fevga_core.movegen cimport ScratchC, scratch_new, scratch_free
from fevga_core.game cimport RngC, rng_seed, game_seed, POLICY_NET
from fevga_core.rollout cimport JobC, GameOutC, RecordC, PlyC, rollout_game
from fevga_core.net cimport CoreNet
from fevga_core.race cimport Tables
from fevga_core.search cimport EvaluatorC, static_value, flip


cdef void replay_ply(PositionC* pos, const PlyC* ply) noexcept nogil:
    """Apply a recorded ply (its steps in the mover's numbering) and pass the turn."""
    cdef int i
    cdef int mover = ply.turn
    for i in range(ply.nsteps):
        pos.side[mover].counts[ply.steps[i][0]] -= 1
        pos.side[mover].counts[ply.steps[i][1]] += 1
    pos.turn = 1 - mover
    position_update(pos)


# Growable sample arrays (malloc'd; the caller frees both).
ctypedef struct SamplesC:
    uint8_t* rows
    double* targets
    int64_t size
    int64_t capacity


cdef int _reserve(SamplesC* s, int64_t extra) noexcept nogil:
    cdef int64_t want = s.size + extra
    cdef uint8_t* rows
    cdef double* targets
    if want <= s.capacity:
        return 0
    want = max(want, 2 * s.capacity)
    rows = <uint8_t*> realloc(s.rows, want * POSITION_WIDTH)
    if rows == NULL:
        return -1
    s.rows = rows
    targets = <double*> realloc(s.targets, want * 3 * sizeof(double))
    if targets == NULL:
        return -1
    s.targets = targets
    s.capacity = want
    return 0


cdef int _game_samples(const JobC* job, const EvaluatorC* ev, uint64_t seed, double lam,
                       ScratchC* scratch, RecordC* rec, SamplesC* samples, double* outcome) except -1 nogil:
    """Play one game and append its samples; outcome[0..2] = the final value for White."""
    cdef PositionC pos, start
    cdef RngC rng
    cdef GameOutC out
    cdef double next_value[3]
    cdef double ret[3]
    cdef double mixed[3]
    cdef double* target
    cdef int t, k, plies
    memset(&start, 0, sizeof(PositionC))
    start.side[0].counts[24] = NUM_CHECKERS
    start.side[1].counts[24] = NUM_CHECKERS
    position_update(&start)
    pos = start
    rng_seed(&rng, seed)
    rec.size = 0
    rollout_game(job, &pos, 0, &rng, NULL, 0, None, scratch, &out, rec, 0)
    plies = rec.size
    if _reserve(samples, plies) < 0:
        with gil:
            raise MemoryError("no memory for the training samples")
    # positions s_0 .. s_{T-1} as rows; the final one in pos
    pos = start
    for t in range(plies):
        position_store(&pos, samples.rows + (samples.size + t) * POSITION_WIDTH)
        replay_ply(&pos, &rec.plies[t])
    # G_T: the exact value of the last position for its side on roll
    if out.draw > 0.0:
        ret[0], ret[1], ret[2] = 0.5, 0.0, 0.0
    else:
        static_value(ev, &pos, ret)
    if pos.turn == 0:
        outcome[0], outcome[1], outcome[2] = ret[0], ret[1], ret[2]
    else:
        flip(ret, outcome)
    for t in range(plies - 1, -1, -1):
        # ret = G_{t+1}; next_value = V(s_{t+1}), both for the side on roll at s_{t+1}
        if t == plies - 1:
            next_value[0], next_value[1], next_value[2] = ret[0], ret[1], ret[2]
        else:
            position_load(&pos, samples.rows + (samples.size + t + 1) * POSITION_WIDTH)
            static_value(ev, &pos, next_value)
        for k in range(3):
            mixed[k] = (1.0 - lam) * next_value[k] + lam * ret[k]
        target = samples.targets + (samples.size + t) * 3
        flip(mixed, target)
        ret[0], ret[1], ret[2] = target[0], target[1], target[2]
    samples.size += plies
    return 0


MAX_GAMES_PER_CALL = 1_000_000     # about 100 million samples: far beyond a training batch


def selfplay_samples(CoreNet net not None, Tables tables not None, int flags, uint64_t master,
                     int64_t first_index, int64_t games, double lam):
    """Samples of games first_index .. first_index + games - 1 played by the net with seed
    `master`: (rows (n, 51) uint8, targets (n, 3) float64, per-game outcomes for White (games, 3))."""
    cdef JobC job
    cdef EvaluatorC ev
    cdef ScratchC scratch
    cdef RecordC rec
    cdef SamplesC samples
    cdef int64_t i
    cdef double[:, ::1] outcomes_view
    if not 0 <= games <= MAX_GAMES_PER_CALL or first_index < 0 or not 0.0 <= lam <= 1.0:
        raise InvalidArgumentError(f"games {games} must be in 0..{MAX_GAMES_PER_CALL}, first_index {first_index} "
                                   f">= 0 and lam {lam} in [0, 1]")
    fevga_flags_checked(flags)
    outcomes = np.zeros((games, 3), dtype=np.float64)
    outcomes_view = outcomes
    job.flags = flags
    job.policy[0] = POLICY_NET
    job.policy[1] = POLICY_NET
    job.truncate = True
    job.luck = False
    job.scale = 1.0
    job.tables = &tables.c
    job.net[0] = &net.c
    job.net[1] = &net.c
    job.value_net = &net.c
    ev.net = &net.c
    ev.tables = &tables.c
    ev.flags = flags
    samples.size = 0
    samples.capacity = 0
    samples.rows = NULL
    samples.targets = NULL
    rec.capacity = 256
    rec.size = 0
    rec.plies = <PlyC*> malloc(rec.capacity * sizeof(PlyC))
    scratch_new(&scratch, 2)
    try:
        if rec.plies == NULL:
            raise MemoryError("no memory for the game record")
        with nogil:
            for i in range(games):
                if i % 64 == 63:
                    check_interrupt()
                _game_samples(&job, &ev, game_seed(master, <uint64_t> (first_index + i)), lam,
                              &scratch, &rec, &samples, &outcomes_view[i, 0])
        rows = np.frombuffer((<char*> samples.rows)[:samples.size * POSITION_WIDTH], dtype=np.uint8)
        targets = np.frombuffer((<char*> samples.targets)[:samples.size * 3 * sizeof(double)], dtype=np.float64)
        return rows.reshape(samples.size, POSITION_WIDTH).copy(), targets.reshape(samples.size, 3).copy(), outcomes
    finally:
        free(samples.rows)
        free(samples.targets)
        free(rec.plies)
        scratch_free(&scratch)
