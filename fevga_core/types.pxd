# Typedefs, constants and structs shared by every module of the core.
#
# Numbering: each side stores its checkers in its OWN numbering (docs/rules.md §1):
# slot 0 = borne off, slots 1..24 = own points, 24 = the mother, 1..6 = home.
# The opponent's own point k is my own point ((k + 11) % 24) + 1, so the
# opponent's occupancy mask in my numbering is its mask rotated by 12 bits.

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t, int64_t

cdef enum:
    NUM_POINTS = 24
    NUM_SLOTS = 25          # slot 0 = off, 1..24 = own points
    NUM_CHECKERS = 15
    MAX_STEPS = 4           # single-die steps in one turn
    MAX_MOVES = 4096        # distinct legal moves of one turn (true maximum is far lower)
    POSITION_WIDTH = 51     # columns of the batch position array (see movegen.pyx)
    GIOUL_WIDTH = 58        # columns of a Gioul state row: a position row and 7 state bytes (state.pyx)
    NUM_ROLLS = 21          # distinct rolls of two dice (board.pxd: ROLL_D1, ROLL_D2, ...)

cdef enum:
    COLOR_WHITE = 0
    COLOR_BLACK = 1

# Rule flags (mirrors fevga.rules.FLAG_*).
cdef enum:
    FLAG_RELEASE_REACH = 1
    FLAG_QUARTER_END_OF_TURN = 2
    FLAG_BAN_PRIME = 4
    FLAG_MUST_OPEN_NO_PLAYABLE = 8
    FLAG_OPENING_DICE = 16
    FLAG_GIOUL = 32              # Gioul's moving (docs/rules.md §11.1): no mother rule, no prime rules
    FEVGA_FLAGS = 31             # every bit a Fevga position's rules may set

# Occupancy masks: bit (p - 1) is own point p.
cdef enum:
    BOARD_MASK = 0xFFFFFF
    HOME_MASK = 0x3F            # own points 1..6
    START_QUARTER_MASK = 0xFC0000   # own points 19..24
    BEFORE_OPP_MOTHER_MASK = 0x7E0  # own points 6..11 = opponent's own 18..23
    MOTHER_BIT = 0x800000           # own point 24

# One side of the board, in its own numbering.
# counts[0] = borne off, counts[1..24] = own points; counts[25..27] padding (always 0).
# mask has bit p-1 set iff counts[p] > 0 (p = 1..24); it is derived, kept in step.
ctypedef struct SideC:
    uint8_t counts[28]
    uint32_t mask

# A full position: both sides and the side on roll. Its 64-bit Zobrist key is computed
# when asked (board.position_key): no loop of the engine reads it.
ctypedef struct PositionC:
    SideC side[2]
    uint8_t turn

# One legal move (a full turn): the mover's side after it and one representative sequence
# of steps. steps[i] = (from, to) in the mover's own numbering, to == 0 means borne off.
ctypedef struct MoveC:
    SideC after
    uint8_t steps[MAX_STEPS][2]     # before nsteps: 8-aligned, one store (movegen's leaf writer)
    uint8_t nsteps

# A Gioul game state (§11.5). `pos` is the board; pos.turn is the side that plays the
# pending decision, or, with no dice pending (count == 0), the side that rolls next.
# The dice still to play are: `count` dice of `die` (1-4), then four of each number
# die+1 .. last (later chain blocks; last == die when there are none); or, when `pair`
# is not 0, the two different dice `die` and `pair` of a non-double (count == 1).
ctypedef struct GioulC:
    PositionC pos
    uint8_t rolls[2]    # own rolls each side has made, counted up to 3 (3: next is roll 4+)
    uint8_t roller      # the side that rolled the pending dice (0 when none are pending)
    uint8_t die
    uint8_t count       # 0: no dice pending, a new roll is due
    uint8_t last
    uint8_t pair


# Either game's state, for the functions written once for both (net.pxd encode_inputs,
# net_base, net_finish, net_evaluate), specialised at compile time by `if StateC is PositionC`.
ctypedef fused StateC:
    PositionC
    GioulC
