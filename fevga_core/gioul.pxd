# Gioul (docs/rules.md §11): the Python state type and its moves, row checks, its net. GioulC,
# the Gioul game state, is in types.pxd; its transitions and rows in state.pxd; its search is
# search.pxd's.

from fevga_core.types cimport GioulC, MoveC, uint8_t
from fevga_core.movegen cimport MoveList
from fevga_core.position cimport CoreBoard
from fevga_core.net cimport NetModel

# InvalidPositionError naming the first row of an (n, 58) array that is not a valid Gioul state.
cdef int gioul_rows_checked(const uint8_t[:, ::1] rows) except -1

cdef class CoreGioul(CoreBoard):
    cdef GioulC c

# The legal-move sequence of a decision of `state` (its _legal_moves' type): `before` with the
# decision's dice pending, its n moves (copied; not in a buffer another call may overwrite).
cdef MoveList gioul_move_list(CoreGioul state, const GioulC* before, const MoveC* moves, int n, type move_cls)

# A Gioul net ("gioul-1" encoding, net.pyx) over a float32 parameter vector it keeps alive.
cdef class CoreGioulNet(NetModel):
    pass
