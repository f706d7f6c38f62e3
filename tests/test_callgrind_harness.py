"""benchmarks/callgrind.py counts the engine's instructions only: the self cost of the
fevga_core objects and their direct calls into the C libraries, read from a callgrind output
file (here a hand-written one in callgrind's format, name compression included)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "callgrind.py"

OUTPUT = """\
# callgrind format
version: 1
creator: callgrind-3.19.0
cmd: python
positions: line
events: Ir
summary: 100000

ob=(1) /usr/lib/libpython3.11.so.1.0
fl=(1) ???
fn=(1) _PyEval_EvalFrameDefault
0 50000
cob=(2) /work/x/fevga_core/movegen.cpython-311-x86_64-linux-gnu.so
cfi=(2) movegen.c
cfn=(2) count_moves
calls=1 0
0 4321
ob=(2)
fl=(2)
fn=(2)
15 4000
+2 200
cfn=(3) generate_moves
calls=10 0
* 100
cob=(3) /usr/lib/x86_64-linux-gnu/libc.so.6
cfi=(3) ???
cfn=(4) memcpy
calls=3 0
0 21
cob=(1)
cfn=(1)
calls=1 0
0 999
fn=(3)
0 100
ob=(3)
fl=(3)
fn=(4)
0 21
ob=(4) /usr/lib/x86_64-linux-gnu/libm.so.6
fn=(5) expf
0 777
"""


def _harness():
    spec = importlib.util.spec_from_file_location("callgrind_harness", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_engine_instructions_are_the_core_objects_and_their_c_library_calls(tmp_path) -> None:
    path = tmp_path / "callgrind.out"
    path.write_text(OUTPUT)
    # movegen's self cost 4000 + 200 + 100 (generate_moves, same object), plus the 21 of the
    # memcpy it calls; not the 999 of its call back into the interpreter, not the
    # interpreter's own 50,000 nor its inclusive 4,321 call into the core, nor libm's 777
    # (called by nobody in the core here)
    assert _harness().engine_instructions(path) == 4000 + 200 + 100 + 21
