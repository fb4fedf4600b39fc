"""NumPy differential oracle for indexing, ordering, sets and scans,
numpy side (run with /usr/bin/python3).

    /usr/bin/python3 tools/oracle/indexing.py OUT.json...

Replays every case written by tools/oracle/indexing.lua with numpy in the
case's own dtypes and compares gpumat's results: the dtype, the dims, and
every element (integers and bools exactly; floats within a relative
1e-3 (float16), 2e-6 (float32) or 1e-12 (float64) times the number of terms a scan sums,
NaN matching NaN).  gpumat's 1-based indices are NumPy's plus one.  A
case where gpumat raised passes only if numpy raises too (out-of-range
indices, a mask of the wrong shape).  Prints a summary; exits 1 on any
mismatch.
"""
import json
import sys

import numpy as np

np.seterr(all="ignore")


def arr(d):
    return np.array(d["v"], dtype=np.dtype(d["dtype"])).reshape(d["dims"])


def index(d):
    """1-based index values (negative from the end) to numpy's 0-based;
    0 raises as numpy would for an index out of range."""
    a = arr(d).astype(object)
    if (a == 0).any():
        raise IndexError("index 0")
    return np.where(a > 0, a - 1, a).astype(np.int64) if a.size else np.zeros(a.shape, np.int64)


def stable_order(x, axis, descending):
    """gpumat's sort order: stable, NaN last ascending, first descending."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    r = np.flip(x, axis=axis)
    p = np.argsort(r, axis=axis, kind="stable")
    return x.shape[axis] - 1 - np.flip(p, axis=axis)


def sub_tuple(subs):
    t = []
    for s in subs:
        if "int" in s:
            v = s["int"]
            if v == 0:
                raise IndexError("index 0")
            t.append(v - 1 if v > 0 else v)
        elif "range" in s:
            a, b, step = s["range"]
            a, b = a - 1, b - 1
            stop = b + 1 if step > 0 else (b - 1 if b >= 1 else None)
            t.append(slice(a, stop, step))
        elif "all" in s:
            t.append(slice(None))
        elif "idx" in s:
            t.append(index(s["idx"]))
        else:
            t.append(arr(s["mask"]))
    return tuple(t)


def expected(c):
    """The results numpy gives for case c, as a list."""
    op = c["op"]
    if op == "sort":
        x = arr(c["x"])
        ax = c["axis"] - 1 if c["axis"] > 0 else c["axis"]
        p = stable_order(x, ax, c["descending"])
        v = np.take_along_axis(x, p, axis=ax)
        return [v, p + 1] if c["which"] == "sort" else [p + 1]
    if op == "topk":
        x = arr(c["x"])
        ax = c["axis"] - 1
        p = np.take(stable_order(x, ax, c["largest"]), np.arange(c["k"]), axis=ax)
        return [np.take_along_axis(x, p, axis=ax), p + 1]
    if op == "unique_all":
        x = arr(c["x"]).reshape(-1)
        u, i, inv, n = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        return [u, i + 1, inv.reshape(c["x"]["dims"]) + 1, n]
    if op == "searchsorted":
        return [np.searchsorted(arr(c["x1"]), arr(c["x2"]), side=c["side"]) + 1]
    if op == "isin":
        return [np.isin(arr(c["x"]), arr(c["e"]), invert=c["invert"])]
    if op == "cumulative":
        x = arr(c["x"])
        ax = c["axis"] - 1
        f = np.cumsum if c["which"] == "cumulative_sum" else np.cumprod
        wide = np.uint64 if x.dtype.kind == "u" else np.int64
        if x.dtype == np.float16:  # accumulated in float32, rounded once (NumPy rounds every step)
            r = f(x.astype(np.float32), axis=ax).astype(np.float16)
        else:
            r = f(x, axis=ax, dtype=None if x.dtype.kind == "f" else wide)
        if c["include_initial"]:
            shape = list(x.shape)
            shape[ax] = 1
            first = np.full(shape, 0 if c["which"] == "cumulative_sum" else 1, dtype=r.dtype)
            r = np.concatenate([first, r], axis=ax)
        return [r]
    if op == "take":
        x = arr(c["x"])
        i = index(c["idx"])
        if "axis" in c:
            return [np.take(x, i, axis=c["axis"] - 1, mode="raise")]
        return [np.take(x, i, mode="raise")]
    if op == "take_along_axis":
        x = arr(c["x"])
        i = index(c["idx"])
        n = x.shape[c["axis"] - 1]
        if ((i < -n) | (i >= n)).any():
            raise IndexError("out of range")
        return [np.take_along_axis(x, i, axis=c["axis"] - 1)]
    if op == "nonzero":
        return [[i + 1 for i in np.nonzero(arr(c["x"]))]]
    if op == "masked_select":
        x = arr(c["x"])
        return [x[np.broadcast_to(arr(c["mask"]), x.shape)]]
    if op == "subscript":
        return [arr(c["x"])[sub_tuple(c["subs"])]]
    if op == "subscript_set":
        x = arr(c["x"])
        x[sub_tuple(c["subs"])] = c["value"]
        return [x]
    if op == "shape":
        x = arr(c["x"])
        w = c["which"]
        if w == "flip":
            return [np.flip(x, axis=c["axis"] - 1)]
        if w == "roll":
            return [np.roll(x, c["shift"], axis=c["axis"] - 1 if "axis" in c else None)]
        if w == "repeat":
            return [np.repeat(x, c["repeats"], axis=c["axis"] - 1 if "axis" in c else None)]
        if w == "tile":
            return [np.tile(x, c["reps"])]
        if w == "pad":
            return [np.pad(x, c["widths"], mode=c["mode"])]
        return [np.diag(x, c["k"])]
    raise ValueError("unknown op " + op)


def tolerance(c, dtype):
    scale = 1
    if c["op"] == "cumulative":
        scale = max(c["x"]["dims"][c["axis"] - 1], 1)
    return {np.float16: 1e-3, np.float32: 2e-6}.get(np.dtype(dtype).type, 1e-12) * scale


def compare(c, got, want, where):
    """None when gpumat's got (a result description) matches numpy's want."""
    if isinstance(want, list):
        if "list" not in got or len(got["list"]) != len(want):
            return "%s: a list of %d expected" % (where, len(want))
        for k, (g, w) in enumerate(zip(got["list"], want)):
            why = compare(c, g, w, "%s[%d]" % (where, k + 1))
            if why:
                return why
        return None
    want = np.asarray(want)
    if "scalar" in got and want.ndim == 0:  # one element: a Lua value
        got = {"dtype": str(want.dtype), "dims": [], "v": [got["scalar"]]}
    if "dtype" not in got:
        return "%s: a mat expected, got %r" % (where, got)
    if got["dtype"] != str(want.dtype):
        return "%s: dtype %s, numpy %s" % (where, got["dtype"], want.dtype)
    if list(got["dims"]) != list(want.shape):
        return "%s: dims %s, numpy %s" % (where, got["dims"], list(want.shape))
    g = np.array(got["v"], dtype=object).reshape(-1)
    w = want.reshape(-1)
    if want.dtype.kind != "f":
        # Lua gives a uint64 at or above 2^63 as the integer with its 64 bits
        wrap = 2 ** 64 if want.dtype.kind == "u" else None
        bad = [k for k in range(w.size) if (int(g[k]) % wrap if wrap else int(g[k])) != int(w[k])]
    else:
        gf = g.astype(np.float64)
        wf = w.astype(np.float64)
        tol = tolerance(c, want.dtype) * (1 + np.abs(wf))
        with np.errstate(invalid="ignore"):
            ok = (np.isnan(gf) & np.isnan(wf)) | (gf == wf) | (np.abs(gf - wf) <= tol)
        bad = np.nonzero(~ok)[0].tolist()
    if bad:
        k = bad[0]
        return "%s: element %d is %r, numpy %r" % (where, k + 1, g[k], w[k])
    return None


def check(c):
    try:
        want = expected(c)
        np_error = None
    except (IndexError, ValueError) as e:
        want, np_error = None, str(e)
    if "error" in c:
        return None if np_error else "gpumat raised (%s), numpy did not" % c["error"]
    if np_error:
        return "numpy raised (%s), gpumat did not" % np_error
    for k, w in enumerate(want):
        why = compare(c, c["out"][k], w, "result %d" % (k + 1))
        if why:
            return why
    return None


def main():
    total = bad = 0
    report = []
    for path in sys.argv[1:]:
        with open(path) as f:
            data = json.load(f)
        for c in data["cases"]:
            total += 1
            why = check(c)
            if why:
                bad += 1
                report.append("case %d (%s, seed %s on %s): %s\n  %s" % (
                    c["id"], c["op"], c["seed"], c["device"], why, json.dumps(c)[:600]))
    for line in report[:20]:
        print(line)
    print("indexing oracle: %d cases, %d mismatches" % (total, bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
