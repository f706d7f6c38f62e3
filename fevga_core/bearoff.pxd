# Bear-off databases: the C-level surface that other core modules (a rollout engine) cimport.
#
# Ranking (combinatorial index of one side's checkers on points 1..P, P <= MAX_POINTS).
#   counts[i] = checkers on own point i + 1 (counts[0] = point 1), total S <= checkers.
#   Let T_j = counts[P-1] + ... + counts[P-j] (checkers on the top j points), j = 1..P.
#   rank = sum over j = 1..P of C(T_j + j - 1, j)            (colex rank of a P-subset)
#   Properties the builders rely on:
#     * rank 0 is the empty side (everything borne off);
#     * positions with at most S checkers are exactly ranks 0 .. C(S + P, P) - 1 (prefix), so
#       the positions with exactly `checkers` on the board are the contiguous suffix
#       C(checkers - 1 + P, P) .. C(checkers + P, P) - 1;
#     * moving a checker down or off strictly lowers the rank, so one pass in rank order
#       sees every successor before its predecessor.
#
# One-sided table (OneSidedTableC), `entries` = C(checkers + P, P) ranks:
#   mean[rank], stdev[rank]                 expected rolls to bear off all, its deviation
#   dist_offset[rank], dist_start[rank], dist_length[rank]
#       P(rolls = dist_start + i) = dist_pool[dist_offset + i] for i < dist_length; 0 elsewhere
#   first_*: the same for "rolls until the first checker is off", only for the suffix of
#       positions with exactly `checkers` on the board, indexed by rank - first_base.
#
# Two-sided table (TwoSidedTableC), `positions` = C(checkers + P, P) ranks per side:
#   equity[on_roll_rank * positions + opponent_rank]   equity of the side on roll
#   win[...] (NULL when no mars is possible, then win = (1 + equity) / 2)
#   Terminal rows: equity(x, empty) = -1 (-2 with `total` checkers on x: mars),
#   equity(empty, y) = +1 (+2 with `total` on y), equity(empty, empty) = 0.

from libc.stdint cimport int64_t, int32_t, uint8_t, uint16_t

cdef enum:
    MAX_POINTS = 11
    MAX_CHECKERS = 15
    MAX_ROLLS = 128
    BINOM_SIZE = 32

cdef struct OneSidedTableC:
    int points
    int checkers
    int64_t entries
    const double* mean
    const double* stdev
    const int64_t* dist_offset
    const uint16_t* dist_start
    const uint16_t* dist_length
    const double* dist_pool
    int64_t first_base
    const double* first_mean
    const int64_t* first_offset
    const uint16_t* first_start
    const uint16_t* first_length
    const double* first_pool

cdef struct TwoSidedTableC:
    int points
    int checkers
    int total
    int64_t positions
    const double* equity
    const double* win

# Fill a table struct from the arrays of a fevga.bearoff OneSidedDB / TwoSidedDB (`db._a`); the
# caller keeps the arrays alive while the struct is used. Raises ValueError on a wrong dtype.
cdef int fill_one_sided_table(dict arrays, int points, int checkers, OneSidedTableC* out) except -1
cdef int fill_two_sided_table(dict arrays, int points, int checkers, int total,
                              TwoSidedTableC* out) except -1

cdef int64_t binomial(int n, int k) noexcept nogil
cdef int64_t position_rank(const uint8_t* counts, int points) noexcept nogil
cdef void position_unrank(int64_t rank, int points, uint8_t* counts) noexcept nogil
cdef int64_t position_count(int points, int checkers) noexcept nogil

cdef double one_sided_mean(const OneSidedTableC* table, int64_t rank) noexcept nogil
cdef int one_sided_distribution(const OneSidedTableC* table, int64_t rank,
                                double* out, int out_length) noexcept nogil
cdef double two_sided_equity(const TwoSidedTableC* table, int64_t on_roll_rank,
                             int64_t opponent_rank) noexcept nogil
cdef double two_sided_win(const TwoSidedTableC* table, int64_t on_roll_rank,
                          int64_t opponent_rank) noexcept nogil
