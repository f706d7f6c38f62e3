"""Scripts the tests and tests/probe_sweep.py run in child processes (plain text: importing
this module imports nothing, so the sweep can load it before it sets up fevga's environment)."""


def slow_writer(size: int) -> str:
    """A child that atomically writes `size` bytes to the path in argv[1], prints "writing"
    once they are written, and then sleeps inside the write (to be killed there)."""
    return f"""
import sys, time
from fevga.files import atomic_write
def write(handle):
    handle.write(b"x" * {size})
    handle.flush()
    print("writing", flush=True)
    time.sleep(600)
atomic_write(sys.argv[1], write)
"""
