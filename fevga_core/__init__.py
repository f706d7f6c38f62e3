"""The compiled core of fevga: fixed-size C structs and `nogil` kernels (see docs/architecture.md)."""
