# Values of no-contact races from the bear-off tables (race.pyx; definitions: docs/rollout.md).

from fevga_core.types cimport PositionC, SideC, int64_t, uint16_t, NUM_CHECKERS
from fevga_core.bearoff cimport OneSidedTableC, TwoSidedTableC, position_rank

# Bear-off tables an evaluator may consult; a table with points == 0 is absent.
ctypedef struct TablesC:
    OneSidedTableC one
    TwoSidedTableC two

# The Python-side owner of a TablesC (arrays kept alive in _keep).
cdef class Tables:
    cdef TablesC c
    cdef list _keep

# Tables that hold no table (an evaluator without bear-off override).
cdef const TablesC* no_tables() noexcept nogil

cdef bint no_contact(const PositionC* pos) noexcept nogil
# THE race estimate (docs/bearoff.md "Race estimates"; fevga.bearoff.race_estimate wraps it):
# side `a` on roll against `b`, both covered by the one-sided table `one`, the two sides'
# numbers of rolls taken as independent. A side with every checker off has already won.
cdef void race_estimate(const OneSidedTableC* one, const SideC* a, const SideC* b, double* equity,
                        double* win, double* win_mars, double* lose_mars) noexcept nogil
# Exact from the two-sided table when it covers both sides, else race_estimate; False when
# the position is not a no-contact race the tables cover.
cdef bint race_value(const TablesC* tables, const PositionC* pos, double* equity, double* win,
                     double* win_mars, double* lose_mars) noexcept nogil


cdef inline bint side_covered(const SideC* side, int points, int checkers) noexcept nogil:
    """True when a table over `points` points and `checkers` checkers holds this side."""
    return points > 0 and (side.mask >> points) == 0 and NUM_CHECKERS - side.counts[0] <= checkers


cdef inline int64_t side_rank(const SideC* side, int points) noexcept nogil:
    return position_rank(&side.counts[1], points)
