"""numpy baselines for bench/run.lua, timed like the Lua side.

    python3 numpy_ops.py      (a coprocess of the harness; protocol in main())

The harness interleaves one timed repeat of each side per round, so load
from other processes hits gpumat and its baselines alike.  Every op works in place on preallocated arrays (like
gpumat's destructive ops); data are the same pattern as the Lua side
(0.25 + 0.5 * ((k * 37) % 4096) / 4096, row-major).  Ops whose input would
drift out of range over many calls either alternate (scal 2 / 0.5) or restore
the input before each repeat, outside the timed region.
"""
import ctypes
import sys
import time

import numpy as np

from numpy_ordering import ordering_op

DTYPES = {"float": np.float32, "double": np.float64}
# the array standard's names (bench/typed_bench.lua) map to themselves
DTYPES.update({n: np.dtype(n).type for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                             "uint32", "uint64", "float16", "float32", "float64",
                                             "complex64", "complex128")})


def pattern(shape, dtype):
    size = int(np.prod(shape))
    k = np.arange(size, dtype=np.int64)
    return (0.25 + 0.5 * ((k * 37) % 4096) / 4096.0).astype(dtype).reshape(shape)


def alternating(fn):
    """Run fn(i) for i in 0..n-1 (the op alternates on the parity of i)."""
    def run(n):
        for i in range(n):
            fn(i)
    return run


def last_of(f):
    """run(n): n calls of the allocating form f, keeping only the last
    result (numpy frees the others by reference counting)."""
    def run(n):
        r = None
        for _ in range(n):
            r = f()
        return r
    return run


def make(op, dtype, dims):
    """Return (run(n), setup or None, note) for one request."""
    shape = tuple(dims)
    ordering = ordering_op(op, shape, dtype)  # before `a`: o_searchsorted's dims are two lengths
    if ordering:
        f, note = ordering
        return last_of(f), None, note
    a = pattern(shape, dtype)
    if op == "scal_alt":  # two calls per iteration: *2 then *0.5
        mul = np.multiply
        def run(n):
            for _ in range(n):
                mul(a, 2.0, out=a)
                mul(a, 0.5, out=a)
        return run, None, "np.multiply(a, s, out=a)"
    if op == "fill":
        return alternating(lambda i: a.fill(2.5)), None, "a.fill(v)"
    if op == "scal":
        return (alternating(lambda i: np.multiply(a, 2.0 if i % 2 == 0 else 0.5, out=a)),
                None, "np.multiply(a, s, out=a)")
    if op == "add_scalar":
        return (alternating(lambda i: np.add(a, 1.0 if i % 2 == 0 else -1.0, out=a)),
                None, "np.add(a, s, out=a)")
    if op == "axpy":
        x, t = pattern(shape, dtype), np.empty(shape, dtype)
        def axpy(i):
            np.multiply(x, 2.0 if i % 2 == 0 else -2.0, out=t)
            np.add(a, t, out=a)
        return alternating(axpy), None, "np.multiply(x, alpha, out=t); np.add(y, t, out=y)"
    if op == "mul":
        x, src = pattern(shape, dtype), a.copy()
        return (alternating(lambda i: np.multiply(x, a, out=a)),
                lambda: np.copyto(a, src), "np.multiply(x, y, out=y)")
    unary = {"exp": np.exp, "log": np.log, "tanh": np.tanh, "sqrt": np.sqrt}
    if op in unary:
        f, src = unary[op], a.copy()
        return (alternating(lambda i: f(a, out=a)), lambda: np.copyto(a, src),
                "np.%s(a, out=a)" % op)
    if op == "logistic":  # numpy has no logistic ufunc (scipy is not installed)
        src = a.copy()
        def logistic(i):
            np.negative(a, out=a)
            np.exp(a, out=a)
            np.add(a, 1.0, out=a)
            np.reciprocal(a, out=a)
        return (alternating(logistic), lambda: np.copyto(a, src),
                "negative, exp, add 1, reciprocal (in place)")
    if op in ("sum_t_axis1", "sum_t_axis2"):  # a transposed (strided) view
        axis, at = (0 if op == "sum_t_axis1" else 1), a.T
        y = np.empty(at.shape[1 - axis], dtype)
        return (alternating(lambda i: np.sum(at, axis=axis, out=y)), None,
                "np.sum(a.T, axis=%d, out=y)" % axis)
    if op in ("sum_axis1", "sum_axis2"):
        axis = 0 if op == "sum_axis1" else 1
        y = np.empty(shape[1 - axis], dtype)
        return (alternating(lambda i: np.sum(a, axis=axis, out=y)), None,
                "np.sum(a, axis=%d, out=y)" % axis)
    # m:max(axis), m:argmax(axis), m:mean(axis), m:var(axis) (bench/axis_reduce_bench.lua)
    for fn in ("max", "argmax", "mean", "var"):
        if op in (fn + "_axis1", fn + "_axis2"):
            axis = 0 if op.endswith("1") else 1
            y = np.empty(shape[1 - axis], np.int64 if fn == "argmax" else dtype)
            f = getattr(np, fn)
            return (alternating(lambda i: f(a, axis=axis, out=y)), None,
                    "np.%s(a, axis=%d, out=y)" % (fn, axis))
    if op == "softmax_axis2":  # the stable idiom: max subtracted, then normalized
        m, e, s = np.empty((shape[0], 1), dtype), np.empty(shape, dtype), np.empty((shape[0], 1), dtype)
        def softmax(i):
            np.max(a, axis=1, keepdims=True, out=m)
            np.subtract(a, m, out=e)
            np.exp(e, out=e)
            np.sum(e, axis=1, keepdims=True, out=s)
            np.divide(e, s, out=e)
        return (alternating(softmax), None,
                "max, subtract, exp, sum, divide along axis 1 (into preallocated arrays)")
    if op in ("add_same", "add_row", "add_col", "mul_t"):
        bshape = {"add_row": shape[1:], "add_col": (shape[0], 1)}.get(op, shape)
        b, c = pattern(bshape, dtype), np.empty(shape, dtype)
        if op == "mul_t":
            at = a.T
            return (alternating(lambda i: np.multiply(at, b, out=c)), None,
                    "np.multiply(a.T, b, out=c)")
        return alternating(lambda i: np.add(a, b, out=c)), None, "np.add(a, b, out=c)"
    # Allocating forms, as users write them (bench/user_bench.lua): every
    # call builds a new result; numpy frees the last one by refcount.
    user = (survey_op(op, a, shape, dtype) or fft_op(op, a, shape) or typed_op(op, shape, dtype) or scan_op(op, a, shape)
            or user_op(op, a, shape, dtype) or out_op(op, a, shape, dtype) or linalg_op(op, a, shape, dtype) or einsum_op(op, a, shape, dtype))
    if user:
        return user
    if op == "matmul":
        b, c = pattern(shape, dtype), np.empty(shape, dtype)
        return alternating(lambda i: np.matmul(a, b, out=c)), None, "np.matmul(a, b, out=c)"
    raise ValueError("unknown op " + op)


def user_op(op, a, shape, dtype):
    """Allocating forms (u_*) or None; run(n) keeps only the last result."""
    b = pattern(shape, dtype)
    row = pattern(shape[-1:], dtype)
    forms = {
        "u_add": (lambda: a + b, "a + b"),
        "u_tanh": (lambda: np.tanh(a), "np.tanh(a)"),
        "u_add_s": (lambda: a + 1.0, "a + 1"),
        "u_mul_s": (lambda: a * 0.9, "a * 0.9"),
        "u_gt": (lambda: a > 0.5, "a > 0.5 (a bool array)"),
        "u_gt_f": (lambda: (a > 0.5).astype(dtype), "(a > 0.5).astype(a.dtype)"),
        "u_add_row": (lambda: a + row, "a + row (row of a.shape[-1])"),
        "u_sum": (lambda: a.sum(), "a.sum()"),
        "u_sum_axis1": (lambda: a.sum(axis=0), "a.sum(axis=0)"),
        "u_sum_axis2": (lambda: a.sum(axis=1), "a.sum(axis=1)"),
        "u_matmul": (lambda: a @ b, "a @ b"),
        "u_copy": (lambda: a.copy(), "a.copy()"),
    }
    if op not in forms:
        return None
    f, note = forms[op]
    return last_of(f), None, note


def out_op(op, a, shape, dtype):
    """The out= forms (uo_*, bench/user_bench.lua's out-vs-in-place group)
    or None: numpy's np.F(a, out=b), one path with its in-place form, so
    that gpumat's out form has numpy's as a reference where the op is
    bound by memory traffic (an out form streams two arrays, the in-place
    form one)."""
    if not op.startswith("uo_"):
        return None  # before the allocation: the ops after these reach here too
    b = np.empty(shape, dtype)
    forms = {
        "uo_tanh": (lambda: np.tanh(a, out=b), "np.tanh(a, out=b)"),
        "uo_sqrt": (lambda: np.sqrt(a, out=b), "np.sqrt(a, out=b)"),
        "uo_add_s": (lambda: np.add(a, 1.0, out=b), "np.add(a, 1, out=b)"),
        "uo_assign_shift": (lambda: b[1:].__setitem__(Ellipsis, a[:-1]), "b[1:] = a[:-1]"),
    }
    if op not in forms:
        return None
    f, note = forms[op]
    return alternating(lambda i: f()), None, note


def survey_op(op, a, shape, dtype):
    """The surveys' forms (sv_*, bench/survey_bench.lua) or None: ops as
    users write them that the surveys of bench/RESULTS.md found slow, on
    the pattern a (2-d: rows and columns; 1-d: a line)."""
    if not op.startswith("sv_"):
        return None
    n = shape[0]
    ints = (np.arange(a.size, dtype=np.int64) * 37 % 2001 - 1000).reshape(shape)
    big = a * 1000
    forms = {
        "sv_max_rows": (lambda: a.max(axis=1), "a.max(axis=1)"),
        "sv_argmax_rows": (lambda: a.argmax(axis=1), "a.argmax(axis=1)"),
        "sv_eye": (lambda: np.eye(n, dtype=dtype), "np.eye(n)"),
        "sv_roll": (lambda: np.roll(a, 5), "np.roll(a, 5)"),
        "sv_concat": (lambda: np.concatenate([a, a]), "np.concatenate([a, a])"),
        "sv_matmul": (lambda: a @ a, "a @ a"),
        "sv_gram": (lambda: a.T @ a, "a.T @ a (numpy's syrk)"),
        "sv_to_i64": (lambda: big.astype(np.int64), "(a * 1000).astype(np.int64)"),
        "sv_to_i32": (lambda: big.astype(np.int32), "(a * 1000).astype(np.int32)"),
        "sv_from_i64": (lambda: ints.astype(dtype), "i64.astype(dtype)"),
    }
    if op not in forms:
        return None
    f, note = forms[op]
    return last_of(f), None, note


def int_pattern(shape, dtype):
    """The integer data of bench/typed_bench.lua: (k * 37) % 251 + 1."""
    k = np.arange(int(np.prod(shape)), dtype=np.int64)
    return ((k * 37) % 251 + 1).astype(dtype).reshape(shape)


def typed_op(op, shape, dtype):
    """Integer and bool forms (t_*, bench/typed_bench.lua) or None: the
    allocating expressions of the typed-mats issue's goals."""
    if not op.startswith("t_"):
        return None
    if op in ("t_gt", "t_exp"):
        a = pattern(shape, dtype)
    else:
        a = int_pattern(shape, dtype)
    b = int_pattern(shape, dtype)[::-1].copy()
    forms = {
        "t_add": (lambda: a + b, "a + b"),
        "t_sum": (lambda: a.sum(), "a.sum()"),
        "t_astype_f32": (lambda: a.astype(np.float32), "a.astype(np.float32)"),
        "t_band": (lambda: a & b, "a & b"),
        "t_floordiv": (lambda: a // b, "a // b"),
        "t_gt": (lambda: a > 0.5, "a > 0.5 (a bool array)"),
        "t_exp": (lambda: np.exp(a), "np.exp(a)"),
        "t_mul": (lambda: a * b, "a * b"),
    }
    f, note = forms[op]
    return last_of(f), None, note


def scan_op(op, a, shape):
    """Scans, take and masks (s_*, bench/scan_bench.lua) or None, on the
    pattern a: np.cumsum (flat, or along axis 1, the last axis, as
    gpumat's axis 2 of a row-major mat), a.take of 4M int64 positions
    (k * 104729) % size, and a[mask] with mask = a > 0.5 (about half)."""
    if not op.startswith("s_"):
        return None
    size = a.size
    idx = (np.arange(size // 4, dtype=np.int64) * 104729) % size
    mask = a > 0.5
    forms = {
        "s_cumsum": (lambda: np.cumsum(a), "np.cumsum(a)"),
        "s_cumsum_ax1": (lambda: np.cumsum(a, axis=1), "np.cumsum(a, axis=1)"),
        "s_take": (lambda: a.take(idx), "a.take(idx), idx int64 of size/4"),
        "s_masked": (lambda: a[mask], "a[mask], mask = a > 0.5"),
    }
    f, note = forms[op]
    return last_of(f), None, note


def linalg_op(op, a, shape, dtype):
    """np.linalg forms (la_*, bench/linalg_bench.lua) or None: the matrices
    are the pattern plus n I (well conditioned), SPD ones P P^T / n + I."""
    n = shape[-1]
    eye = np.eye(n, dtype=dtype)
    wc = (a + n * eye).astype(dtype)
    if op == "la_cholesky" or op == "la_eigh":
        wc = (a @ np.swapaxes(a, -1, -2) / n + eye).astype(dtype)
    b = pattern(shape[:-1], dtype)
    la = np.linalg
    forms = {
        "la_solve": (lambda: la.solve(wc, b), "np.linalg.solve(a, b) (b a vector)"),
        "la_bsolve": (lambda: la.solve(wc, b[..., None])[..., 0], "np.linalg.solve(a, b[..., None])"),
        "la_bmatmul": (lambda: np.matmul(wc, a), "np.matmul(a, p) (a stack)"),
        "la_cholesky": (lambda: la.cholesky(wc), "np.linalg.cholesky(a)"),
        "la_qr": (lambda: la.qr(a), "np.linalg.qr(a)"),
        "la_svd": (lambda: la.svd(a), "np.linalg.svd(a)"),
        "la_eigh": (lambda: la.eigh(wc), "np.linalg.eigh(a)"),
        "la_det": (lambda: la.det(wc), "np.linalg.det(a)"),
        "la_inv": (lambda: la.inv(wc), "np.linalg.inv(a)"),
    }
    if op not in forms:
        return None
    f, note = forms[op]
    return last_of(f), None, note


def fft_op(op, a, shape):
    """np.fft forms (ff_*, bench/fft_bench.lua) or None, on the pattern
    (complex dtypes: the pattern as the real part).  NumPy 1.24's pocketfft
    computes in double and returns complex128 whatever the input."""
    forms = {
        "ff_fft": (lambda: np.fft.fft(a), "np.fft.fft(a)"),
        "ff_rfft": (lambda: np.fft.rfft(a), "np.fft.rfft(a)"),
        "ff_irfft": (lambda: np.fft.irfft(a), "np.fft.irfft(a) (n = 2 (m - 1))"),
        "ff_fft2": (lambda: np.fft.fft2(a), "np.fft.fft2(a) (complex128 result)"),
    }
    if op not in forms:
        return None
    f, note = forms[op]
    return last_of(f), None, note


def einsum_op(op, a, shape, dtype):
    """np.einsum forms (es_*, bench/einsum_bench.lua) or None: a product of
    a with a second pattern array of its shape; _opt passes optimize=True
    (numpy's tensordot/BLAS path; its default is its own C loops)."""
    b = pattern(shape, dtype)
    spec = "bij,bjk->bik" if len(shape) == 3 else "ij,jk->ik"
    forms = {
        "es_mm": (lambda: np.einsum(spec, a, b), "np.einsum('%s', a, b)" % spec),
        "es_mm_opt": (lambda: np.einsum(spec, a, b, optimize=True),
                      "np.einsum('%s', a, b, optimize=True)" % spec),
    }
    if op not in forms:
        return None
    f, note = forms[op]
    return last_of(f), None, note


def timed(run, n):
    t0 = time.perf_counter()
    run(n)
    return time.perf_counter() - t0


def calibrate(run, setup, fixed, min_time):
    """Warm up, then pick the iteration count (same scheme as bench_timing.lua)."""
    setup()
    run(1)
    if fixed > 0:
        return fixed
    n = 1
    while True:
        setup()
        t = timed(run, n)
        if t >= min_time / 4 or n >= 10**9:
            break
        grow = min_time / 4 / t * 1.5 if t > 0 else 100
        n *= int(min(100, max(2, grow)))
    return max(1, int(n * min_time / (t if t > 0 else min_time) + 0.5))


def blas_info():
    """Which OpenBLAS kernel numpy runs (threadpoolctl is not always there)."""
    try:
        from threadpoolctl import threadpool_info
        for lib in threadpool_info():
            if lib.get("internal_api") == "openblas":
                return [("openblas_corename", lib.get("architecture")),
                        ("openblas_threads", lib.get("num_threads")),
                        ("openblas_config", lib.get("version"))]
    except ImportError:
        pass
    try:
        lib = ctypes.CDLL("libopenblas.so.0")  # the copy numpy already loaded
        lib.openblas_get_config.restype = ctypes.c_char_p
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return [("openblas_corename", lib.openblas_get_corename().decode()),
                ("openblas_threads", lib.openblas_get_num_threads()),
                ("openblas_config", lib.openblas_get_config().decode())]
    except OSError as e:
        return [("openblas", "unknown (%s)" % e)]


def main():
    """Coprocess protocol, one answer line per command (bench_external.lua):
    info                              -> info lines, then "end info"
    prepare KEY MIN_TIME FIXED OP DTYPE DIM...  -> "ready KEY N NOTE" | "error KEY MSG"
    run KEY                           -> "time KEY SECONDS_PER_ITERATION" | "error KEY MSG"
    free KEY                          -> "freed KEY"
    quit                              -> exit (no answer; the harness's other
                                         children may hold our stdin open)
    """
    jobs = {}
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        parts = line.split()
        if not parts:
            continue
        cmd, key = parts[0], parts[1] if len(parts) > 1 else "-"
        if cmd == "quit":
            break
        try:
            if cmd == "info":
                print("info numpy_version", np.__version__)
                for k, v in blas_info():
                    print("info", k, v)
                print("end info")
            elif cmd == "prepare":
                min_time, fixed, op, dtype = float(parts[2]), int(parts[3]), parts[4], parts[5]
                run, setup, note = make(op, DTYPES[dtype], [int(d) for d in parts[6:]])
                setup = setup or (lambda: None)
                n = calibrate(run, setup, fixed, min_time)
                jobs[key] = (run, setup, n)
                print("ready %s %d %s" % (key, n, note))
            elif cmd == "run":
                run, setup, n = jobs[key]
                setup()
                print("time %s %.9e" % (key, timed(run, n) / n))
            elif cmd == "free":
                jobs.pop(key, None)
                print("freed", key)
            else:
                raise ValueError("unknown command " + cmd)
        except Exception as e:  # report, never fake a number
            print("error %s %s" % (key, str(e).replace("\n", " ")))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
