# Zobrist hashing and conversions between the structs and the flat row layout.
#
# Zobrist table (part of the position format; tests pin known keys):
#   ZOBRIST[(color * 25 + slot) * 16 + count] for color 0 (White) / 1 (Black),
#   slot 0..24 (0 = off, own numbering) and count 0..15, with every count-0 entry 0.
#   Entries with count >= 1 are successive outputs of splitmix64 seeded with
#   ZOBRIST_SEED, taken in increasing index order; ZOBRIST_TURN is the next output.
#   key(position) = XOR over both colors and all slots of ZOBRIST[color, slot, count]
#                   XOR (ZOBRIST_TURN if Black is on roll).
#
# Flat row layout (POSITION_WIDTH = 51 uint8 columns, used by the batch API):
#   row[0:25]  White's counts in White's own numbering (row[0] = borne off)
#   row[25:50] Black's counts in Black's own numbering (row[25] = borne off)
#   row[50]    side on roll: 0 = White, 1 = Black

from libc.string cimport memset, memcpy

from fevga_core.types cimport (
    NUM_SLOTS, NUM_CHECKERS, POSITION_WIDTH, NUM_ROLLS, FEVGA_FLAGS, SideC, PositionC, uint8_t, uint32_t, uint64_t, int32_t,
)

from fevga_core.errors import InvalidArgumentError, InvalidDiceError, InvalidPositionError, InvalidRulesError


ZOBRIST_SEED = 0x46455647415A4F42  # "FEVGAZOB", the splitmix64 seed of the table

cdef uint64_t ZOBRIST[2 * 25 * 16]
cdef uint64_t ZOBRIST_TURN


cdef inline uint64_t splitmix64_next(uint64_t* state) noexcept nogil:
    state[0] += 0x9E3779B97F4A7C15ULL
    return mix64(state[0])


cdef void _fill_zobrist() noexcept nogil:
    global ZOBRIST_TURN
    cdef uint64_t state = 0x46455647415A4F42ULL
    cdef int i
    for i in range(2 * 25 * 16):
        ZOBRIST[i] = 0 if i % 16 == 0 else splitmix64_next(&state)
    ZOBRIST_TURN = splitmix64_next(&state)


_fill_zobrist()


cdef void _fill_rolls() noexcept nogil:
    cdef int a, b, i = 0
    for a in range(1, 7):
        for b in range(a, 7):
            ROLL_D1[i] = a
            ROLL_D2[i] = b
            ROLL_COUNT[i] = 1.0 if a == b else 2.0
            ROLL_WEIGHT[i] = ROLL_COUNT[i] / 36.0
            i += 1


_fill_rolls()

ROLLS = tuple((ROLL_D1[i], ROLL_D2[i]) for i in range(NUM_ROLLS))
ROLL_WEIGHTS = tuple(ROLL_WEIGHT[i] for i in range(NUM_ROLLS))


cdef const uint64_t* zobrist_table() noexcept nogil:
    return ZOBRIST


cdef uint64_t zobrist_turn() noexcept nogil:
    return ZOBRIST_TURN


cdef uint64_t side_key(const SideC* side, int color) noexcept nogil:
    """The side's part of the key; its mask must be current (an empty slot's entry is 0)."""
    cdef const uint64_t* z = ZOBRIST + color * 25 * 16
    cdef uint64_t key = z[side.counts[0]]
    cdef uint32_t m = side.mask
    cdef int slot
    while m:
        slot = __builtin_ctz(m) + 1
        m &= m - 1
        key ^= z[slot * 16 + side.counts[slot]]
    return key


cdef void position_update(PositionC* pos) noexcept nogil:
    """Recompute the derived fields (the masks) from the counts."""
    pos.side[0].mask = points_mask(pos.side[0].counts)
    pos.side[1].mask = points_mask(pos.side[1].counts)


cdef uint64_t position_key(const PositionC* pos) noexcept nogil:
    """The position's 64-bit Zobrist key (the table above; its masks must be current).
    Computed when asked, not kept in every position and move the engine makes: only the
    Python side (hash, key()) reads it."""
    cdef uint64_t key = side_key(&pos.side[0], 0) ^ side_key(&pos.side[1], 1)
    return key ^ ZOBRIST_TURN if pos.turn else key


cdef int side_pips(const SideC* side) noexcept nogil:
    cdef int p, pips = 0
    for p in range(1, NUM_SLOTS):
        pips += p * side.counts[p]
    return pips


cdef void position_start(PositionC* pos, int turn) noexcept nogil:
    cdef uint8_t row[POSITION_WIDTH]
    memset(row, 0, POSITION_WIDTH)
    row[NUM_SLOTS - 1] = NUM_CHECKERS
    row[2 * NUM_SLOTS - 1] = NUM_CHECKERS
    row[2 * NUM_SLOTS] = turn
    position_load(pos, row)


cdef int position_load(PositionC* pos, const uint8_t* row) noexcept nogil:
    """Fill `pos` from a flat row (trusted: validated at the Python boundary)."""
    memset(pos, 0, sizeof(PositionC))
    memcpy(pos.side[0].counts, row, NUM_SLOTS)
    memcpy(pos.side[1].counts, row + NUM_SLOTS, NUM_SLOTS)
    pos.turn = row[2 * NUM_SLOTS]
    position_update(pos)
    return 0


cdef int row_problem(const uint8_t* row) noexcept nogil:
    """0 if a flat row is a valid position, else the ROW_* code of its first problem."""
    cdef int color, slot, total
    cdef uint8_t high
    for color in range(2):
        total = 0
        high = 0
        for slot in range(NUM_SLOTS):      # no exit in the loop: the compiler vectorises it
            total += row[color * NUM_SLOTS + slot]
            high |= row[color * NUM_SLOTS + slot]
        if high > 15 or total != 15:        # a count above 15 sets a bit above 15 in `high`
            return ROW_BAD_COUNT
    if row[2 * NUM_SLOTS] > 1:
        return ROW_BAD_TURN
    if points_mask(row) & rotate12(points_mask(row + NUM_SLOTS)):    # rotate12: Black's points in White's numbering
        return ROW_SHARED_POINT
    if row[0] == 15 and row[NUM_SLOTS] == 15:
        return ROW_BOTH_OFF
    return 0


cdef str row_problem_text(const uint8_t* row, int code):
    """What is wrong with a row whose row_problem() is `code` (an error message fragment)."""
    cdef int color, slot, total
    cdef str name
    if code == ROW_BAD_COUNT:
        for color in range(2):
            name = ("white", "black")[color]
            total = 0
            for slot in range(NUM_SLOTS):
                if row[color * NUM_SLOTS + slot] > NUM_CHECKERS:
                    return f"{name} has {row[color * NUM_SLOTS + slot]} checkers on slot {slot}: counts must each be 0-15"
                total += row[color * NUM_SLOTS + slot]
            if total != NUM_CHECKERS:
                return f"{name} counts hold {total} checkers, not {NUM_CHECKERS}"
    if code == ROW_BAD_TURN:
        return f"turn {row[2 * NUM_SLOTS]} must be WHITE (0) or BLACK (1)"
    if code == ROW_SHARED_POINT:
        for slot in range(1, NUM_SLOTS):
            if row[slot] and row[NUM_SLOTS + (slot + 11) % 24 + 1]:
                return (f"printed point {slot} holds both white ({row[slot]}) and black "
                        f"({row[NUM_SLOTS + (slot + 11) % 24 + 1]}) checkers")
    if code == ROW_BOTH_OFF:
        return "both sides have borne off all 15 checkers"
    return "is valid"


cdef int position_load_checked(PositionC* pos, object row) except -1:
    cdef const uint8_t[::1] view
    cdef int code
    try:
        view = row
    except (TypeError, ValueError, BufferError):
        raise InvalidPositionError(f"position row {row!r} must be {POSITION_WIDTH} bytes") from None
    if view.shape[0] != POSITION_WIDTH:
        raise InvalidPositionError(f"position row of {view.shape[0]} bytes must be {POSITION_WIDTH} bytes")
    code = row_problem(&view[0])
    if code:
        raise InvalidPositionError(f"{row_problem_text(&view[0], code)} (position row {list(view)})")
    position_load(pos, &view[0])
    return 0


cdef int rows_checked(const uint8_t[:, ::1] rows) except -1:
    """InvalidPositionError naming the first invalid row of an (n, 51) array (GIL released)."""
    index, code = first_invalid_row(rows)
    if code:
        raise InvalidPositionError(f"position row {index} {row_problem_text(&rows[index, 0], code)}")
    return 0


cdef int dice_shape_checked(const uint8_t[:, ::1] dice, Py_ssize_t n) except -1:
    if dice.shape[0] != n or dice.shape[1] != 2:
        raise InvalidDiceError(f"dice must have shape ({n}, 2), not ({dice.shape[0]}, {dice.shape[1]})")
    return 0


cdef int fevga_flags_checked(int flags) except -1:
    """InvalidRulesError unless `flags` combines Fevga's rule bits (types.pxd FLAG_*): the one
    flags check of every core entry point."""
    if flags < 0 or flags & ~FEVGA_FLAGS:
        raise InvalidRulesError(f"rule flags {flags} must be a combination of the Fevga bits of {FEVGA_FLAGS}")
    return 0


cdef Py_ssize_t first_problem(const uint8_t[:, ::1] rows, int width, RowProblemFn problem, str what,
                              int* code) except -2:
    cdef Py_ssize_t i, n = rows.shape[0]
    if rows.shape[1] != width:
        raise InvalidPositionError(f"{what} rows must have {width} columns, not {rows.shape[1]}")
    code[0] = 0
    with nogil:
        for i in range(n):
            code[0] = problem(&rows[i, 0])
            if code[0]:
                return i
    return -1


def first_invalid_row(const uint8_t[:, ::1] rows):
    """(index, ROW_* code) of the first invalid row of an (n, 51) uint8 array, or (-1, 0); GIL released."""
    cdef int code
    cdef Py_ssize_t i = first_problem(rows, POSITION_WIDTH, row_problem, "position", &code)
    return (i, code)


cdef void position_store(const PositionC* pos, uint8_t* row) noexcept nogil:
    cdef int slot
    for slot in range(NUM_SLOTS):
        row[slot] = pos.side[0].counts[slot]
        row[NUM_SLOTS + slot] = pos.side[1].counts[slot]
    row[2 * NUM_SLOTS] = pos.turn


def zobrist_entry(int color, int slot, int count):
    """One entry of the Zobrist table (for tests and documentation)."""
    if not (0 <= color <= 1 and 0 <= slot < 25 and 0 <= count < 16):
        raise InvalidArgumentError(f"no Zobrist entry ({color}, {slot}, {count})")
    return ZOBRIST[(color * 25 + slot) * 16 + count]


def zobrist_turn_key():
    """The key toggled when Black is on roll."""
    return ZOBRIST_TURN
