"""The numpy twin of mlp.lua."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

X, T = C.load("digits_X"), C.load("digits_T")
W1, W2 = C.load("mlp_W1"), C.load("mlp_W2")
n = X.shape[0]
b1, b2 = np.zeros((1, 64)), np.zeros((1, 10))
params = [W1, b1, W2, b2]
m = [np.zeros_like(p) for p in params]
v = [np.zeros_like(p) for p in params]
lr, beta1, beta2, eps = 0.01, 0.9, 0.999, 1e-8
t0 = C.now()
for t in range(1, 301):
    H = np.tanh(X @ W1 + b1)
    Z = H @ W2 + b2
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    P = E / E.sum(axis=1, keepdims=True)
    G = (P - T) / n
    dH = (G @ W2.T) * (1 - H * H)
    grads = [X.T @ dH, dH.sum(axis=0, keepdims=True), H.T @ G, G.sum(axis=0, keepdims=True)]
    c = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    for i, g in enumerate(grads):
        m[i] = beta1 * m[i] + (1 - beta1) * g
        v[i] = beta2 * v[i] + (1 - beta2) * (g * g)
        params[i] = params[i] - c * m[i] / (np.sqrt(v[i]) + eps)
    W1, b1, W2, b2 = params
loss = -(T * np.log(P)).sum() / n
C.report(t0, loss)
