"""The live-heap counters realstep.py reads: live_heap.so's, or none when only time is measured."""
import ctypes
import sys


class Heap:
    """The counters of live_heap.so, found in the process's global symbols."""

    def __init__(self):
        lib = ctypes.CDLL(None)
        try:
            self._live, self._peak, self._reset = (
                lib.tb_heap_live, lib.tb_heap_peak, lib.tb_heap_reset_peak)
        except AttributeError:
            sys.exit("realstep.py: live_heap.so is not preloaded (run with LD_PRELOAD=live_heap.so)")
        self._live.restype = ctypes.c_longlong
        self._peak.restype = ctypes.c_longlong

    def live(self):
        return self._live()

    def peak(self):
        return self._peak()

    def reset(self):
        self._reset()


def rss_peak_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


class NoHeap:
    """Stands in for the counters when only time is measured (no live_heap.so needed)."""

    def live(self):
        return 0

    def peak(self):
        return 0

    def reset(self):
        pass
