from fevga_core.types cimport PositionC, MoveC
from fevga_core.movegen cimport MoveList

# The thin owner of one PositionC; fevga.Position subclasses it with the Python API.
cdef class CorePosition:
    cdef PositionC c

# The n moves of `position` generated into `moves` (copied out at once) as its legal-move
# sequence of `move_cls` values, as CorePosition._legal_moves gives them.
cdef MoveList position_moves(CorePosition position, const MoveC* moves, int n, type move_cls)
