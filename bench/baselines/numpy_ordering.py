"""numpy baselines of bench/ordering_bench.lua (ops o_*), imported by
numpy_ops.py: sorting, selection, unique and searchsorted on the hashed
data the Lua side makes, h(k) = (k * 2654435761) % 2^32 for k = 0..n-1
(float32 h / 2^32; int32 h % 1000)."""
import numpy as np


def hashed(n):
    k = np.arange(n, dtype=np.int64)
    return (k * 2654435761) % (1 << 32)


def topk(a, k):
    """numpy's usual top-k: argpartition, then the k sorted (largest first)."""
    i = np.argpartition(a, -k)[-k:]
    i = i[np.argsort(a[i])[::-1]]
    return a[i], i


def ordering_op(op, shape, dtype):
    """(f, note) for an o_* op, f its allocating form (numpy_ops.py times
    it with last_of), or None."""
    if not op.startswith("o_"):
        return None
    size = int(np.prod(shape))
    if op == "o_unique1000":
        a = (hashed(size) % 1000).astype(np.int32)
        return (lambda: np.unique(a)), "np.unique(a)"
    if op == "o_searchsorted":  # shape: (sorted length, queries)
        s = np.sort((hashed(shape[0]) / 2.0**32).astype(np.float32))
        q = (hashed(shape[1]) / 2.0**32).astype(np.float32)
        return (lambda: np.searchsorted(s, q)), "np.searchsorted(s, q)"
    a = (hashed(size) / 2.0**32).astype(np.float32).reshape(shape)
    forms = {
        "o_sort": (lambda: np.sort(a, axis=-1), "np.sort(a, axis=-1)"),
        "o_argsort": (lambda: np.argsort(a, axis=-1), "np.argsort(a) (quicksort)"),
        "o_topk10": (lambda: topk(a, 10), "argpartition + argsort of the 10"),
    }
    return forms[op]
