# Gioul (docs/rules.md §11): its state rows, the Python state type and its net. GioulC, the
# Gioul game state, is in types.pxd; its transitions in state.pxd; its search is search.pxd's.

from fevga_core.types cimport GioulC, uint8_t
from fevga_core.net cimport NetModel

# A 58-byte Gioul row (layout in gioul.pyx) into a state: trusted, so check it first
# (first_invalid_row, gioul_row_problem).
cdef void _load(GioulC* s, const uint8_t* row) noexcept nogil
cdef void gioul_store(const GioulC* s, uint8_t* row) noexcept nogil
cdef int gioul_row_problem(const uint8_t* row) noexcept nogil

cdef class CoreGioul:
    cdef GioulC c

# A Gioul net ("gioul-1" encoding, net.pyx) over a float32 parameter vector it keeps alive.
cdef class CoreGioulNet(NetModel):
    pass
