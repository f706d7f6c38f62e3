# Board primitives over the structs of types.pxd: the Zobrist key and the small
# bit tricks every other module inlines.

from cpython.exc cimport PyErr_CheckSignals

from fevga_core.types cimport SideC, PositionC, NUM_ROLLS, NUM_CHECKERS, uint8_t, uint32_t, uint64_t, int32_t

cdef extern from *:
    int __builtin_clz(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil
    int __builtin_popcount(unsigned int) nogil

cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__x86_64__) && !defined(FEVGA_SIMD_GENERIC)
    #include <emmintrin.h>
    #endif
    /* Bit p - 1 set for each of the 24 points p whose count (counts[p], p = 1..24) is not 0:
       two SSE2 compares on x86-64 (FEVGA_SIMD=generic: the loop, as on other targets). */
    static inline uint32_t fevga_points_mask(const uint8_t* counts) {
    #if defined(__x86_64__) && !defined(FEVGA_SIMD_GENERIC)
        const __m128i zero = _mm_setzero_si128();
        uint32_t empty = (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*) (counts + 1)), zero))
                         | (uint32_t) _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadl_epi64((const __m128i*) (counts + 17)), zero)) << 16;
        return ~empty & 0xFFFFFFu;
    #else
        uint32_t mask = 0;
        int p;
        for (p = 1; p <= 24; p++) mask |= (uint32_t) (counts[p] != 0) << (p - 1);
        return mask;
    #endif
    }
    """
    # The occupancy mask of a side's 25 counts (slot 0, off, is not a point).
    uint32_t points_mask "fevga_points_mask" (const uint8_t* counts) noexcept nogil

# THE roll table of the core (every loop over the 21 rolls uses it; Python sees it as
# fevga_core.board.ROLLS and ROLL_WEIGHTS): roll r is (ROLL_D1[r], ROLL_D2[r]) in the order
# 1-1, 1-2, ..., 1-6, 2-2, 2-3, ..., 6-6 (d1 <= d2). ROLL_COUNT[r] is how many of the 36
# ordered rolls give it (1 for a double, 2 otherwise: sums weighted by it are divided by 36
# once, exactly) and ROLL_WEIGHT[r] = ROLL_COUNT[r] / 36 its probability.
cdef int ROLL_D1[NUM_ROLLS]
cdef int ROLL_D2[NUM_ROLLS]
cdef double ROLL_COUNT[NUM_ROLLS]
cdef double ROLL_WEIGHT[NUM_ROLLS]

# ZOBRIST[(color * 25 + slot) * 16 + count]; ZOBRIST[...count 0] == 0.
cdef const uint64_t* zobrist_table() noexcept nogil
cdef uint64_t zobrist_turn() noexcept nogil

cdef uint64_t side_key(const SideC* side, int color) noexcept nogil
cdef void position_update(PositionC* pos) noexcept nogil
cdef uint64_t position_key(const PositionC* pos) noexcept nogil
cdef int side_pips(const SideC* side) noexcept nogil
# Codes of row_problem (mirrored in fevga.batch messages).
cdef enum:
    ROW_BAD_COUNT = 1       # a count above 15, or not 15 checkers per side
    ROW_BAD_TURN = 2
    ROW_SHARED_POINT = 3    # a point held by both colours
    ROW_BOTH_OFF = 4

cdef int row_problem(const uint8_t* row) noexcept nogil
# The first row of an (n, width) array that `problem` (row_problem or a game's own) finds a
# problem in: its index, its code in code[0]; -1 when none (GIL released for the scan).
# InvalidPositionError naming `what` for an array of another width.
ctypedef int (*RowProblemFn)(const uint8_t* row) noexcept nogil
cdef Py_ssize_t first_problem(const uint8_t[:, ::1] rows, int width, RowProblemFn problem, str what,
                              int* code) except -2
# THE position validator: fill `pos` from a Python bytes-like row of POSITION_WIDTH bytes, or
# raise InvalidPositionError naming its first problem (every untrusted row goes through it).
cdef int position_load_checked(PositionC* pos, object row) except -1
cdef str row_problem_text(const uint8_t* row, int code)
cdef int rows_checked(const uint8_t[:, ::1] rows) except -1
cdef int fevga_flags_checked(int flags) except -1
# InvalidDiceError unless `dice` has shape (n, 2): the dice check of the batch kernels over
# (row, dice) pairs.
cdef int dice_shape_checked(const uint8_t[:, ::1] dice, Py_ssize_t n) except -1
cdef int position_load(PositionC* pos, const uint8_t* row) noexcept nogil
# THE start position (docs/rules.md §1): 15 checkers on each side's point 24, `turn` on roll.
# CorePosition() (fevga.Position.initial()) and the Gioul start (gioul_initial) are built by it.
cdef void position_start(PositionC* pos, int turn) noexcept nogil
cdef void position_store(const PositionC* pos, uint8_t* row) noexcept nogil


cdef inline uint32_t rotate12(uint32_t m) noexcept nogil:
    """Occupancy mask in the other side's own numbering (a half turn of the board)."""
    return ((m << 12) | (m >> 12)) & 0xFFFFFF


cdef inline int highest_point(uint32_t mask) noexcept nogil:
    """Highest occupied own point of a non-empty mask."""
    return 32 - __builtin_clz(mask)


cdef inline int longest_run(uint32_t m) noexcept nogil:
    """Length of the longest run of consecutive set bits (consecutive occupied points)."""
    cdef int n = 0
    while m:
        m &= m >> 1
        n += 1
    return n


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    """The splitmix64 finaliser (Steele, Lea & Flood): a bijective 64-bit mix."""
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int check_interrupt() except -1 nogil:
    """Raise KeyboardInterrupt (or the pending signal's exception) from a nogil loop."""
    with gil:
        PyErr_CheckSignals()
    return 0


cdef inline int check_interrupt_every(Py_ssize_t i, Py_ssize_t rows) except -1 nogil:
    """check_interrupt on the last of every `rows` rows of a loop over i (i % rows == rows - 1)."""
    if i % rows == rows - 1:
        check_interrupt()
    return 0


cdef inline int moves_checked(int n) except -1 nogil:
    """THE overflow check of every move generator's count: `n`, or OverflowError where the
    generator said (n < 0) that the caller's buffer was too small."""
    if n < 0:
        with gil:
            raise OverflowError("more legal moves than the generator buffer holds")
    return n


cdef inline int position_winner(const PositionC* pos) noexcept nogil:
    """THE game-over test of both games: 0 or 1 for a side that has borne off all its
    checkers, else -1 (the game goes on)."""
    if pos.side[0].counts[0] == NUM_CHECKERS:
        return 0
    if pos.side[1].counts[0] == NUM_CHECKERS:
        return 1
    return -1


cdef inline int position_points(const PositionC* pos, int winner) noexcept nogil:
    """What the `winner` of a finished game scores: 2 for a mars (the loser has none off), else 1."""
    return 2 if pos.side[1 - winner].counts[0] == 0 else 1
