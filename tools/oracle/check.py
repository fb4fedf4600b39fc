"""NumPy differential oracle, numpy side (run with /usr/bin/python3).

    /usr/bin/python3 tools/oracle/check.py OUT.json...

Replays every step of every program written by gen.lua with numpy in
float64 on the storages' "before" contents, and compares every element of
every involved storage (invisible ones included) with gpumat's "after"
contents.  Tolerance: |got - want| <= tol * (1 + |want|) * scale, tol 2e-5
for float and 1e-11 for double, scale the number of terms a result sums
(gemm's k, sum_'s length, ...).  NaN must match NaN, infinities must match
exactly.  Prints a summary; exits 1 on any mismatch.
"""
import json
import os
import sys

import numpy as np

import typed

np.seterr(all="ignore")
TOL = {"float": 2e-5, "double": 1e-11}


def view(st, r):
    n = int(np.prod(r["dims"])) if r["dims"] else 1
    return st[r["s"]][r["d"]:r["d"] + n].reshape(r["dims"])


def strided_view(st, r):
    return np.lib.stride_tricks.as_strided(st[r["s"]][r["d"]:], shape=r["dims"],
                                           strides=[8 * x for x in r["strides"]])


def stage(p, st):
    """Strided operands become contiguous temporary storages, as gpumat
    stages them: gathered before the step, scattered back after it when
    written.  Returns what unstage needs."""
    staged = []

    def walk(v):
        if isinstance(v, dict):
            if "strides" in v:
                tid = -1 - len(staged)
                st[tid] = strided_view(st, v).copy().reshape(-1)
                staged.append((dict(v), tid, st[tid].copy()))
                v["s"], v["d"] = tid, 0
                del v["strides"]
            else:
                for x in v.values():
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for k, v in p.items():
        if k not in ("before", "after"):
            walk(v)
    return staged


def unstage(staged, st):
    for r, tid, before in staged:
        if not np.array_equal(st[tid], before, equal_nan=True):
            strided_view(st, r)[...] = st[tid].reshape(r["dims"])
        del st[tid]


def logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


UNARY = {
    "square": np.square, "sqrt": np.sqrt, "log": np.log, "exp": np.exp,
    "inv": lambda x: 1.0 / x, "logistic": logistic, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "abs": np.abs, "sign": np.sign, "floor": np.floor,
    "ceil": np.ceil, "round": np.round, "neg": np.negative,
    "log1p": np.log1p, "expm1": np.expm1,
    "relu": lambda x: np.where(x < 0, 0.0, x),
    "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh,
    "log2": np.log2, "log10": np.log10, "trunc": np.trunc,
    "positive": np.positive, "conj": np.conj,
}


def rnd(ctype, a):
    return float(np.float32(a)) if ctype == "float" else float(a)


def strided(st, r, n, inc):
    v = view(st, r).reshape(-1)
    return v, np.arange(n) * inc


def run_step(ctype, p, st):
    """Applies step p to the storages st (dict id -> float64 array) in
    place. Returns (scale, scalar result or None, extra result or None)."""
    op = p["op"]
    if op == "unary":
        x = view(st, p["x"]).reshape(-1)
        n = p.get("n", x.size)
        x[:n] = UNARY[p["f"]](x[:n])
        return 1, None
    if op == "expt":
        x = view(st, p["x"])
        x[...] = np.power(x, p["p"])
        return 1, None
    if op == "add_scalar":
        x = view(st, p["x"])
        x += rnd(ctype, p["a"])
        return 1, None
    if op in ("min", "max"):
        x = view(st, p["x"])
        a = rnd(ctype, p["a"])
        if op == "min":
            x[x > a] = a
        else:
            x[x < a] = a
        return 1, None
    if op == "fill":
        x = view(st, p["x"]).reshape(-1)
        n = p.get("n", x.size)
        x[:n] = rnd(ctype, p["a"])
        return 1, None
    if op == "mul":
        y = view(st, p["y"])
        y[...] = view(st, p["x"]) * y
        return 1, None
    if op == "lt":
        y = view(st, p["y"])
        y[...] = (view(st, p["x"]) < y).astype(np.float64)
        return 1, None
    if op == "geem":
        c = view(st, p["c"])
        r = p["alpha"] * view(st, p["a"]).reshape(-1) * view(st, p["b"]).reshape(-1)
        c[...] = (r if p["beta"] == 0 else r + p["beta"] * c.reshape(-1)).reshape(c.shape)
        return 2, None
    if op == "geerv":
        b = view(st, p["b"])
        r = p["alpha"] * view(st, p["a"]) * view(st, p["x"]).reshape(1, -1)
        b[...] = r if p["beta"] == 0 else r + p["beta"] * b
        return 2, None
    if op == "add_sign":
        b = view(st, p["b"])
        r = p["alpha"] * np.sign(view(st, p["a"]))
        b[...] = r if p["beta"] == 0 else r + p["beta"] * b
        return 2, None
    if op == "sum":
        x = view(st, p["x"])
        y = view(st, p["y"])
        s = x.sum(axis=p["axis"] - 1)
        r = rnd(ctype, p["alpha"]) * s
        y[...] = r if p["beta"] == 0 else r + rnd(ctype, p["beta"]) * y
        return x.shape[p["axis"] - 1] + 1, None
    if op in ("scale_rows", "scale_columns"):
        s = view(st, p["s"]).reshape(-1)
        a = view(st, p["a"])
        r = a * (s.reshape(-1, 1) if op == "scale_rows" else s.reshape(1, -1))
        view(st, p["res"] if "res" in p else p["a"])[...] = r
        return 1, None
    if op in ("asum", "nrm2", "dot", "axpy", "copy", "scal"):
        n = p["n"]
        x, ix = strided(st, p["x"], n, p["incx"])
        y, iy = strided(st, p["y"], n, p["incy"])
        a = rnd(ctype, p["alpha"])
        if op == "asum":
            return n + 1, float(np.abs(x[ix]).sum())
        if op == "nrm2":
            return n + 1, float(np.sqrt((x[ix] ** 2).sum()))
        if op == "dot":
            return n + 1, float((x[ix] * y[iy]).sum())
        if op == "axpy":
            if a != 0:
                y[iy] = a * x[ix] + y[iy]
        elif op == "copy":
            y[iy] = x[ix]
        else:
            x[ix] = a * x[ix]
        return 2, None
    if op == "gemm":
        a = view(st, p["a"])
        b = view(st, p["b"])
        c = view(st, p["c"])
        a = a.T if p["ta"] else a
        b = b.T if p["tb"] else b
        r = p["alpha"] * (a @ b)
        c[...] = r if p["beta"] == 0 else r + p["beta"] * c
        return a.shape[1] + 2, None
    if op == "gemm_ld":
        m, n, k = p["m"], p["n"], p["k"]

        def block(r, rows, cols, ld):
            flat = view(st, r).reshape(-1)
            idx = np.arange(rows)[:, None] * ld + np.arange(cols)[None, :]
            return flat, idx
        fa, ia = block(p["a"], k if p["ta"] else m, m if p["ta"] else k, p["lda"])
        fb, ib = block(p["b"], n if p["tb"] else k, k if p["tb"] else n, p["ldb"])
        fc, ic = block(p["c"], m, n, p["ldc"])
        a = fa[ia].T if p["ta"] else fa[ia]
        b = fb[ib].T if p["tb"] else fb[ib]
        r = p["alpha"] * (a @ b)
        fc[ic] = r if p["beta"] == 0 else r + p["beta"] * fc[ic]
        return k + 2, None
    if op == "stack":
        parts = [view(st, r).copy() for r in p["parts"]]
        view(st, p["out"])[...] = np.concatenate(parts, axis=p["axis"] - 1)
        return 1, None
    if op in ("convolve", "max_pool"):
        x = view(st, p["x"])
        y = view(st, p["y"])
        if not p["batched"]:
            x, y = x[None], y[None]
        s0, s1 = p["start"][0] - 1, p["start"][1] - 1
        t0, t1 = p["stride"]
        a0, a1 = p["anchor"][0] - 1, p["anchor"][1] - 1
        if op == "convolve":
            w = view(st, p["w"])
            kh, kw = w.shape
        else:
            kh, kw = p["pool"]
        B, xh, xw = x.shape
        _, oh, ow = y.shape
        for bi in range(B):
            for o0 in range(oh):
                for o1 in range(ow):
                    p0, p1 = s0 + o0 * t0, s1 + o1 * t1
                    acc, best = 0.0, None
                    for k0 in range(kh):
                        i = p0 + k0 - a0
                        if i < 0 or i >= xh:
                            continue
                        for k1 in range(kw):
                            j = p1 + k1 - a1
                            if j < 0 or j >= xw:
                                continue
                            if op == "convolve":
                                acc += w[k0, k1] * x[bi, i, j]
                            else:
                                v = x[bi, i, j]
                                if best is None or v > best or np.isnan(v):
                                    best = v if best is None or not np.isnan(best) else best
                    if op == "convolve":
                        y[bi, o0, o1] += acc
                    else:
                        y[bi, o0, o1] = 0.0 if best is None else best
        return kh * kw + 1, None
    if op in ("copy_mat", "transpose", "m_mul", "m_add", "m_sub"):
        a = view(st, p["a"])
        b = view(st, p["b"])
        r = {"copy_mat": lambda: a, "transpose": lambda: a.T, "m_mul": lambda: a @ b,
             "m_add": lambda: a + b, "m_sub": lambda: a - b}[op]()
        return (a.shape[1] + 1 if op == "m_mul" else 2), ("array", r)
    raise ValueError("unknown op " + op)


def close(ctype, got, want, scale):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return np.zeros(1, bool), "shape %s vs %s" % (got.shape, want.shape)
    nan_ok = np.isnan(got) == np.isnan(want)
    inf_w = np.isinf(want)
    inf_ok = ~inf_w | (got == want)
    fin = ~np.isnan(want) & ~inf_w
    tol = TOL[ctype] * scale * (1 + np.abs(want))
    # a float result beyond float's range overflows to infinity
    over = (ctype == "float") & np.isinf(got) & (np.abs(want) > 3.0e38)
    val_ok = ~fin | (np.abs(got - want) <= tol) | over
    ok = nan_ok & inf_ok & val_ok
    return ok, None


TYPED_STATS = {"refused": {}, "computed": {}, "steps": 0}


def check_typed(prog, report):
    bad = 0
    for si, p in enumerate(prog["steps"]):
        TYPED_STATS["steps"] += 1
        problems = typed.check_step(p, TYPED_STATS)
        if problems:
            bad += 1
            q = {k: v for k, v in p.items() if k not in ("before", "after", "res")}
            report.append("program %d step %d (typed) %s: %s\n  step %s\n  result %s" % (
                prog["id"], si + 1, p["f"], "; ".join(problems), json.dumps(q),
                json.dumps(p.get("res"))[:600]))
    return bad


def check_program(prog, report):
    ctype = prog["ctype"]
    if ctype == "typed":
        return check_typed(prog, report)
    bad = 0
    for si, p in enumerate(prog["steps"]):
        st = {int(k): np.array(v, dtype=np.float64) for k, v in p["before"].items()}
        if ctype == "float":  # inputs are exact floats already; keep them so
            st = {k: v.astype(np.float32).astype(np.float64) for k, v in st.items()}
        staged = stage(p, st)
        scale, res = run_step(ctype, p, st)
        unstage(staged, st)
        problems = []
        for k, v in p["after"].items():
            ok, why = close(ctype, v, st[int(k)], scale)
            if why or not ok.all():
                idx = np.nonzero(~ok)[0][:5]
                problems.append("storage %s: %s elements %s got %s want %s" % (
                    k, why or "", idx.tolist(), np.asarray(v)[idx].tolist() if not why else "",
                    st[int(k)][idx].tolist() if not why else ""))
        if isinstance(res, tuple):
            want = np.asarray(res[1])
            if list(p["res_dims"]) != list(want.shape):
                problems.append("result dims %s want %s" % (p["res_dims"], list(want.shape)))
            else:
                ok, why = close(ctype, np.asarray(p["res"], dtype=np.float64).reshape(want.shape) if want.size else np.zeros(want.shape), want, scale)
                if not ok.all():
                    problems.append("result differs")
        elif res is not None:
            ok, _ = close(ctype, [p["result"]], [res], scale)
            if not ok.all():
                problems.append("result %r want %r" % (p["result"], res))
        if problems:
            bad += 1
            q = {k: v for k, v in p.items() if k not in ("before", "after")}
            report.append("program %d step %d (%s) %s: %s\n  step %s" % (
                prog["id"], si + 1, ctype, p["op"], "; ".join(problems), json.dumps(q)))
    return bad


def summary(d):
    return ", ".join("%s %d" % kv for kv in sorted(d.items())) or "none"


def main():
    total_prog = total_steps = total_bad = 0
    report = []
    for path in sys.argv[1:]:
        with open(path) as f:
            data = json.load(f)
        for prog in data["programs"]:
            total_prog += 1
            total_steps += len(prog["steps"])
            total_bad += check_program(prog, report)
        print("%s: seed %s on %s" % (path, data["seed"], data["device"]))
    for line in report[:int(os.environ.get("ORACLE_REPORT", "20"))]:
        print(line)
    if TYPED_STATS["steps"]:
        print("typed: %d steps; refusals the contract allows today: %s; computed where a refusal "
              "was allowed: %s" % (TYPED_STATS["steps"], summary(TYPED_STATS["refused"]),
                                   summary(TYPED_STATS["computed"])))
    print("oracle: %d programs, %d steps, %d mismatches" % (total_prog, total_steps, total_bad))
    sys.exit(1 if total_bad else 0)


if __name__ == "__main__":
    main()
