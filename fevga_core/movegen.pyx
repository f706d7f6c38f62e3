# Legal-move generation (docs/rules.md §3-§7 and the §6 full-turn procedure).
#
# One call enumerates the turn depth-first: every node (the empty sequence included) is a
# candidate. Only the mover's side changes during a turn, so a node is the mover's SideC.
# Where a node can repeat, it also carries its Zobrist key relative to the root (the XOR of
# its steps' key changes), and a node already expanded with the same dice left is skipped
# (a transposition), which both prunes the search and deduplicates the results.
#
# Candidates are ranked by one integer score, highest kept (docs/rules.md §6 steps 2-5):
#   -1                          broken end-of-turn restriction (variants): dropped
#   16 * fulfils_obligation     rule 5.2 / must_open variant, when it applies
#   + 2 * dice_played
#   + 1 if a single die of a non-double was played and it was the larger one
# The result is every distinct node with the top score: the legal moves. A node is
# recorded after its children (so the many intermediate nodes that children outscore are
# never copied), and when no rule filter is active the last die's nodes are scored inline.
#
# Which nodes can repeat (so which need the visited set): none at depth 1 (one die from the
# root: each source gives another position, and the two dice of a pair are salted apart),
# and none in a double searched in canonical order. There a node is a non-increasing
# sequence of sources, so one per multiset M of sources, and M is a function of the
# position it reaches: with m_p sources on own point p, the change of point p's count is
# m_{p+d} - m_p (arrivals come only from p + d; a bear-off lands on slot 0), which fixes
# m_24, m_23, ..., m_1 in turn. Nor in one order of a pair (die d1 from s, then d2 from x):
# the position fixes s and x, as a step's landing fixes its source for a given die, and a root
# has at most one point that bears off with a given die (that point, or the highest point for a
# larger die). Across the two orders pair_search knows the repeats from the steps (its
# docstring), so only the generic search's deeper pair nodes and the deeper nodes of doubles
# not searched in canonical order are looked up, and those only from depth 3 and when
# double_level finds that a node may repeat (its docstring).

cimport cython
from libc.stdint cimport SIZE_MAX
from libc.stdlib cimport malloc, free
from libc.string cimport memset, memcpy
from cpython.mem cimport PyMem_Malloc, PyMem_Free

from collections.abc import Sequence
from operator import index as operator_index

from fevga_core.errors import InvalidArgumentError

from fevga_core.types cimport (
    SideC, PositionC, MoveC, uint8_t, uint32_t, uint64_t,
    NUM_POINTS, NUM_SLOTS, NUM_CHECKERS, NUM_ROLLS, MAX_STEPS, MAX_MOVES,
    FLAG_RELEASE_REACH, FLAG_QUARTER_END_OF_TURN, FLAG_BAN_PRIME, FLAG_MUST_OPEN_NO_PLAYABLE,
    FLAG_GIOUL, BOARD_MASK, HOME_MASK, START_QUARTER_MASK, BEFORE_OPP_MOTHER_MASK, MOTHER_BIT,
)
from fevga_core.board cimport (
    ROLL_D1, ROLL_D2, zobrist_table, rotate12, highest_point,
    __builtin_ctz, __builtin_popcount,
)

# Salts that separate visited entries by the dice still to play: index = dice state
# (non-double: bit 0 = first die used, bit 1 = second die used; double: dice used).
cdef uint64_t STATE_SALT[5]
STATE_SALT[:] = [0x0ULL, 0x9E3779B97F4A7C15ULL, 0xC2B2AE3D27D4EB4FULL,
                 0x165667B19E3779F9ULL, 0xD6E8FEB86659FD93ULL]


# ZOBRIST_STEP[(color * 25 + slot) * 16 + c] = ZOBRIST[... c] ^ ZOBRIST[... c + 1]: the key
# change of a slot going from c to c + 1 checkers (or back), so one step is two lookups.
cdef uint64_t ZOBRIST_STEP[2 * NUM_SLOTS * 16]


cdef void _fill_zobrist_step() noexcept nogil:
    cdef const uint64_t* z = zobrist_table()
    cdef int i
    for i in range(2 * NUM_SLOTS * 16):
        ZOBRIST_STEP[i] = 0 if i % 16 == 15 else z[i] ^ z[i + 1]


_fill_zobrist_step()


# LANDS[d][s]: where a checker on own point s lands with die d (low byte; 0: borne off), and
# above it that point's occupancy bit (0 for off): one load in the hot loops instead of a
# compare, a conditional move and two shifts by register, and one table pointer (the leaf
# loop spilled a second one).
cdef uint32_t LANDS[7][NUM_SLOTS]


cdef void _fill_landing() noexcept nogil:
    cdef int d, s, t
    for d in range(7):
        for s in range(NUM_SLOTS):
            t = s - d if s > d else 0
            LANDS[d][s] = t | ((1u << t) >> 1) << 8


_fill_landing()


cdef inline uint32_t stepped_mask(uint32_t mask, uint32_t low, size_t cs, uint32_t landing_bit) noexcept nogil:
    """The occupancy after a checker leaves the point of bit `low` (which held cs) for the
    point of `landing_bit` (0: borne off)."""
    return (mask & ~(low if cs == 1 else 0)) | landing_bit


cdef int scratch_new(ScratchC* scratch, size_t lists) except -1:
    scratch.lists = lists
    scratch.ws = NULL
    scratch.moves = NULL
    scratch.calls = 0
    if lists == 0 or lists > SIZE_MAX // (MAX_MOVES * sizeof(MoveC)):
        raise MemoryError(f"{lists} move lists of {MAX_MOVES} moves do not fit in memory")
    scratch.ws = <WorkspaceC*> malloc(sizeof(WorkspaceC))
    scratch.moves = <MoveC*> malloc(lists * MAX_MOVES * sizeof(MoveC))
    if scratch.ws == NULL or scratch.moves == NULL:
        scratch_free(scratch)
        raise MemoryError("no memory for the move generator's scratch buffers")
    memset(scratch.ws, 0, sizeof(WorkspaceC))
    return 0


cdef void scratch_free(ScratchC* scratch) noexcept nogil:
    free(scratch.ws)
    free(scratch.moves)
    scratch.ws = NULL
    scratch.moves = NULL


cdef inline void workspace_reset(WorkspaceC* ws, uint32_t slots) noexcept nogil:
    ws.slots_mask = slots - 1
    ws.stamp += 1
    if ws.stamp == 0:  # wrapped: old stamps could look current again
        memset(ws.stamps, 0, sizeof(ws.stamps))
        ws.stamp = 1


cdef inline bint workspace_insert(WorkspaceC* ws, uint64_t key) noexcept nogil:
    """Add `key`; False if it was already there in this call (a key's low bits are uniform)."""
    cdef uint32_t i = <uint32_t> key & ws.slots_mask
    while ws.stamps[i] == ws.stamp:
        if ws.keys[i] == key:
            return False
        i = (i + 1) & ws.slots_mask
    ws.stamps[i] = ws.stamp
    ws.keys[i] = key
    return True


cdef void step_rules_init(StepRulesC* r, uint32_t opp_mask_own, int flags) noexcept nogil:
    r.opp_block = rotate12(opp_mask_own)
    if flags & FLAG_GIOUL:          # §11.1: every side counts as released, no prime rule
        r.release_mask = BOARD_MASK
        r.ban_prime = False
        r.per_die = False
        r.primes = False
        return
    r.release_mask = 0xFFF if flags & FLAG_RELEASE_REACH else 0x7FF
    r.ban_prime = (flags & FLAG_BAN_PRIME) != 0
    r.per_die = (flags & FLAG_QUARTER_END_OF_TURN) == 0
    r.primes = True


cdef inline bint breaks_prime(const StepRulesC* r, uint32_t mask) noexcept nogil:
    """A forbidden six-prime: the own start quarter, or (variant) before the opponent's mother."""
    return ((mask & START_QUARTER_MASK) == START_QUARTER_MASK
            or (r.ban_prime and (mask & BEFORE_OPP_MOTHER_MASK) == BEFORE_OPP_MOTHER_MASK))


cdef inline uint32_t movable_sources(const StepRulesC* r, const SideC* side) noexcept nogil:
    """Points a checker may leave under the mother rule (docs/rules.md §4)."""
    if (side.mask & r.release_mask) or side.counts[0]:
        return side.mask
    if side.mask == MOTHER_BIT:      # nobody away yet: only the mother may start one
        return MOTHER_BIT
    return side.mask & ~MOTHER_BIT   # the first checker is away: only it may move


cdef inline uint32_t legal_sources(const StepRulesC* r, const SideC* side, int d) noexcept nogil:
    """Own points from which a checker may legally play die `d` (all sources at once).

    A checker from point s lands on s - d, or is borne off (target 0) when s <= d.
    """
    cdef uint32_t movable = movable_sources(r, side)
    # board landings: s > d and s - d not closed by the opponent
    cdef uint32_t legal = movable & ~(r.opp_block << d) & ~((1u << d) - 1)
    cdef uint32_t risky, bit, mask, gap
    cdef int high, s, t
    if side.mask and not (side.mask & ~(<uint32_t> HOME_MASK)):   # every checker home
        high = highest_point(side.mask)
        if high <= d:
            legal |= 1u << (high - 1)        # exact, or a larger die from the highest point
        else:
            legal |= movable & (1u << (d - 1))
    if r.per_die:
        # A step ends in a forbidden prime only by landing in it or if it is already there,
        # and it fills at most one point: a zone with two empty points is safe.
        risky = 0
        gap = ~side.mask & START_QUARTER_MASK
        if (gap & (gap - 1)) == 0:
            risky = legal if gap == 0 else legal & (0xFFFFFFu << (18 + d))
        if r.ban_prime:
            gap = ~side.mask & BEFORE_OPP_MOTHER_MASK
            if (gap & (gap - 1)) == 0:
                risky |= legal if gap == 0 else legal & (0x3Fu << (5 + d))
        while risky:
            bit = risky & (~risky + 1)
            risky ^= bit
            s = __builtin_ctz(bit) + 1
            t = s - d
            mask = side.mask | (1u << (t - 1))
            if side.counts[s] == 1:
                mask &= ~bit
            if breaks_prime(r, mask):
                legal &= ~bit
    return legal


cdef inline void side_step(SideC* side, int s, int t) noexcept nogil:
    side.counts[s] -= 1
    if side.counts[s] == 0:
        side.mask &= ~(1u << (s - 1))
    side.counts[t] += 1
    if t:
        side.mask |= 1u << (t - 1)


cdef bint _sequence_ends_clean(const StepRulesC* r, const SideC* side, int da, int db,
                               int left) noexcept nogil:
    """End-of-turn timing: can some non-empty prefix of the dice end without a banned prime?"""
    cdef SideC nxt
    cdef uint32_t sources
    cdef int s, t, k, d
    for k in range(2 if da != db else 1):
        d = da if k == 0 else db
        sources = legal_sources(r, side, d)
        while sources:
            s = __builtin_ctz(sources) + 1
            sources &= sources - 1
            t = s - d if s > d else 0
            nxt = side[0]
            side_step(&nxt, s, t)
            if nxt.counts[0] == NUM_CHECKERS or not breaks_prime(r, nxt.mask):
                return True
            if left > 1:
                if da == db:
                    if _sequence_ends_clean(r, &nxt, da, db, left - 1):
                        return True
                elif _sequence_ends_clean(r, &nxt, db if k == 0 else da, db if k == 0 else da, 1):
                    return True
    return False


cdef bint side_can_move(const StepRulesC* r, const SideC* side) noexcept nogil:
    """True if `side` has a legal (non-pass) move for at least one of the 21 rolls."""
    cdef int d, s, i
    cdef uint32_t sources
    if side.counts[0] == NUM_CHECKERS:
        return False
    if r.per_die or not r.primes:   # any legal single step of die d is a legal move of roll d-d
        for d in range(1, 7):
            if legal_sources(r, side, d):
                return True
        return False
    for i in range(NUM_ROLLS):
        if _sequence_ends_clean(r, side, ROLL_D1[i], ROLL_D2[i], 4 if ROLL_D1[i] == ROLL_D2[i] else 2):
            return True
    return False


ctypedef struct GenC:
    StepRulesC r
    StepRulesC opp_r        # the opponent's step rules (must_open variant), block set per node
    const uint64_t* zs      # ZOBRIST_STEP entries of the mover's colour
    uint32_t land[7]        # land[d]: own points a checker may play die d from onto an open point
    bint released           # the mover is released from the mother rule (so at every node)
    bint prime_safe         # no step of the turn can complete a banned prime (per-die bans reject nothing)
    bint fast               # node_sources' common case holds at every node of the turn
    uint64_t key            # key of the current node relative to the root (generic search)
    SideC cur               # the current node (generic search)
    SideC opp
    uint8_t steps[MAX_STEPS][2]
    int dice[2]
    bint is_double
    int ndice               # dice of the double still to play at the root (4, or 1-3 for a Gioul rest)
    bint end_checks         # six-prime bans judged on the final position only
    bint no_playable        # must_open = no_playable_roll
    bint canonical          # a double may be played in non-increasing source order
    bint lookups            # double_level (not in canonical order) consults the visited set
    bint dropped            # double_level met a node where a node may repeat (its docstring)
    uint32_t oblig_mask     # rule 5.2: the six points to open (0 = no obligation)
    MoveC* out
    MoveC* next             # where the next record goes, out + the records kept: a pointer, as a
                            # count cost each leaf loop some 8 instructions to convert to one and back
    MoveC* end              # out + MAX_MOVES
    MoveC* crowded          # end - NUM_POINTS: from a record above it a node's leaves may not fit
    int best
    bint overflow
    WorkspaceC* ws


cdef inline bint has_bits(uint32_t x, int n) noexcept nogil:
    """x has n or more bits set (n >= 1; no popcount: not in the x86-64 baseline)."""
    while n > 1:
        x &= x - 1
        n -= 1
    return x != 0


cdef inline uint32_t node_sources(const GenC* g, const SideC* side, int d) noexcept nogil:
    """legal_sources(&g.r, side, d), the common case decided in a few steps: a released side
    not bearing off, whose prime zones each miss two points or whose turn cannot complete a
    prime (so that legal_sources' per-source prime checks reject nothing), plays from every
    point the die can leave. g.fast: every node of the turn is such a side."""
    cdef uint32_t m = side.mask, gap
    if g.fast:
        return m & g.land[d]
    if g.released and m & ~(<uint32_t> HOME_MASK):
        if g.prime_safe:
            return m & g.land[d]
        gap = ~m & START_QUARTER_MASK
        if gap & (gap - 1):
            if not g.r.ban_prime:
                return m & g.land[d]
            gap = ~m & BEFORE_OPP_MOTHER_MASK
            if gap & (gap - 1):
                return m & g.land[d]
    return legal_sources(&g.r, side, d)


cdef inline void side_stepped(SideC* child, const SideC* side, size_t s, size_t t, size_t cs, size_t ct,
                              uint32_t low, uint32_t landing_bit) noexcept nogil:
    """child = side after one checker went from s to t (low = bit s - 1, landing_bit = bit
    t - 1 or 0; cs and ct the counts of s and t before the step)."""
    child[0] = side[0]
    child.counts[s] = cs - 1
    child.counts[t] = ct + 1
    child.mask = stepped_mask(side.mask, low, cs, landing_bit)


cdef inline void push_move(GenC* g, const SideC* side, int nsteps) noexcept nogil:
    """Append a result: the mover's side and g.steps."""
    cdef MoveC* move = g.next
    if move == g.end:
        g.overflow = True
        return
    g.next += 1
    move.after = side[0]
    move.nsteps = nsteps
    memcpy(move.steps, g.steps, sizeof(g.steps))


cdef inline void raise_best(GenC* g, int score) noexcept nogil:
    """A candidate of `score` >= g.best is about to be recorded: a higher score drops the list."""
    if score > g.best:
        g.best = score
        g.next = g.out


# ---------------------------------------------------------------------------------------
# The generic search (any rule filter of docs/rules.md §6 steps 2-3 active): every node is
# scored by candidate_score, on g.cur / g.key changed and restored step by step.

cdef inline int candidate_score(GenC* g, int depth, int larger) noexcept nogil:
    cdef uint32_t m = g.cur.mask
    cdef int score
    if g.end_checks and breaks_prime(&g.r, m) and g.cur.counts[0] != NUM_CHECKERS:
        return -1
    score = 2 * depth + larger
    if g.oblig_mask:
        if (m & g.oblig_mask) != g.oblig_mask:
            score += 16
    elif g.no_playable:
        g.opp_r.opp_block = rotate12(m)
        if side_can_move(&g.opp_r, &g.opp):
            score += 16
    return score


cdef void visit(GenC* g, int depth, int state, int larger) noexcept nogil:
    cdef int score = candidate_score(g, depth, larger)
    if g.cur.counts[0] != NUM_CHECKERS:          # else the game is over: no later dice
        if g.is_double:
            if depth < g.ndice:
                expand(g, depth, g.dice[0], depth + 1, 0)
        else:
            if not (state & 1):
                expand(g, depth, g.dice[0], state | 1, depth == 0 and g.dice[0] > g.dice[1])
            if not (state & 2):
                expand(g, depth, g.dice[1], state | 2, depth == 0 and g.dice[1] > g.dice[0])
    if score >= g.best:
        raise_best(g, score)
        push_move(g, &g.cur, depth)


cdef void expand(GenC* g, int depth, int d, int next_state, int larger) noexcept nogil:
    cdef uint32_t sources = node_sources(g, &g.cur, d)
    if g.canonical and depth:
        sources &= (1u << g.steps[depth - 1][0]) - 1    # sources <= the previous step's
    cdef int s, t, cs, ct
    cdef uint32_t saved_mask = g.cur.mask
    cdef uint64_t key, saved_key = g.key, salt = STATE_SALT[next_state]
    cdef bint lookup = depth > 0 and not g.canonical      # the only nodes that can repeat (header)
    while sources:
        s = __builtin_ctz(sources) + 1
        sources &= sources - 1
        t = s - d if s > d else 0
        cs = g.cur.counts[s]
        ct = g.cur.counts[t]
        key = saved_key ^ g.zs[s * 16 + cs - 1] ^ g.zs[t * 16 + ct]
        if lookup and not workspace_insert(g.ws, key ^ salt):
            continue
        g.steps[depth][0] = s
        g.steps[depth][1] = t
        g.key = key
        g.cur.counts[s] = cs - 1
        g.cur.counts[t] = ct + 1
        g.cur.mask = (saved_mask & ~((<uint32_t> (cs == 1)) << (s - 1))) | ((1u << t) >> 1)
        visit(g, depth + 1, next_state, larger)
        g.cur.counts[s] = cs
        g.cur.counts[t] = ct
    g.cur.mask = saved_mask
    g.key = saved_key


# ---------------------------------------------------------------------------------------
# The unfiltered search (default rules, Gioul): the same tree walked in the same order with
# the same records as the generic search, specialised. A node's score is 2 x its dice (+1
# at depth 1 for the larger die of a pair), so the nodes of the last die outscore all the
# others: they are recorded in a tight loop (record_leaves) and an inner node is recorded
# only while no node below it has been (score >= best). Each node is a SideC of its own on
# the stack (no restoring), passed down with its key where it can repeat.

cdef inline void write_leaf(MoveC* move, const SideC* node, const uint8_t* steps, size_t s, size_t t,
                            size_t cs, size_t ct, uint32_t low, uint32_t landing_bit, int depth) noexcept nogil:
    """move = `node` after a step s -> t by the last die (cs and ct the counts of s and t
    before it, low and landing_bit their bits) and the steps: `steps` (g.steps,
    copied once by the caller) with this one. Written field by field from the node: a MoveC
    template copied per leaf was kept in stack slots and re-assembled each time."""
    move.after = node[0]
    move.after.counts[s] = cs - 1
    move.after.counts[t] = ct + 1
    move.after.mask = stepped_mask(node.mask, low, cs, landing_bit)
    move.nsteps = depth + 1
    memcpy(move.steps, steps, sizeof(move.steps))
    move.steps[depth][0] = s
    move.steps[depth][1] = t


cdef inline void record_leaves(GenC* g, const SideC* node, int depth, int d,
                               uint32_t sources, uint32_t* commuted, uint32_t first_bit) noexcept nogil:
    """Record every child of `node` (at `depth`) by the last die `d` from `sources`: nodes
    that cannot repeat (a double in canonical order, a pair's, see pair_search). With
    `commuted` (pair_search's first order), also commuted[p] |= first_bit for each step from p."""
    cdef uint8_t steps[MAX_STEPS][2]
    cdef MoveC* move
    cdef MoveC* end = g.end
    cdef const uint32_t* lands = LANDS[d]
    cdef uint32_t low, land
    cdef size_t s, t, cs, ct
    raise_best(g, 2 * (depth + 1))
    memcpy(steps, g.steps, sizeof(steps))
    move = g.next
    # checked once, not per leaf; a pointer compared, as `end - move` divides by sizeof(MoveC)
    if move > g.crowded and has_bits(sources, end - move + 1):
        g.overflow = True
        return
    while sources:
        low = sources & (~sources + 1)
        sources ^= low
        s = __builtin_ctz(low) + 1
        land = lands[s]
        t = land & 0xFF
        cs = node.counts[s]
        ct = node.counts[t]
        if commuted != NULL:
            commuted[s] |= first_bit
        write_leaf(move, node, &steps[0][0], s, t, cs, ct, low, land >> 8, depth)
        move += 1
    g.next = move


cdef void record_new_leaves(GenC* g, const SideC* node, uint64_t node_key, int depth, int d,
                            uint32_t sources) noexcept nogil:
    """record_leaves for nodes that can repeat (a double not in canonical order): each child
    unless the visited set has it (workspace_insert on locals)."""
    cdef uint8_t steps[MAX_STEPS][2]
    cdef uint64_t delta
    cdef uint64_t slot_key = node_key ^ STATE_SALT[g.ndice]
    cdef const uint64_t* zs = g.zs
    cdef MoveC* move
    cdef MoveC* end = g.end
    cdef uint32_t low, land
    cdef const uint32_t* lands = LANDS[d]
    cdef size_t s, t, cs, ct, i, slots = g.ws.slots_mask
    cdef uint64_t* keys = g.ws.keys
    cdef uint32_t* stamps = g.ws.stamps
    cdef uint32_t stamp = g.ws.stamp
    raise_best(g, 2 * (depth + 1))
    memcpy(steps, g.steps, sizeof(steps))
    move = g.next
    while sources:
        low = sources & (~sources + 1)
        sources ^= low
        s = __builtin_ctz(low) + 1
        land = lands[s]
        t = land & 0xFF
        cs = node.counts[s]
        ct = node.counts[t]
        delta = zs[s * 16 + cs - 1] ^ zs[t * 16 + ct]
        i = <uint32_t> (slot_key ^ delta) & slots
        while stamps[i] == stamp and keys[i] != slot_key ^ delta:
            i = (i + 1) & slots
        if stamps[i] == stamp:
            continue
        stamps[i] = stamp
        keys[i] = slot_key ^ delta
        if move == end:
            g.overflow = True
            break
        write_leaf(move, node, &steps[0][0], s, t, cs, ct, low, land >> 8, depth)
        move += 1
    g.next = move


cdef inline void root_step(GenC* g, const SideC* root, uint32_t low, int d, SideC* child) noexcept nogil:
    """A pair's first step, die d from the root's point of bit `low`: the child and g.steps[0]."""
    cdef size_t s = __builtin_ctz(low) + 1
    cdef uint32_t land = LANDS[d][s]
    cdef size_t t = land & 0xFF
    cdef size_t cs = root.counts[s], ct = root.counts[t]
    side_stepped(child, root, s, t, cs, ct, low, land >> 8)
    g.steps[0][0] = s
    g.steps[0][1] = t


cdef void pair_search(GenC* g, const SideC* root) noexcept nogil:
    """Both orders of a non-double: the first die, then the other from each result.

    No visited set: a result that repeats an earlier one is known from the steps. A result
    moves two checkers or one (a step lands where the other left or starts). Two checkers
    from a and b: only the orders (a, b) and (b, a) of the two orders give it, and (with
    four bear-offs) (b, a) in the first order (the header). One checker from p to
    p - d1 - d2 (or off): A = (p - d2, p) and B = (p, p - d1) of the first order (d1 first),
    C = (p - d1, p) and D = (p, p - d2) of the second, in that order of generation.
    commuted[p] holds the first-order first steps that a step from p followed (so a
    second-order result whose steps the first order took the other way round is dropped),
    followed[k][s] the sources of the steps that followed a first step from s in order k."""
    cdef SideC child
    cdef uint32_t sources, leaves, drop
    cdef uint32_t commuted[NUM_SLOTS]
    cdef uint32_t followed[2][NUM_SLOTS]
    cdef uint32_t low
    cdef size_t s, t, x
    cdef int k, first, second, score
    cdef uint32_t both_off = (1u << (g.dice[0] if g.dice[0] < g.dice[1] else g.dice[1])) - 1  # off by either die
    memset(commuted, 0, sizeof(commuted))
    memset(followed, 0, sizeof(followed))
    for k in range(2):
        first = g.dice[k]
        second = g.dice[1 - k]
        score = 2 + (first > second)
        sources = node_sources(g, root, first)
        while sources:
            low = sources & (~sources + 1)
            sources ^= low
            root_step(g, root, low, first, &child)
            s = g.steps[0][0]
            t = g.steps[0][1]
            if child.counts[0] != NUM_CHECKERS:
                leaves = node_sources(g, &child, second)
                followed[k][s] = leaves
                if k == 0:
                    # B (x = t), after A
                    if t and s > <size_t> second and followed[0][s - second] & low and leaves & (low >> first):
                        commuted[t] |= low
                        leaves &= ~(low >> first)
                    if leaves:
                        record_leaves(g, &child, 1, second, leaves, commuted, low)
                else:
                    drop = commuted[s]
                    x = s + second      # C, after A (B is commuted)
                    if x <= 24 and x > <size_t> first and followed[0][x - first] & (low << second):
                        drop |= low << second
                    # D (x = t), after B or C (A is commuted)
                    if t and s > <size_t> second and (followed[0][s] & (low >> second)
                                                      or followed[1][s - second] & low):
                        drop |= low >> first
                    if low & both_off:  # four bear-offs: the first order's (s, x)
                        drop |= followed[0][s] & both_off
                    leaves &= ~drop
                    if leaves:
                        record_leaves(g, &child, 1, second, leaves, NULL, 0)
            if score >= g.best:
                raise_best(g, score)
                push_move(g, &child, 1)


cdef void pair_search_fast(GenC* g, const SideC* root) noexcept nogil:
    """pair_search when every node plays from every point its die can leave (g.fast), in the
    same order with the same records, and no tables.

    Legality is then occupancy and open landings alone. In the first order, B (the moved
    checker going on from t = s - d1) repeats A exactly when the first order played s - d2
    (s is then a leaf of it: its landing is own). The second order (d2 from s to t, then d1
    from x) repeats the first unless x is the moved checker going on from t: any other x
    (x == s included) was on its point before, with the same landing, so the first order
    played x, then s. That result, s to t - d1, is new only if s - d1 is closed (else the
    first order played s, then s - d1) and t was empty (else t, then s). Once the first order
    recorded a leaf, no node of depth one is recorded, so the second order visits only those."""
    cdef SideC child
    cdef uint32_t sources, leaves, low, opened = 0, new = 0
    cdef int k, first, second, score
    for k in range(2):
        first = g.dice[k]
        second = g.dice[1 - k]
        score = 2 + (first > second)
        sources = root.mask & g.land[first]
        if k == 0:
            opened = sources
        else:
            new = sources & ~g.land[second] & ((g.land[second] & ~root.mask) << first)
            if g.best == 4:
                sources = new
        while sources:
            low = sources & (~sources + 1)
            sources ^= low
            root_step(g, root, low, first, &child)
            if k == 0:
                leaves = child.mask & g.land[second]
                if opened & (low >> second):
                    leaves &= ~(low >> first)
            else:
                leaves = low >> first if new & low else 0
            if leaves:
                record_leaves(g, &child, 1, second, leaves, NULL, 0)
            elif score >= g.best:
                raise_best(g, score)
                push_move(g, &child, 1)


ctypedef void (*DoubleSearch)(GenC* g, const SideC* node, uint64_t node_key, int depth,
                              uint32_t allowed) noexcept nogil


cdef inline void double_level(GenC* g, const SideC* node, uint64_t node_key, int depth, uint32_t allowed,
                              DoubleSearch deeper, bint canonical) noexcept nogil:
    """The dice of a double from `node` (at `depth` < g.ndice, game not over), sources in
    `allowed`, a child's dice by `deeper`. The last two dice are one loop here (the
    children's leaves recorded in place), not one call per child. `canonical` is g.canonical,
    a literal at each call so that the compiler drops the other order's tests.

    In canonical order `allowed` holds the sources <= the previous step's. Otherwise it
    leaves out a set X of steps whose child was visited earlier in the search's order
    (sources lowest first), so that the moves and their order are those of a search that
    tried every step and dropped the children the visited set held; X is empty at the root.
    A child's X holds the node's legal sources x that are
    (a) below the step's source s: the child after x is reached the other way round (from
        x, then from s: s keeps its checkers, its landing and its bear-off, as x < s; a
        released side stays released, an unreleased one moved s, not the mother; the child,
        the same position, is no banned prime), an earlier path; or
    (b) in the node's X: the node's child by x was reached earlier by a path R, whose first
        differing source is the lower one (R ends elsewhere if it differs only in its last
        step), and R then the step from s is an earlier path of the child after x (s != x
        keeps its checkers, its landing, and its bear-off, x staying below a highest point
        s; an unreleased s is not the mother, as x is away from it; the end, the same
        position, is no banned prime).

    Which nodes can repeat: two paths P before Q of one node have the same sources (the
    header); at their first difference P steps from some x below Q's source, and Q steps
    from x later, at least two steps on (right after it x is in Q's X by (a)), so the node
    is at depth 3 or more. X keeps x along Q by (b) while x is legal, and x, still stocked,
    with its landing open and its bear-off, not the mother, can only stop being legal by
    completing a banned prime. So a node can repeat only if the search meets a node whose
    X holds a source that is not legal there (g.dropped): the search runs without the
    visited set (g.lookups False), and again with it from depth 3 on if it did (in a model
    of the search, 4% of the benchmark corpus's doubles not in canonical order)."""
    cdef SideC child
    cdef uint64_t key, salt = STATE_SALT[depth + 1]
    cdef const uint64_t* zs = g.zs
    cdef int d = g.dice[0], score = 2 * (depth + 1)
    cdef size_t s, t, cs, ct
    cdef uint32_t low
    cdef bint lookup = not canonical and depth > 1 and g.lookups         # children (above)
    cdef bint leaf_lookup = not canonical and depth > 0 and g.lookups    # grandchildren
    cdef bint before_last = depth + 2 == g.ndice
    cdef const uint32_t* lands = LANDS[d]
    cdef uint32_t land, leaves, below, legal = node_sources(g, node, d)
    cdef uint32_t sources = legal & allowed
    if not canonical and ~allowed & ~legal:
        g.dropped = True
    if not sources:
        return
    if depth + 1 == g.ndice:            # a Gioul block of one die
        record_leaves(g, node, depth, d, sources, NULL, 0)
        return
    while sources:
        low = sources & (~sources + 1)
        sources ^= low
        s = __builtin_ctz(low) + 1
        land = lands[s]
        t = land & 0xFF
        cs = node.counts[s]
        ct = node.counts[t]
        key = 0 if canonical else node_key ^ zs[s * 16 + cs - 1] ^ zs[t * 16 + ct]   # none can repeat
        if lookup and not workspace_insert(g.ws, key ^ salt):
            continue
        side_stepped(&child, node, s, t, cs, ct, low, land >> 8)
        g.steps[depth][0] = s
        g.steps[depth][1] = t
        if t or ct != NUM_CHECKERS - 1:    # the child's game goes on (the node's did)
            below = (low << 1) - 1 if canonical else ~(legal & ((low - 1) | ~allowed))
            if before_last:
                leaves = node_sources(g, &child, d) & below
                if leaves and not leaf_lookup:
                    record_leaves(g, &child, depth + 1, d, leaves, NULL, 0)
                elif leaves:
                    record_new_leaves(g, &child, key, depth + 1, d, leaves)
            else:
                deeper(g, &child, key, depth + 1, below)
        if score >= g.best:
            raise_best(g, score)
            push_move(g, &child, depth + 1)


# double_level written out once per depth (a turn has at most MAX_STEPS = 4 dice, so a node
# at depth 2 is the last die's or holds the last two: *_search_2 has no deeper level), so
# that the compiler may make them one function: a call per inner node cost about 40
# instructions (a double has about 15 inner nodes). And once per order, `canonical` a
# literal in each: one search taking it as an argument (called for each order, the ordered
# one twice) was compiled once for both, movegen 3,393 and movegen-gioul 3,023 instructions
# a pair against 3,284 and 2,910.
cdef void canonical_search_2(GenC* g, const SideC* node, uint64_t node_key, int depth,
                             uint32_t allowed) noexcept nogil:
    double_level(g, node, node_key, depth, allowed, NULL, True)


cdef void canonical_search_1(GenC* g, const SideC* node, uint64_t node_key, int depth,
                             uint32_t allowed) noexcept nogil:
    double_level(g, node, node_key, depth, allowed, canonical_search_2, True)


cdef void ordered_search_2(GenC* g, const SideC* node, uint64_t node_key, int depth,
                           uint32_t allowed) noexcept nogil:
    double_level(g, node, node_key, depth, allowed, NULL, False)


cdef void ordered_search_1(GenC* g, const SideC* node, uint64_t node_key, int depth,
                           uint32_t allowed) noexcept nogil:
    double_level(g, node, node_key, depth, allowed, ordered_search_2, False)


cdef void double_search(GenC* g, const SideC* root) noexcept nogil:
    """Every move of a double from the root: in canonical order if g.canonical, else
    without the visited set, and again with it if a node may repeat (double_level)."""
    # allowed: every source (X empty: ~allowed & ~legal is 0 at the root)
    if g.canonical:
        double_level(g, root, 0, 0, 0xFFFFFFFFu, canonical_search_1, True)
        return
    g.lookups = False
    while True:     # one call of the ordered search, not two copies of it
        g.dropped = False
        double_level(g, root, 0, 0, 0xFFFFFFFFu, ordered_search_1, False)
        if g.lookups or not g.dropped:
            return
        g.lookups = True
        g.next = g.out
        g.best = -1
        g.overflow = False
        memset(g.steps, 0, sizeof(g.steps))
        workspace_reset(g.ws, VISITED_SIZE)


cdef bint double_commutes(const StepRulesC* r, const SideC* side, int d) noexcept nogil:
    """True if every legal sequence of the double d-d may be reordered by non-increasing
    source point (so the search need try only that order).

    A reordered sequence keeps each step's source stocked (arrivals come from higher
    points), its landing open (the opponent does not move), and bear-off legal (every
    checker above a bear-off has already moved). What can break is the mother rule (the
    release comes from a low point, then the mother moves), so the side must be released,
    and the per-die six-prime bans, so no banned prime may be reachable this turn.
    """
    cdef uint32_t quarter, ban, reach
    cdef int k
    if not ((side.mask & r.release_mask) or side.counts[0]):
        return False
    if not r.per_die:
        return True
    quarter = side.mask & START_QUARTER_MASK
    ban = side.mask & BEFORE_OPP_MOTHER_MASK
    reach = side.mask
    for k in range(1, 5):       # points a checker may reach with up to four steps of d
        reach |= side.mask >> (k * d)
    # a banned prime needs each of its empty points (at most four: one per step) reachable
    # (x & (x - 1)) != 0: two points or more, without a popcount (not in the x86-64 baseline)
    if (reach & START_QUARTER_MASK) == START_QUARTER_MASK and (quarter & (quarter - 1)):
        return False
    if r.ban_prime and (reach & BEFORE_OPP_MOTHER_MASK) == BEFORE_OPP_MOTHER_MASK and (ban & (ban - 1)):
        return False
    return True


cdef uint32_t trapped_obligation(const SideC* me, const SideC* opp) noexcept nogil:
    """Rule 5.2: the six points (my numbering) I must open, or 0 if no obligation."""
    cdef int x
    cdef uint32_t front
    if opp.counts[0] or opp.mask == 0 or opp.mask & (opp.mask - 1):     # not exactly one point
        return 0
    x = highest_point(opp.mask)
    if x < 7:
        return 0
    front = rotate12(0x3Fu << (x - 7))      # opponent's own points x-6 .. x-1
    return front if (me.mask & front) == front else 0


cdef int generate_moves(const PositionC* pos, int d1, int d2, int flags,
                        MoveC* out, WorkspaceC* ws) noexcept nogil:
    return _generate(pos, d1, d2, 4, flags, out, ws)


cdef int generate_block(const PositionC* pos, int d, int n, int flags,
                        MoveC* out, WorkspaceC* ws) noexcept nogil:
    return _generate(pos, d, d, n, flags, out, ws)


cdef int _generate(const PositionC* pos, int d1, int d2, int ndice, int flags,
                   MoveC* out, WorkspaceC* ws) noexcept nogil:
    cdef GenC g
    cdef int color = pos.turn, steps
    cdef const SideC* me = &pos.side[color]
    cdef const SideC* opp = &pos.side[1 - color]
    step_rules_init(&g.r, opp.mask, flags)
    g.land[d1] = ~(g.r.opp_block << d1) & ~((1u << d1) - 1)
    g.land[d2] = ~(g.r.opp_block << d2) & ~((1u << d2) - 1)
    g.released = (me.mask & g.r.release_mask) != 0 or me.counts[0] != 0
    # node_sources is asked at depths 0 .. steps - 1, and a step empties at most one point
    # and fills at most one: a root with `steps` occupied points outside home and `steps + 1`
    # empty points in each prime zone keeps one of the former and two of the latter there.
    steps = 2 if d1 != d2 else ndice
    g.is_double = d1 == d2
    g.canonical = g.is_double and double_commutes(&g.r, me, d1)
    # double_commutes' prime test: no banned prime is reachable this turn
    g.prime_safe = not g.r.per_die or g.canonical
    g.fast = g.released and has_bits(me.mask & ~(<uint32_t> HOME_MASK), steps) and (
        g.prime_safe or (has_bits(~me.mask & START_QUARTER_MASK, steps + 1) and (
            not g.r.ban_prime or has_bits(~me.mask & BEFORE_OPP_MOTHER_MASK, steps + 1))))
    g.zs = ZOBRIST_STEP + color * NUM_SLOTS * 16
    memset(g.steps, 0, sizeof(g.steps))
    g.dice[0] = d1
    g.dice[1] = d2
    g.ndice = ndice
    g.end_checks = g.r.primes and not g.r.per_die
    g.no_playable = (flags & FLAG_MUST_OPEN_NO_PLAYABLE) != 0
    g.oblig_mask = 0 if g.no_playable or not g.r.primes else trapped_obligation(me, opp)
    g.out = out
    g.next = out
    g.end = out + MAX_MOVES
    g.crowded = g.end - NUM_POINTS
    g.best = -1
    g.overflow = False
    g.ws = ws
    if g.end_checks or g.no_playable or g.oblig_mask:
        if not g.canonical:
            workspace_reset(ws, VISITED_SIZE if g.is_double else 1024)
        if g.no_playable:
            g.opp = opp[0]
            step_rules_init(&g.opp_r, 0, flags)
        g.cur = me[0]
        g.key = 0
        visit(&g, 0, 0, 0)
    else:
        if me.counts[0] != NUM_CHECKERS:
            if g.is_double:
                double_search(&g, me)
            elif g.fast:
                pair_search_fast(&g, me)
            else:
                pair_search(&g, me)
        if g.best <= 0:          # nothing to play: the root is the one move (a pass)
            raise_best(&g, 0)
            push_move(&g, me, 0)
    if g.overflow:
        return -1
    if g.next == out:        # every candidate broke an end-of-turn ban: the turn passes
        out[0].after = me[0]
        out[0].nsteps = 0
        return 1
    return g.next - out


cdef bint can_play_die(const PositionC* pos, int color, int d, int flags) noexcept nogil:
    cdef StepRulesC r
    step_rules_init(&r, pos.side[1 - color].mask, flags)
    return legal_sources(&r, &pos.side[color], d) != 0


cdef bint player_can_move(const PositionC* pos, int color, int flags) noexcept nogil:
    cdef StepRulesC r
    step_rules_init(&r, pos.side[1 - color].mask, flags)
    return side_can_move(&r, &pos.side[color])


cdef bint position_is_dead(const PositionC* pos, int flags) noexcept nogil:
    """docs/rules.md §8: neither player has a legal move for any of the 21 rolls."""
    return not player_can_move(pos, 0, flags) and not player_can_move(pos, 1, flags)


cdef void apply_move(PositionC* pos, const MoveC* move) noexcept nogil:
    pos.side[pos.turn] = move.after
    pos.turn ^= 1


cdef class MoveList:
    """The legal moves of one request: a read-only sequence of Move values, each made when it
    is first asked for (so that len() and a lookup cost no more than generating the moves).

    It compares equal to a list or tuple of the same moves in the same order.
    """

    def __cinit__(self):
        self.moves = NULL
        self.n = 0

    def __dealloc__(self):
        PyMem_Free(self.moves)

    cdef int _fill(self, const MoveC* src, int n) except -1:
        if n > 0:
            self.moves = <MoveC*> PyMem_Malloc(n * sizeof(MoveC))  # pymalloc runs no collection
            if self.moves == NULL:
                raise MemoryError("no memory for the legal moves")
            memcpy(self.moves, src, n * sizeof(MoveC))
        self.n = n
        return 0

    cdef MoveList _filled(self, object state, type move_cls, const MoveC* src, int n):
        self.move_cls = move_cls
        self.state_cls = type(state)
        self._fill(src, n)
        return self

    cdef object _position(self, int k):
        raise NotImplementedError("a game's move list makes the positions its moves lead to")

    cdef object _make(self, int k):
        return tuple.__new__(self.move_cls, (move_steps(&self.moves[k]), self._position(k)))

    def positions(self):
        """The position each move leads to, in order, without making the moves (their steps)."""
        cdef int k
        if self.made is None:
            return [self._position(k) for k in range(self.n)]
        return [self._position(k) if self.made[k] is None else self.made[k][1] for k in range(self.n)]

    cdef object _item(self, int k):
        if self.made is None:
            self.made = [None] * self.n
        move = self.made[k]
        if move is None:
            move = self._make(k)
            self.made[k] = move
        return move

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._item(j) for j in range(*index.indices(self.n))]
        k = operator_index(index)  # a Python int: any size is an IndexError, not an OverflowError
        if k < 0:
            k += self.n
        if not 0 <= k < self.n:
            raise IndexError("move index out of range")
        return self._item(<int> k)

    cdef list _all(self):
        cdef int k
        if self.made is None:
            self.made = [self._make(k) for k in range(self.n)]
        else:
            for k in range(self.n):
                if self.made[k] is None:
                    self.made[k] = self._make(k)
        return self.made

    def __iter__(self):
        return iter(self._all())

    def __reversed__(self):
        return reversed(self._all())

    def __contains__(self, move):
        return move in self._all()

    def index(self, move):
        """Position of the first move equal to `move` (ValueError if none is)."""
        moves = self._all()
        if move in moves:
            return moves.index(move)
        raise ValueError(f"{move!r} is not one of the legal moves")

    def count(self, move):
        """How many of the moves equal `move` (0 or 1: the moves are distinct)."""
        return self._all().count(move)

    def __eq__(self, other):
        if isinstance(other, MoveList):
            return self._all() == (<MoveList> other)._all()
        if isinstance(other, (list, tuple)):
            return self._all() == list(other)
        return NotImplemented

    __hash__ = None  # like a list: equal to lists, so not hashable

    def __repr__(self):
        return repr(self._all())

    def __reduce__(self):
        return (list, (list(self._all()),))


Sequence.register(MoveList)


cdef tuple move_steps(const MoveC* move):
    cdef int j
    return tuple([(move.steps[j][0], move.steps[j][1]) for j in range(move.nsteps)])


cdef enum:
    MAX_NOTATION_STEPS = 64     # steps one notation call formats (a turn has at most 4)
    MAX_NOTATION_POINT = 99     # a step's points: 0 (off) .. 99 (what the notation parser reads)


def steps_notation(steps):
    """Short notation of a step sequence: one ``from/to`` per checker path, ``off`` for point 0,
    ``(n)`` for a path repeated n times, ``pass`` for no step (fevga.notation.format_steps).
    Steps are (from, to) pairs of integers 0..99, at most 64 of them."""
    cdef Py_ssize_t n = len(steps)
    cdef int start[MAX_NOTATION_STEPS]
    cdef int end[MAX_NOTATION_STEPS]
    cdef int paths = 0, i, j, k, src, dst, a, b
    cdef char text[MAX_NOTATION_STEPS * 12]
    cdef int length = 0
    if n == 0:
        return "pass"
    if n > MAX_NOTATION_STEPS:
        raise InvalidArgumentError(f"{n} steps: at most {MAX_NOTATION_STEPS} can be written as one move")
    for i in range(n):
        step = steps[i]
        if len(step) != 2:
            raise InvalidArgumentError(f"step {step!r} must be a (from, to) pair")
        src = _notation_point(step[0])
        dst = _notation_point(step[1])
        for k in range(paths - 1, -1, -1):  # the latest path ending where this step starts
            if end[k] == src:
                end[k] = dst
                break
        else:
            start[paths] = src
            end[paths] = dst
            paths += 1
    for i in range(1, paths):  # insertion sort by start descending, then end ascending (a stable order)
        a, b = start[i], end[i]
        j = i - 1
        while j >= 0 and (start[j] < a or (start[j] == a and end[j] > b)):
            start[j + 1], end[j + 1] = start[j], end[j]
            j -= 1
        start[j + 1], end[j + 1] = a, b
    i = 0
    while i < paths:
        j = i
        while j < paths and start[j] == start[i] and end[j] == end[i]:
            j += 1
        if length:
            text[length] = 32  # ' '
            length += 1
        length += _write_int(text + length, start[i])
        text[length] = 47  # '/'
        length += 1
        if end[i] == 0:
            text[length], text[length + 1], text[length + 2] = 111, 102, 102  # 'off'
            length += 3
        else:
            length += _write_int(text + length, end[i])
        if j - i > 1:
            text[length] = 40  # '('
            length += 1
            length += _write_int(text + length, j - i)
            text[length] = 41  # ')'
            length += 1
        i = j
    return text[:length].decode("ascii")


cdef int _notation_point(object value) except -1:
    try:
        point = None if isinstance(value, bool) else operator_index(value)
    except TypeError:
        point = None
    if point is None or not 0 <= point <= MAX_NOTATION_POINT:
        raise InvalidArgumentError(f"step point {value!r} must be an integer 0..{MAX_NOTATION_POINT}")
    return point


cdef inline int _write_int(char* out, int value) noexcept:
    """Writes 0 <= value < 100 in decimal; returns the characters written."""
    if value >= 10:
        out[0] = 48 + value // 10
        out[1] = 48 + value % 10
        return 2
    out[0] = 48 + value
    return 1
