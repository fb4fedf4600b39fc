"""The numpy twin of softmax.lua."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

X, T = C.load("softmax_X"), C.load("softmax_T")
n, lr = X.shape[0], np.float32(0.5)
W = np.zeros((16, 10), np.float32)
b = np.zeros((1, 10), np.float32)
t0 = C.now()
for _ in range(400):
    Z = X @ W + b
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    P = E / E.sum(axis=1, keepdims=True)
    G = (P - T) / np.float32(n)
    W = W - lr * (X.T @ G)
    b = b - lr * G.sum(axis=0, keepdims=True)
loss = -(T * np.log(P + np.float32(1e-7))).sum() / n
C.report(t0, float(loss))
