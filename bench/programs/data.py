"""Data for bench/programs_bench.lua: every program's inputs (and initial
weights), written once as .npy files so the gpumat and numpy versions of a
program start from the same numbers and must end at the same result.

    python3 data.py OUT_DIR

Synthetic stand-ins with fixed seeds (the UCI digits are not available
offline): "digits" has the UCI set's shape, 1797 samples of 64 features
in 0..16 (scaled to [0, 1]) and 10 classes.
"""
import os
import sys

import numpy as np


def one_hot(labels, k):
    t = np.zeros((labels.size, k))
    t[np.arange(labels.size), labels] = 1
    return t


def clusters(rng, n, d, k, spread, scale):
    labels = np.arange(n) % k
    centers = rng.normal(size=(k, d)) * scale
    return centers[labels] + rng.normal(size=(n, d)) * spread, labels


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(28)
    save = lambda name, a: np.save(os.path.join(out, name + ".npy"), np.ascontiguousarray(a))
    # digits-like: 10 prototypes of 8x8 "images", noisy copies rounded to 0..16
    protos = rng.integers(0, 17, size=(10, 64)).astype(float)
    labels = np.arange(1797) % 10
    x = np.clip(np.round(protos[labels] + rng.normal(size=(1797, 64)) * 4), 0, 16) / 16
    save("digits_X", x)
    save("digits_T", one_hot(labels, 10))
    save("mlp_W1", rng.normal(size=(64, 64)) * 0.1)
    save("mlp_W2", rng.normal(size=(64, 10)) * 0.1)
    # softmax regression (examples/softmax.lua's shape): 5000 x 16, 10 classes
    x, labels = clusters(rng, 5000, 16, 10, 1.5, 1.2)
    save("softmax_X", x.astype(np.float32))
    save("softmax_T", one_hot(labels, 10).astype(np.float32))
    # k-means: 20000 points in 16 dimensions around 10 centers
    x, _ = clusters(rng, 20000, 16, 10, 1.0, 3.0)
    save("kmeans_X", x)
    save("kmeans_C0", x[:10 * 37:37])  # 10 of the points as the first centers
    # PCA: 5000 x 64 with a decaying spectrum
    z = rng.normal(size=(5000, 64)) * (0.9 ** np.arange(64))
    q, _ = np.linalg.qr(rng.normal(size=(64, 64)))
    save("pca_X", z @ q.T + 1.0)
    save("pca_V0", rng.normal(size=(64, 1)))
    # logistic regression: 10000 x 32, labels from a noisy linear rule
    x = rng.normal(size=(10000, 32))
    w = rng.normal(size=(32, 1))
    save("logreg_X", x)
    save("logreg_y", ((x @ w + rng.normal(size=(10000, 1))) > 0).astype(float))


if __name__ == "__main__":
    main(sys.argv[1])
