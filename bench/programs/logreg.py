"""The numpy twin of logreg.lua."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

X, y = C.load("logreg_X"), C.load("logreg_y")
n, lr = X.shape[0], 0.5
w, b = np.zeros((32, 1)), 0.0
t0 = C.now()
for _ in range(300):
    p = 1 / (1 + np.exp(-(X @ w + b)))
    e = p - y
    w = w - lr * (X.T @ e) / n
    b = b - lr * e.mean()
loss = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
C.report(t0, float(loss))
