# Gioul's transitions (docs/rules.md §11.4-11.5; state.pxd has both games' hooks).
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

from libc.string cimport memset

from fevga_core.types cimport PositionC, MoveC, GioulC, uint64_t, FLAG_GIOUL
from fevga_core.board cimport zobrist_turn, position_start, mix64
from fevga_core.movegen cimport WorkspaceC, generate_moves, generate_block, can_play_die, apply_move


cdef inline void _set_turn(GioulC* s, int color) noexcept nogil:
    if s.pos.turn != color:
        s.pos.turn = color
        s.pos.key ^= zobrist_turn()


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
    return s.pos.key ^ mix64(extra + 0x6A09E667F3BCC909ULL)


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
        _set_turn(s, 1 - s.roller)
        _clear_dice(s)
        return
    if completed:
        _set_turn(s, mover)
    else:
        _set_turn(s, 1 - mover)
    if gioul_can_start(s, s.pos.turn):
        return
    _set_turn(s, 1 - s.pos.turn)
    if gioul_can_start(s, s.pos.turn):
        return
    _set_turn(s, 1 - s.roller)   # neither player can play the next die: the rest is lost
    _clear_dice(s)
