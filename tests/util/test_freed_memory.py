"""return_freed_memory gives the pages freed objects leave inside glibc's heap back."""

from __future__ import annotations

import ctypes.util
import subprocess
import sys

import pytest

from kgcert.util.freed_memory import return_freed_memory

# Many 1 kB buffers (from malloc's heap, not mmap), one in a hundred kept: the free space
# between them cannot shrink the heap's top, so only a trim returns it.
CHILD = """
import sys
from kgcert.util.freed_memory import return_freed_memory
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096
made = [bytes(1000) + bytes([i % 251]) for i in range(300_000)]
kept = made[::100]
del made
before = rss()
assert return_freed_memory()
print(before - rss())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or ctypes.util.find_library("c") is None,
                    reason="glibc's malloc_trim is Linux only")
def test_freed_heap_pages_go_back_to_the_system() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          check=True)
    assert int(done.stdout) > 100_000_000  # of about 300 MB made and dropped


def test_it_is_safe_to_call_anywhere() -> None:
    assert return_freed_memory() in (True, False)
