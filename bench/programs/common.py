"""Shared by the numpy programs: data, timing and the report lines."""
import os
import sys
import time

import numpy as np

DATA = sys.argv[1]


def load(name):
    return np.load(os.path.join(DATA, name + ".npy"))


_cpu0 = [0.0]


def report(t0, result):
    t, cpu = time.perf_counter() - t0, time.process_time() - _cpu0[0]
    peak = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1])
    print("time %.6f" % t)
    print("cpu %.6f" % cpu)
    print("result %.12g" % result)
    print("peak_kb %d" % peak)


def now():
    """The wall clock; also starts the CPU-time count of report."""
    _cpu0[0] = time.process_time()
    return time.perf_counter()
