# Legal-move generation: the full-turn procedure of docs/rules.md §6 over a caller-owned buffer.

from fevga_core.types cimport SideC, PositionC, MoveC, uint8_t, uint32_t, uint64_t

cdef enum:
    VISITED_SIZE = 8192     # power of two, > 2 x the most nodes one turn can visit (~3,900)

# Scratch memory of one generator call: an open-addressing set of (key, dice state)
# already expanded. `stamp` ages entries out between calls without clearing the table.
ctypedef struct WorkspaceC:
    uint64_t keys[VISITED_SIZE]
    uint32_t stamps[VISITED_SIZE]
    uint32_t stamp
    uint32_t slots_mask     # slots used by this call - 1 (a non-double needs few: cache-friendly)

# What a single step needs to know besides the mover's side.
ctypedef struct StepRulesC:
    uint32_t opp_block      # points closed by the opponent, in the mover's numbering
    uint32_t release_mask   # own points whose occupation releases the mother rule
    bint ban_prime          # also forbid a six-prime on own points 6..11
    bint per_die            # six-prime bans checked after every die (else end of turn)
    bint primes             # the six-prime rules of §5 apply at all (False for Gioul)

# Scratch memory of one generator user (a thread, a batch call): the workspace and
# `lists` move lists of MAX_MOVES entries each, list k at moves + k * MAX_MOVES. `calls`
# counts the searches' generator calls (search.pyx roll_expectation checks Ctrl-C by it).
ctypedef struct ScratchC:
    WorkspaceC* ws
    MoveC* moves
    size_t lists
    uint64_t calls

# MemoryError if no memory, or if `lists` move lists cannot be sized in a size_t.
cdef int scratch_new(ScratchC* scratch, size_t lists) except -1
cdef void scratch_free(ScratchC* scratch) noexcept nogil

cdef void step_rules_init(StepRulesC* r, uint32_t opp_mask_own, int flags) noexcept nogil
cdef bint side_can_move(const StepRulesC* r, const SideC* side) noexcept nogil

# Fills out[0..n) with the distinct legal moves of `pos` for dice (d1, d2) and returns n
# (>= 1; a pass is one move with nsteps == 0), or -1 if `out` would overflow.
cdef int generate_moves(const PositionC* pos, int d1, int d2, int flags,
                        MoveC* out, WorkspaceC* ws) noexcept nogil
# The same for `n` (1..4) dice of one number `d`: a Gioul block or the rest of one (§11.3).
cdef int generate_block(const PositionC* pos, int d, int n, int flags,
                        MoveC* out, WorkspaceC* ws) noexcept nogil
# Whether `color` can play one die `d` from `pos` (one legal single step exists).
cdef bint can_play_die(const PositionC* pos, int color, int d, int flags) noexcept nogil
cdef bint player_can_move(const PositionC* pos, int color, int flags) noexcept nogil
cdef bint position_is_dead(const PositionC* pos, int flags) noexcept nogil
cdef void apply_move(PositionC* pos, const MoveC* move) noexcept nogil

# The legal moves of one request as a read-only sequence (docs/architecture.md, "A call"): the generated
# moves are copied out of the shared scratch list at once (before any Python object is made, which
# may run a finaliser or let another thread in that generates into the same list), and each
# public Move value is made when it is first asked for. A game's subclass makes the position
# each move leads to (`_position`).
cdef class MoveList:
    cdef MoveC* moves
    cdef int n
    cdef list made          # the Move values made so far, None where not yet asked for
    cdef type move_cls      # the public move type: a (steps, result) named tuple
    cdef type state_cls     # the type of the position each move leads to (the asking position's)
    cdef int _fill(self, const MoveC* src, int n) except -1
    # Itself, for `state`'s decision: move_cls values leading to positions of state's type,
    # the n moves of `src` copied in (none yet for src NULL: _fill them later).
    cdef MoveList _filled(self, object state, type move_cls, const MoveC* src, int n)
    # The position (of state_cls) move k leads to: the one hook a game's subclass writes.
    cdef object _position(self, int k)
    cdef object _make(self, int k)
    cdef object _item(self, int k)
    cdef list _all(self)
# The steps of a move as the public API gives them: a tuple of (from, to) pairs.
cdef tuple move_steps(const MoveC* move)
