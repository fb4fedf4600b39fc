"""Shared by the numpy programs: data, timing and the report lines."""
import os
import sys
import time

import numpy as np

DATA = sys.argv[1]


def load(name):
    return np.load(os.path.join(DATA, name + ".npy"))


def report(t0, result):
    t = time.perf_counter() - t0
    peak = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1])
    print("time %.6f" % t)
    print("result %.12g" % result)
    print("peak_kb %d" % peak)


now = time.perf_counter
