# Seeded randomness and the built-in move-choice policies (the game loop: rollout.pyx).
#
# Randomness: xoshiro256** seeded by splitmix64. Game i of a job with master seed M uses
# rng_seed(game_seed(M, i)), so a game's dice never depend on which worker plays it or
# how many games ran before it. Draws are unbiased (Lemire's multiply-and-reject):
#   roll   = rng_below(36) -> dice (roll // 6 + 1, roll % 6 + 1)
#   choice = rng_below(n)  -> index into the generator's move list
#   opening one-die draw: rng_below(6) + 1 for White, then for Black, rerolled on ties.

from fevga_core.types cimport PositionC, MoveC, SideC, uint8_t, uint32_t, uint64_t
from fevga_core.board cimport (
    side_pips, rotate12, longest_run, mix64, position_load_checked, __builtin_popcount, __builtin_ctz,
)
from fevga_core.movegen cimport apply_move

from fevga_core.errors import InvalidArgumentError

MAX_RNG_OUTPUTS = 1 << 20   # rng_outputs returns a Python list: a bound on its size


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef void rng_seed(RngC* rng, uint64_t seed) noexcept nogil:
    cdef int i
    for i in range(4):
        seed += 0x9E3779B97F4A7C15ULL
        rng.s[i] = mix64(seed)


cdef uint64_t rng_next(RngC* rng) noexcept nogil:
    cdef uint64_t result = _rotl(rng.s[1] * 5, 7) * 9
    cdef uint64_t t = rng.s[1] << 17
    rng.s[2] ^= rng.s[0]
    rng.s[3] ^= rng.s[1]
    rng.s[1] ^= rng.s[2]
    rng.s[0] ^= rng.s[3]
    rng.s[2] ^= t
    rng.s[3] = _rotl(rng.s[3], 45)
    return result


cdef uint32_t rng_below(RngC* rng, uint32_t n) noexcept nogil:
    """Uniform integer in [0, n), n >= 1, without modulo bias."""
    cdef uint64_t m = (rng_next(rng) >> 32) * n
    cdef uint32_t low = <uint32_t> m
    cdef uint32_t threshold
    if low < n:
        threshold = (<uint32_t> -n) % n
        while low < threshold:
            m = (rng_next(rng) >> 32) * n
            low = <uint32_t> m
    return <uint32_t> (m >> 32)


cdef uint64_t game_seed(uint64_t master, uint64_t index) noexcept nogil:
    """The seed of game `index` of a job: independent of workers and of game order."""
    return mix64(master ^ mix64(index + 0x9E3779B97F4A7C15ULL))


cdef void roll_dice(RngC* rng, int* d1, int* d2) noexcept nogil:
    cdef uint32_t r = rng_below(rng, 36)
    d1[0] = r // 6 + 1
    d2[0] = r % 6 + 1


cdef double heuristic_eval(const PositionC* pos, int color) noexcept nogil:
    """Static value of `pos` for `color` (higher is better); features in docs/rollout.md.

    Terms, all from `color`'s side (me) against the other (opp):
      race       opp pips - my pips
      blocks     my points among the six in front of each opposing point, x 4
      prime      (longest run of my consecutive points)^2, x 0.8
      trapped    opposing checkers whose six front points are all mine, x 3
      escaped    my checkers past every opposing checker, x 1.5
      bear-off   my checkers off x 3 + my checkers home x 1
      stacks     minus 1 per checker beyond the third on a point
    and the same terms for the opponent subtracted, so eval(me) == -eval(opp).
    """
    return _side_value(&pos.side[color], &pos.side[1 - color]) - _side_value(&pos.side[1 - color], &pos.side[color])


cdef double _side_value(const SideC* me, const SideC* opp) noexcept nogil:
    cdef uint32_t opp_mask = opp.mask
    cdef uint32_t front = 0, mine_opp_view = rotate12(me.mask), rest
    cdef int k, shift, blocks, trapped = 0, escaped = 0, home = 0, stacks = 0, lowest_opp, p
    cdef double value
    for shift in range(1, 7):
        front |= opp_mask >> shift
    blocks = __builtin_popcount(front & mine_opp_view)
    rest = opp_mask & ~0x3Fu
    while rest:
        k = __builtin_ctz(rest) + 1
        rest &= rest - 1
        if ((mine_opp_view >> (k - 7)) & 0x3F) == 0x3F:
            trapped += opp.counts[k]
    # my checkers below every opposing checker (my numbering) have escaped
    lowest_opp = 25
    if opp_mask:
        lowest_opp = __builtin_ctz(rotate12(opp_mask)) + 1
    for p in range(1, 25):
        if me.counts[p]:
            if p < lowest_opp:
                escaped += me.counts[p]
            if p <= 6:
                home += me.counts[p]
            if me.counts[p] > 3:
                stacks += me.counts[p] - 3
    value = -side_pips(me)
    value += 4.0 * blocks
    k = longest_run(me.mask)
    value += 0.8 * k * k
    value += 3.0 * trapped + 1.5 * escaped
    value += 3.0 * me.counts[0] + home
    value -= stacks
    return value


cdef int choose_move(const PositionC* pos, const MoveC* moves, int n, int policy, RngC* rng) noexcept nogil:
    """Index of the move a built-in policy plays."""
    cdef int k, best = 0
    cdef double value, best_value = -1e300
    cdef PositionC child
    if n == 1:
        return 0
    if policy == POLICY_RANDOM:
        return rng_below(rng, n)
    for k in range(n):
        child = pos[0]
        apply_move(&child, &moves[k])
        value = heuristic_eval(&child, pos.turn)
        if value > best_value:
            best_value = value
            best = k
    return best


cdef int opening_draw(RngC* rng, int* white_die, int* black_die) noexcept nogil:
    """docs/rules.md §2 one-die draw; returns the starter (0 White, 1 Black)."""
    while True:
        white_die[0] = rng_below(rng, 6) + 1
        black_die[0] = rng_below(rng, 6) + 1
        if white_die[0] != black_die[0]:
            return 0 if white_die[0] > black_die[0] else 1


def evaluate(row, int color):
    """heuristic_eval of a flat row (validated) for `color`."""
    cdef PositionC pos
    if color != 0 and color != 1:
        raise InvalidArgumentError(f"color {color} must be WHITE (0) or BLACK (1)")
    position_load_checked(&pos, row)
    return heuristic_eval(&pos, color)


def rng_outputs(uint64_t seed, int n):
    """The first `n` raw outputs of the generator seeded with `seed` (known-answer tests)."""
    cdef RngC rng
    if not 0 <= n <= MAX_RNG_OUTPUTS:
        raise InvalidArgumentError(f"rng_outputs count {n} must be from 0 to {MAX_RNG_OUTPUTS}")
    rng_seed(&rng, seed)
    return [rng_next(&rng) for _ in range(n)]


def game_seed_of(uint64_t master, uint64_t index):
    """The seed of game `index` in a job with master seed `master`."""
    return game_seed(master, index)
