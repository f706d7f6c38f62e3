from fevga_core.types cimport PositionC

# The thin owner of one PositionC; fevga.Position subclasses it with the Python API.
cdef class CorePosition:
    cdef PositionC c
