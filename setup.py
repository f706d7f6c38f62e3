"""Build the Cython core (`fevga_core`) next to the pure-Python package (`fevga`).

All Cython compiler directives live in COMPILER_DIRECTIVES below, the one place where a
misspelled directive is an error instead of being silently ignored.
Set FEVGA_DEBUG=1 to build with bounds and wrap-around checks turned back on.
Set FEVGA_SANITIZE=1 to build with AddressSanitizer and UndefinedBehaviorSanitizer
(-fsanitize=address,undefined); such a build must run under LD_PRELOAD=$(gcc
-print-file-name=libasan.so), see .ci/sanitize, which builds one in a copy of the tree.
Set FEVGA_ONLY=movegen,bearoff to (re)build only those core modules during development.
The modules are translated and compiled in parallel on every core (FEVGA_BUILD_JOBS=N to choose).
Cython's utility code (memoryviews, argument parsing, ...) is generated once, into the shared
module fevga_core._cyutility, instead of into every module: it was two thirds of each module's
C, and the build now compiles half as much.
FEVGA_SIMD picks the SIMD paths of the quantised evaluator (fevga_core/qnet.pyx) and board's
points mask:
  dispatch (default)  x86-64: the baseline (SSE2) and an AVX2 clone, chosen at import by the
                      CPU, so the build runs on any x86-64 machine; elsewhere as portable
  portable            the compiler's baseline for the target only (aarch64: NEON)
  native              -march=native: the build machine's best, not for other machines
  generic             the vector-extension kernels only, no intrinsics (the path of targets
                      other than x86-64, built here to check it gives the same bits)
"""

import os
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

DEBUG = os.environ.get("FEVGA_DEBUG", "") not in ("", "0")
SANITIZE = os.environ.get("FEVGA_SANITIZE", "") not in ("", "0")
SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]

COMPILER_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": True,
    "initializedcheck": DEBUG,
    "nonecheck": False,
    "embedsignature": True,
}

JOBS = int(os.environ.get("FEVGA_BUILD_JOBS", "0")) or os.cpu_count() or 1

CORE = Path("fevga_core")
SHARED_UTILITY = "fevga_core._cyutility"
only = {name for name in os.environ.get("FEVGA_ONLY", "").split(",") if name}
SIMD = os.environ.get("FEVGA_SIMD", "dispatch")
if SIMD not in ("dispatch", "portable", "native", "generic"):
    raise SystemExit(f"FEVGA_SIMD={SIMD!r} must be dispatch, portable, native or generic")
# Per-module extras. The quantised kernels are integer code; -ffp-contract=off keeps the float
# tail (logits, sigmoids) free of fused multiply-adds, identical whatever the target.
MODULE_FLAGS = {
    "fevga_core.qnet": (["-march=native"] if SIMD == "native" else []) + ["-ffp-contract=off"],
}
MODULE_MACROS = {
    # `cdef inline` in the move generator means inline: left to gcc's growth limits, whether its
    # hot leaf writers were inlined changed with unrelated code in the same file (movegen's
    # callgrind count moved 4,336 -> 4,499 instructions a pair when generate_batch grew a hook)
    "fevga_core.movegen": [("CYTHON_INLINE", "inline __attribute__((always_inline))")],
    "fevga_core.qnet": [("FEVGA_SIMD_DISPATCH", "1")] if SIMD == "dispatch" else [],
}
# FEVGA_SIMD=generic: every module's vector code (the qnet kernels, board's points mask) as portable C
SIMD_MACROS = [("FEVGA_SIMD_GENERIC", "1")] if SIMD == "generic" else []


def core_extension(name: str, source: str) -> Extension:
    """One extension module of the core, built with the flags of this build's kind."""
    return Extension(
        name,
        [source],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"), *SIMD_MACROS, *MODULE_MACROS.get(name, [])],
        extra_compile_args=(["-O1", "-g", *SANITIZE_FLAGS] if SANITIZE else ["-O0", "-g"] if DEBUG else ["-O3"])
        + MODULE_FLAGS.get(name, []),
        extra_link_args=SANITIZE_FLAGS if SANITIZE else [],
    )


extensions = [
    core_extension(f"fevga_core.{pyx.stem}", str(pyx))
    for pyx in sorted(CORE.glob("*.pyx"))
    if not only or pyx.stem in only
]
if not only:  # cythonize writes its C file; FEVGA_ONLY builds reuse the one already built
    extensions.append(core_extension(SHARED_UTILITY, str(CORE / "_cyutility.c")))

setup(
    # Every package under src/ is found, so a new sub-package cannot be left out of the wheel
    # (tests/test_packaging.py also compares the wheel's files with the tracked tree).
    packages=[*find_packages("src"), "fevga_core"],
    package_dir={"": "src", "fevga_core": "fevga_core"},
    package_data={"fevga": ["py.typed"], "fevga.data": ["*.npz", "*.json", "*.png"],
                  "fevga.service": ["static/*.html", "static/*.js", "static/*.css"],  # the browser board
                  "fevga_core": ["*.pxd", "*.pyi", "py.typed"]},
    ext_modules=cythonize(
        extensions,
        compiler_directives=COMPILER_DIRECTIVES,
        shared_utility_qualified_name=SHARED_UTILITY,
        nthreads=JOBS if JOBS > 1 else 0,
        show_all_warnings=False,
        annotate=os.environ.get("FEVGA_ANNOTATE", "") not in ("", "0"),
    ),
    options={"build_ext": {"parallel": JOBS}},
    zip_safe=False,
)
