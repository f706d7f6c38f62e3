# Training data by self-play (docs/net.md "Training"): games played by the net policy with
# frozen weights, turned into (position, lambda-return target) samples.
#
# Game i of a batch uses rng_seed(game_seed(master, i)) and starts from the initial position
# with White on roll (the colours are symmetric for the net: it sees the side on roll).
# Each game is played by the one game loop of rollout.pyx (policy "net" for both sides,
# truncated at a covered no-contact race), which keeps its states: with s_0 .. s_T the positions
# before each ply and V(s) the static value of s for its side on roll (exact at s_T: the
# final result, the race table's value, or a draw), the target of s_t is
#   G_t = flip((1 - lam) V(s_{t+1}) + lam G_{t+1}),   G_T = V(s_T) (flipped into s_{T-1})
# where flip swaps the views (win <-> loss and the mars terms): TD(lambda)'s forward view.

from libc.stdlib cimport realloc, free
from libc.string cimport memset
from libc.stdint cimport int64_t, uint64_t, uint8_t

import numpy as np

from fevga_core.errors import InvalidArgumentError

from fevga_core.types cimport PositionC, POSITION_WIDTH, FLAG_GIOUL
from fevga_core.board cimport position_store, fevga_flags_checked, check_interrupt_every
from fevga_core.movegen cimport ScratchC, scratch_new, scratch_free
from fevga_core.game cimport RngC, rng_seed, game_seed, POLICY_NET
from fevga_core.rollout cimport JobC, GameOutC, RecordC, MAX_RECORDED, play_game, gioul_play
from fevga_core.net cimport CoreNet
from fevga_core.race cimport Tables, no_tables
from fevga_core.search cimport EvaluatorC, static_value, flip
from fevga_core.types cimport GioulC, GIOUL_WIDTH
from fevga_core.gioul cimport CoreGioulNet
from fevga_core.state cimport gioul_initial, gioul_store
from fevga_core.net cimport NetC, net_evaluate, net_checked


# Growable sample arrays (malloc'd; the caller frees both): rows of `width` bytes
# (POSITION_WIDTH, or GIOUL_WIDTH for Gioul states).
ctypedef struct SamplesC:
    uint8_t* rows
    double* targets
    int64_t size
    int64_t capacity



cdef int _reserve(SamplesC* s, int64_t extra, int width) noexcept nogil:
    cdef int64_t want = s.size + extra
    cdef uint8_t* rows
    cdef double* targets
    if want <= s.capacity:
        return 0
    want = max(want, 2 * s.capacity)
    rows = <uint8_t*> realloc(s.rows, want * width)
    if rows == NULL:
        return -1
    s.rows = rows
    targets = <double*> realloc(s.targets, want * 3 * sizeof(double))
    if targets == NULL:
        return -1
    s.targets = targets
    s.capacity = want
    return 0


cdef inline void _lambda_step(double lam, const double* next_value, double* ret, double* target,
                              bint flipped) noexcept nogil:
    """target = (1 - lam) next_value + lam ret, flipped into the previous state's view when
    `flipped`; ret = target (the return G_t for the step before)."""
    cdef double mixed[3]
    cdef int k
    for k in range(3):
        mixed[k] = (1.0 - lam) * next_value[k] + lam * ret[k]
    if flipped:
        flip(mixed, target)
    else:
        target[0], target[1], target[2] = mixed[0], mixed[1], mixed[2]
    ret[0], ret[1], ret[2] = target[0], target[1], target[2]


cdef int _check_call(int64_t first_index, int64_t games, double lam) except -1:
    if not 0 <= games <= MAX_GAMES_PER_CALL or first_index < 0 or not 0.0 <= lam <= 1.0:
        raise InvalidArgumentError(f"games {games} must be in 0..{MAX_GAMES_PER_CALL}, first_index {first_index} "
                                   f">= 0 and lam {lam} in [0, 1]")
    return 0


cdef object _samples_arrays(const SamplesC* samples, int width):
    """(rows (n, width) uint8, targets (n, 3) float64): copies of the samples."""
    rows = np.frombuffer((<char*> samples.rows)[:samples.size * width], dtype=np.uint8)
    targets = np.frombuffer((<char*> samples.targets)[:samples.size * 3 * sizeof(double)], dtype=np.float64)
    return rows.reshape(samples.size, width).copy(), targets.reshape(samples.size, 3).copy()


# One game of a self-play batch: play the game of `seed` with what `ctx` holds, append its
# samples, set outcome[0..2] = its final value for White.
ctypedef int (*GameSamplesF)(void* ctx, uint64_t seed, double lam, SamplesC* samples,
                             double* outcome) except -1 nogil


cdef object _selfplay(void* ctx, GameSamplesF play, uint64_t master, int64_t first_index, int64_t games,
                      double lam, int width):
    """(rows (n, width), targets (n, 3), outcomes (games, 3)) of games first_index.. (checked by
    the caller), GIL released, Ctrl-C answered between games."""
    cdef SamplesC samples
    cdef int64_t i
    outcomes = np.zeros((games, 3), dtype=np.float64)
    cdef double[:, ::1] view = outcomes
    memset(&samples, 0, sizeof(SamplesC))
    try:
        with nogil:
            for i in range(games):
                check_interrupt_every(i, 16)
                play(ctx, game_seed(master, <uint64_t> (first_index + i)), lam, &samples, &view[i, 0])
        return (*_samples_arrays(&samples, width), outcomes)
    finally:
        free(samples.rows)
        free(samples.targets)


# What a self-play worker of either game keeps: its job, the evaluator of its targets, the
# states of the game being played and its scratch.
ctypedef struct SelfplayC:
    JobC job
    EvaluatorC ev
    GioulC* trail           # MAX_RECORDED + 1 states
    ScratchC scratch


cdef int _record_game(SelfplayC* c, uint64_t seed, GameOutC* out, int* points) except -1 nogil:
    """Play one seeded self-play game of the worker's job from the start (Gioul: from the
    one-die draw) into c.trail; returns the decisions played (`out` is Fevga's outcome,
    `points` Gioul's)."""
    cdef GioulC s
    cdef RngC rng
    cdef RecordC rec
    cdef int cut
    rec.decisions = NULL
    rec.trail = c.trail
    rng_seed(&rng, seed)
    if c.job.flags & FLAG_GIOUL:
        cut = gioul_play(&c.job, &s, &rng, False, &c.scratch, &rec, points)
    else:
        gioul_initial(&s, 0)
        cut = play_game(&c.job, &s, 0, &rng, NULL, 0, None, &c.scratch, out, &rec, 0)
    if cut:
        with gil:
            raise OverflowError(f"a self-play game longer than {MAX_RECORDED} decisions")
    return rec.size


cdef int _fevga_game(void* ctx, uint64_t seed, double lam, SamplesC* samples, double* outcome) except -1 nogil:
    """Play one Fevga game and append its samples; outcome[0..2] = the final value for White."""
    cdef SelfplayC* c = <SelfplayC*> ctx
    cdef GameOutC out
    cdef double next_value[3]
    cdef double ret[3]
    cdef int t, plies, unused
    cdef const PositionC* final
    plies = _record_game(c, seed, &out, &unused)
    if _reserve(samples, plies, POSITION_WIDTH) < 0:
        with gil:
            raise MemoryError("no memory for the training samples")
    for t in range(plies):
        position_store(&c.trail[t].pos, samples.rows + (samples.size + t) * POSITION_WIDTH)
    # G_T: the exact value of the last position for its side on roll
    final = &c.trail[plies].pos
    if out.draw > 0.0:
        ret[0], ret[1], ret[2] = 0.5, 0.0, 0.0
    else:
        static_value(&c.ev, final, ret)
    if final.turn == 0:
        outcome[0], outcome[1], outcome[2] = ret[0], ret[1], ret[2]
    else:
        flip(ret, outcome)
    for t in range(plies - 1, -1, -1):
        # ret = G_{t+1}; next_value = V(s_{t+1}), both for the side on roll at s_{t+1}
        if t == plies - 1:
            next_value[0], next_value[1], next_value[2] = ret[0], ret[1], ret[2]
        else:
            static_value(&c.ev, &c.trail[t + 1].pos, next_value)
        _lambda_step(lam, next_value, ret, samples.targets + (samples.size + t) * 3, True)
    samples.size += plies
    return 0


cdef object _run_selfplay(SelfplayC* c, GameSamplesF play, uint64_t master, int64_t first_index, int64_t games,
                          double lam, int width):
    """_selfplay with the worker's trail and scratch allocated around it."""
    trail = np.zeros((MAX_RECORDED + 1) * sizeof(GioulC), dtype=np.uint8)   # a game's states, kept alive here
    cdef uint8_t[::1] trail_bytes = trail
    c.trail = <GioulC*> &trail_bytes[0]
    scratch_new(&c.scratch, 2)
    try:
        return _selfplay(c, play, master, first_index, games, lam, width)
    finally:
        scratch_free(&c.scratch)


MAX_GAMES_PER_CALL = 1_000_000     # about 100 million samples: far beyond a training batch


def selfplay_samples(CoreNet net not None, Tables tables not None, int flags, uint64_t master,
                     int64_t first_index, int64_t games, double lam):
    """Samples of games first_index .. first_index + games - 1 played by the net with seed
    `master`: (rows (n, 51) uint8, targets (n, 3) float64, per-game outcomes for White (games, 3))."""
    cdef SelfplayC c
    cdef JobC* job = &c.job
    cdef EvaluatorC* ev = &c.ev
    _check_call(first_index, games, lam)
    net_checked(net)
    fevga_flags_checked(flags)
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
    job.qnet[0] = job.qnet[1] = job.value_qnet = NULL   # training plays the float net
    ev.net = &net.c
    ev.qnet = NULL
    ev.tables = &tables.c
    ev.flags = flags
    ev.every_move = False
    return _run_selfplay(&c, _fevga_game, master, first_index, games, lam, POSITION_WIDTH)


# ---------------------------------------------------------------------------------------
# Gioul (docs/net.md "Gioul net"): the same lambda-returns over the states of a game played
# by the "net" policy. A state s_t is the one before decision t (the start, then after each
# decision), valued for its side to decide; that side does not
# alternate (a chain's blocks, dice handed over), so a value is flipped only when the side
# to decide changes between s_t and s_{t+1}.

cdef void _final_value(int points, double* out) noexcept nogil:
    """The exact value of a game's end for a side that scored `points` (0: a draw, half a win)."""
    out[0], out[1], out[2] = 0.5, 0.0, 0.0
    if points:
        out[0] = 1.0 if points > 0 else 0.0
        out[1] = 1.0 if points == 2 else 0.0
        out[2] = 1.0 if points == -2 else 0.0


cdef int _gioul_game(void* ctx, uint64_t seed, double lam, SamplesC* samples, double* outcome) except -1 nogil:
    """Play one Gioul game and append its samples; outcome[0..2] = the final value for White."""
    cdef SelfplayC* c = <SelfplayC*> ctx
    cdef GameOutC unused
    cdef GioulC* trail = c.trail
    cdef double next_value[3]
    cdef double ret[3]
    cdef int t, plies, points
    cdef const NetC* net = c.job.net[0]
    plies = _record_game(c, seed, &unused, &points)
    if _reserve(samples, plies, GIOUL_WIDTH) < 0:
        with gil:
            raise MemoryError("no memory for the training samples")
    _final_value(points if trail[plies].pos.turn == 0 else -points, ret)
    _final_value(points, outcome)
    for t in range(plies - 1, -1, -1):
        # ret = G_{t+1}, next_value = V(s_{t+1}): both for the side to decide at s_{t+1}
        if t == plies - 1:
            next_value[0], next_value[1], next_value[2] = ret[0], ret[1], ret[2]
        else:
            net_evaluate(net, &trail[t + 1], next_value)
        _lambda_step(lam, next_value, ret, samples.targets + (samples.size + t) * 3,
                     trail[t].pos.turn != trail[t + 1].pos.turn)
        gioul_store(&trail[t], samples.rows + (samples.size + t) * GIOUL_WIDTH)
    samples.size += plies
    return 0


def gioul_selfplay_samples(CoreGioulNet net not None, uint64_t master, int64_t first_index, int64_t games,
                           double lam):
    """Samples of Gioul games first_index .. first_index + games - 1 played by the net with seed
    `master`: (state rows (n, 58) uint8, targets (n, 3) float64, per-game outcomes for White (games, 3))."""
    cdef SelfplayC c
    cdef JobC* job = &c.job
    _check_call(first_index, games, lam)
    net_checked(net)
    job.flags = FLAG_GIOUL
    job.policy[0] = POLICY_NET
    job.policy[1] = POLICY_NET
    job.truncate = False        # not truncated: no Gioul bear-off override in training
    job.luck = False
    job.scale = 1.0
    job.tables = no_tables()
    job.net[0] = &net.c
    job.net[1] = &net.c
    job.value_net = NULL
    job.qnet[0] = job.qnet[1] = job.value_qnet = NULL
    return _run_selfplay(&c, _gioul_game, master, first_index, games, lam, GIOUL_WIDTH)
