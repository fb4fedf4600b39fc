"""The numpy twin of pca.lua."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

X, v0 = C.load("pca_X"), C.load("pca_V0")
t0 = C.now()
Xc = X - X.mean(axis=0)
S = Xc.T @ Xc / (X.shape[0] - 1)
total = 0.0
for _ in range(5):
    v = v0 / np.linalg.norm(v0)
    for _ in range(100):
        w = S @ v
        lam = float((v * w).sum())
        v = w / np.linalg.norm(w)
    total += lam
    S = S - lam * (v @ v.T)
C.report(t0, total)
