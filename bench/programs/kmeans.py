"""The numpy twin of kmeans.lua."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

X, Cs = C.load("kmeans_X"), C.load("kmeans_C0")
K = Cs.shape[0]
ks = np.arange(K)
t0 = C.now()
for _ in range(30):
    D = (X ** 2).sum(axis=1, keepdims=True) - 2 * (X @ Cs.T) + (Cs ** 2).sum(axis=1)
    labels = D.argmin(axis=1)[:, None]
    onehot = (labels == ks).astype(X.dtype)
    Cs = (onehot.T @ X) / onehot.sum(axis=0)[:, None]
C.report(t0, D.min(axis=1).sum())
