"""NumPy differential oracle, typed steps (numpy side; see typed.lua).

Replays one typed step with numpy under gpumat's rules (docs/API.md
"Element types and promotion", "Broadcasting elementwise ops"), which
are NumPy 2's where NumPy 1.24 differs:

  * promotion: mats by np.result_type of their dtypes (the same as NumPy 2
    for these 11 types); Lua numbers are weak scalars (NEP 50): a Lua
    integer takes the mat's type (bool mats: int64), a Lua float a float
    mat's type (integer and bool mats: float64), a Lua boolean is a weak
    bool; a number travels as a double and converts into the type as a
    float write does (saturating);
  * gpumat's definitions where NumPy's are undefined or raise: integer //
    and % by zero give 0, MIN // -1 gives MIN, shifts by a negative count
    or >= the width give 0 (>> of a negative value -1), integer pow with
    a negative exponent truncates 1/x^n, float // and % are Lua's
    (floor(a / b); fmod moved to b's sign), float -> int astype saturates
    (NaN -> 0).

Each reference raises Refusable where the contract lets gpumat refuse the
call today (float-only functions given integer mats, arithmetic on bool);
an accepted refusal is counted, and when gpumat computes instead its
values are checked against numpy.  Integer and bool results compare
exactly; floats within TOL[dtype] * scale * (1 + |want|).
"""
import json
import math

import warnings

import numpy as np

warnings.simplefilter("ignore")  # numpy's warnings for ddof <= 0, empty slices
# float16: two of its ulps (2^-10 each, relative): gpumat computes in
# float32 and rounds once, the references in float64 or NumPy's float16
# loops (float32 inside), so results may sit on either side of a tie
TOL = {"float16": 2e-3, "float32": 2e-5, "float64": 1e-11, "complex64": 2e-5, "complex128": 1e-11}
NP = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32,
      "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
      "uint64": np.uint64, "float16": np.float16, "float32": np.float32, "float64": np.float64,
      "complex64": np.complex64, "complex128": np.complex128}
NAME = {np.dtype(v): k for k, v in NP.items()}
REFUSAL = ("takes float32/float64 mats", "mats only", "mixed ctypes", "a bool mat", "bool mats",
           "is integer-only", "no integer representation",
           "integers to negative integer powers are not allowed")


class Refusable(Exception):
    """gpumat may refuse this call (the message must say why); if it
    computes, `want` (a thunk) gives the reference."""

    def __init__(self, want=None, any_float=False):
        super().__init__("refusable")
        self.want = want
        # a float-only function given integers: NumPy 2 picks float16/32/64
        # by the integer's width, the standard leaves it open: any float
        # result type is taken (values checked at its precision)
        self.any_float = any_float


class MustRaise(Exception):
    """The contract says this call raises (`pattern` in the message)."""

    def __init__(self, pattern):
        super().__init__(pattern)
        self.pattern = pattern


class Weak:
    """A Lua scalar argument: value and Lua type."""

    def __init__(self, v, lt):
        self.v, self.lt = v, lt

    def level(self):
        return {"boolean": 0, "integer": 1, "float": 2}[self.lt]


def decode(vals, dtype):
    if dtype.startswith("complex"):  # gm.complex values: {"re": x, "im": y}
        return np.array([complex(v["re"], v["im"]) if isinstance(v, dict) else v for v in vals], dtype=NP[dtype])
    if dtype == "uint64":
        return np.array([int(v) for v in vals], dtype=np.int64).view(np.uint64)
    if dtype == "bool":
        return np.array(vals, dtype=bool)
    return np.array(vals, dtype=np.float64 if dtype.startswith("float") else object).astype(NP[dtype])


def storage_types(p):
    types = {}

    def walk(v):
        if isinstance(v, dict):
            if "s" in v and "dtype" in v:
                types[v["s"]] = v["dtype"]
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(p.get("args"))
    walk(p.get("prepend"))
    return types


def operand(st, r):
    base = st[r["s"]]
    n = int(np.prod(r["dims"])) if r["dims"] else 1
    if "strides" in r:
        it = base.itemsize
        return np.lib.stride_tricks.as_strided(base[r["d"]:], shape=r["dims"],
                                               strides=[it * x for x in r["strides"]]).copy()
    return base[r["d"]:r["d"] + n].reshape(r["dims"]).copy()


def arg(st, a):
    if "scalar" in a:
        return a["scalar"] if a["lt"] == "dtype" else Weak(a["scalar"], a["lt"])
    return operand(st, a)


def kind(dt):
    dt = np.dtype(dt)
    return "bool" if dt == np.bool_ else ("float" if dt.kind == "f" else "int")


def promote(xs):
    """The result dtype of mats and weak scalars (the contract's rules)."""
    strong = [x.dtype for x in xs if isinstance(x, np.ndarray)]
    weak = max([x.level() for x in xs if isinstance(x, Weak)], default=-1)
    if not strong:
        return np.dtype([np.bool_, np.int64, np.float64][weak])
    r = np.result_type(*strong)
    if weak == 2 and r.kind != "f":
        return np.dtype(np.float64)
    if weak == 1 and r == np.bool_:
        return np.dtype(np.int64)
    return r


def saturate(x, dt):
    """A double converted into dt as gpumat's float writes do."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return np.bool_(x != 0)
    if dt.kind == "f":
        return dt.type(x)
    if math.isnan(x):
        return dt.type(0)
    info = np.iinfo(dt)
    if math.isinf(x):
        return dt.type(info.max if x > 0 else info.min)
    return dt.type(min(max(math.trunc(x), info.min), info.max))


def conv(x, dt):
    if isinstance(x, Weak):
        v = x.v
        if x.lt == "boolean":
            return np.array(1 if v else 0).astype(dt)
        return np.array(saturate(float(v), dt))
    return x.astype(dt)


def astype(a, dt):
    dt = np.dtype(dt)
    if a.dtype.kind == "f" and dt.kind in "iu":
        info = np.iinfo(dt)
        f = np.nan_to_num(np.trunc(a.astype(np.float64)), nan=0.0, posinf=np.inf, neginf=-np.inf)
        out = np.empty(a.shape, dtype=dt)
        flat, res = f.reshape(-1), out.reshape(-1)
        for i, v in enumerate(flat):
            res[i] = info.max if v >= float(info.max) else info.min if v <= float(info.min) else int(v)
        return out
    return a.astype(dt)


def width(dt):
    return np.dtype(dt).itemsize * 8


class AnySign(np.ndarray):
    """A reference whose elements at `loose` may have either sign: a NaN's
    sign does not survive JSON (Lua's 0/0 is -nan on x86), so copysign by a
    NaN and signbit of a NaN are checked up to the sign."""

    def __new__(cls, v, loose):
        obj = np.asarray(v).view(cls)
        obj.loose = np.asarray(loose)
        return obj


# ---- element functions with gpumat's definitions --------------------------

def Z(dt):
    """A typed zero (a Python 0 would turn a uint64 np.where into float64)."""
    return np.dtype(dt).type(0)


def O(dt):
    return np.dtype(dt).type(1)


def int_floordiv(a, b, dt):
    info = np.iinfo(dt)
    zero = b == 0
    safe_b = np.where(zero, O(dt), b).astype(dt)
    if info.min < 0:
        ovf = (a == info.min) & (b == -1)
        safe_b = np.where(ovf, O(dt), safe_b).astype(dt)
        q = np.floor_divide(a, safe_b)
        q = np.where(ovf, a, q)
    else:
        q = np.floor_divide(a, safe_b)
    return np.where(zero, Z(dt), q).astype(dt)


def int_rem(a, b, dt):
    info = np.iinfo(dt)
    zero = b == 0
    safe_b = np.where(zero, O(dt), b).astype(dt)
    if info.min < 0:
        safe_b = np.where(b == -1, O(dt), safe_b).astype(dt)
    r = np.remainder(a, safe_b)
    return np.where(zero, Z(dt), r).astype(dt)


def lua_floordiv(a, b):
    return np.floor(a / b)


def lua_mod(a, b):
    m = np.fmod(a, b)
    fix = ((m > 0) & (b < 0)) | ((m < 0) & (b > 0))
    return np.where(fix, m + b, m)


def shift(a, b, dt, left):
    w = width(dt)
    bi = b.astype(np.int64) if np.dtype(dt).kind == "i" else b.astype(np.uint64)
    out_of = (bi >= w) | (bi < 0) if np.dtype(dt).kind == "i" else (bi >= w)
    s = np.where(out_of, Z(bi.dtype), bi).astype(dt)
    if left:
        r = np.left_shift(a, s)
        return np.where(out_of, Z(dt), r).astype(dt)
    r = np.right_shift(a, s)
    fill = np.where(a < 0, dt.type(-1), Z(dt)) if np.dtype(dt).kind == "i" else Z(dt)
    return np.where(out_of, fill, r).astype(dt)


def int_pow(a, b, dt):
    out = np.empty(np.broadcast(a, b).shape, dtype=dt)
    aa, bb = np.broadcast_arrays(a, b)
    bits = width(dt)
    signed = np.dtype(dt).kind == "i"
    for idx in np.ndindex(out.shape):
        x, n = int(aa[idx]), int(bb[idx])
        if n < 0:
            r = 1 if x == 1 else ((-1 if n % 2 else 1) if x == -1 else 0)
        else:
            r = pow(x, n, 1 << bits)
        r %= 1 << bits
        if signed and r >= 1 << (bits - 1):
            r -= 1 << bits
        out[idx] = r
    return out


# ---- the ops ---------------------------------------------------------------
# Each takes (args, opts) and returns (value, dtype name, exact, scale):
# value an array (or a Python scalar for a whole reduction).

def has_bool(xs):
    return any(isinstance(x, np.ndarray) and x.dtype == np.bool_ for x in xs)


def binary(fn, float_only=False, bool_ok=True, exact=False):
    def op(xs, opts):
        r = promote(xs)
        a, b = conv(xs[0], r), conv(xs[1], r)

        def want(rr=r):
            if rr.kind != "f" and float_only:  # gpumat's float for the type (NumPy's, float32 for its float16)
                rr = np.dtype(np.float32 if rr.itemsize <= 2 else np.float64)
                aa, bb = conv(xs[0], rr), conv(xs[1], rr)
            else:
                aa, bb = a, b
            v = fn(aa, bb, rr)
            loose = getattr(v, "loose", None)
            v = np.asarray(v).astype(rr if v.dtype != np.bool_ else np.bool_)
            return (AnySign(v, loose) if loose is not None else v), exact, 1
        non_float = any(isinstance(x, np.ndarray) and x.dtype.kind != "f" for x in xs)
        if (float_only and non_float) or (not bool_ok and has_bool(xs)):
            raise Refusable(want, any_float=float_only)
        return want()
    return op


def arith(fn):
    return binary(lambda a, b, r: fn(a, b), bool_ok=False)


def cmp(fn):
    def op(xs, opts):
        r = promote(xs)
        return fn(conv(xs[0], r), conv(xs[1], r)), True, 1
    return op


def logical(fn):
    def op(xs, opts):
        t = [conv(x, np.bool_) if isinstance(x, Weak) else x.astype(np.bool_) for x in xs]
        return fn(t[0], t[1]), True, 1
    return op


def divide(xs, opts):
    r = promote(xs)
    if r.kind != "f":
        r = np.dtype(np.float64)
    return np.true_divide(conv(xs[0], r), conv(xs[1], r)), False, 1


def floordiv_or_rem(which):
    def op(xs, opts):
        r = promote(xs)
        a, b = conv(xs[0], r), conv(xs[1], r)

        def want():
            if r.kind == "f":
                return (lua_floordiv if which == "div" else lua_mod)(a, b).astype(r), True, 1
            if r == np.bool_:  # NumPy's: bool has no such loop, int8 computes it
                i8 = np.dtype(np.int8)
                return (int_floordiv if which == "div" else int_rem)(a.astype(i8), b.astype(i8), i8), True, 1
            return (int_floordiv if which == "div" else int_rem)(a, b, r), True, 1
        if has_bool(xs):
            raise Refusable(want)
        return want()
    return op


def bitwise(fn):
    def op(xs, opts):
        for x in xs:
            if isinstance(x, Weak) and x.lt == "float" and not float(x.v).is_integer():
                raise MustRaise("no integer representation")
        ys = [Weak(int(x.v), "integer") if isinstance(x, Weak) and x.lt == "float" else x for x in xs]
        r = promote(ys)

        def want():
            if r.kind == "f":
                raise MustRaise("integer")
            return fn(conv(ys[0], r), conv(ys[1], r), r).astype(r), True, 1
        if any(isinstance(x, Weak) and x.lt == "float" for x in xs):
            raise Refusable(want)
        return want()
    return op


def shift_op(left):
    def fn(a, b, r):
        if r == np.bool_:
            raise MustRaise("bool")
        return shift(a, b, r, left)

    def op(xs, opts):
        inner = bitwise(fn)
        if has_bool(xs):
            raise Refusable(lambda: inner(xs, opts))
        return inner(xs, opts)
    return op


def pow_op(xs, opts):
    r = promote(xs)
    a, b = conv(xs[0], r), conv(xs[1], r)

    def want():
        if r.kind == "f":
            return np.power(a, b), False, 1
        if r == np.bool_:  # NumPy's: bool ** bool computes in int8
            i8 = np.dtype(np.int8)
            return int_pow(a.astype(i8), b.astype(i8), i8), True, 1
        return int_pow(a, b, r), True, 1
    if r.kind != "f":
        raise Refusable(want)
    return want()


def where(xs, opts):
    c = xs[0].astype(np.bool_)
    r = promote(xs[1:])
    return np.where(c, conv(xs[1], r), conv(xs[2], r)), True, 1


def float_unary(fn):
    def op(xs, opts):
        a = xs[0]

        def want():
            if a.dtype.kind == "f":
                return fn(a.astype(np.float64)).astype(a.dtype), False, 1
            return fn(a.astype(np.float64)), False, 1
        if a.dtype.kind != "f":
            raise Refusable(want, any_float=True)
        return want()
    return op


def int_unary(fn, bool_ok=False):
    def op(xs, opts):
        a = xs[0]
        if a.dtype == np.bool_ and not bool_ok:
            raise Refusable(lambda: (fn(a), True, 1))
        return np.asarray(fn(a)), True, 1
    return op


def sign(a):
    if a.dtype.kind == "u":
        return (a != 0).astype(a.dtype)
    return np.sign(a)


def invert(a):
    if a.dtype.kind == "f":
        raise MustRaise("")
    return np.invert(a)


def identity_int(fn):
    return lambda a: a.copy() if a.dtype.kind in "iub" else fn(a)


# reductions ------------------------------------------------------------------

def reduction(name):
    def op(xs, opts):
        a = xs[0]
        opts = opts or {}
        axis = opts.get("axis")
        keep = bool(opts.get("keepdims"))
        ax = None if axis is None else (axis - 1 if axis > 0 else a.ndim + axis)
        n = a.size if ax is None else a.shape[ax]
        if n == 0 and name in ("max", "min", "argmax", "argmin"):
            raise MustRaise("empty")
        if n == 0 and ax is None and name == "mean":
            raise MustRaise("empty")
        k = kind(a.dtype)
        exact = True
        if "dtype" in opts:  # m converts to dtype first, which must be the result's type
            t = np.dtype(NP[opts["dtype"]])
            if t.kind != "f":
                natural = np.dtype(np.uint64 if t.kind == "u" else np.int64) \
                    if name in ("sum", "prod") else np.dtype(np.float64)
                if t != natural:
                    raise MustRaise("dtype")
            a = astype(a, t)
            k = kind(t)
        if name in ("sum", "prod"):
            rt = a.dtype if k == "float" else (np.uint64 if a.dtype.kind == "u" else np.int64)
            src = a.astype(np.float64) if k == "float" else a.astype(rt)
            v = (np.sum if name == "sum" else np.prod)(src, axis=ax, keepdims=keep)
            exact = k != "float"
        elif name in ("max", "min"):
            rt = a.dtype
            v = (np.max if name == "max" else np.min)(a, axis=ax, keepdims=keep)
        elif name in ("mean", "var", "std"):
            rt = a.dtype if k == "float" else np.float64
            v = getattr(np, name)(a.astype(np.float64), axis=ax, keepdims=keep)
            exact = False
        elif name in ("any", "all"):
            rt = np.bool_
            v = getattr(np, name)(a.astype(np.bool_), axis=ax, keepdims=keep)
        elif name == "count_nonzero":
            rt = np.int64
            v = np.count_nonzero(a, axis=ax, keepdims=keep) if ax is not None else np.count_nonzero(a)
        else:
            rt = np.int64
            v = getattr(np, name)(a, axis=ax) + 1
            if keep and ax is not None:
                v = np.expand_dims(v, ax)
        v = np.asarray(v)
        if k == "float" and name in ("sum", "mean", "var", "std") and a.size:
            # a sum's rounding scales with its terms, not its result
            f = np.abs(a.astype(np.float64))
            mag = float(np.max(np.where(np.isfinite(f), f, 0)))
            n = (n + 1) * (1 + (mag * mag if name == "var" else mag))
        if ax is None and not keep:
            return ("lua", v.astype(rt)[()] if v.dtype.kind != "f" or np.dtype(rt).kind == "f" else v[()]), \
                exact, n + 1
        return v.astype(rt), exact, n + 1
    return op


def cumulative(name):
    def op(xs, opts):
        a = xs[0]
        ax = opts["axis"] - 1
        k = kind(a.dtype)
        rt = a.dtype if k == "float" else (np.dtype(np.uint64) if a.dtype.kind == "u" else np.dtype(np.int64))
        # floats: accumulated in float64, each result rounded once (gpumat
        # accumulates float16 in float32; NumPy's float16 cumsum rounds
        # every partial sum to float16, docs/API.md "Half mats")
        src = a.astype(np.float64 if k == "float" else rt)
        v = (np.cumsum if name == "cumulative_sum" else np.cumprod)(src, axis=ax).astype(rt)
        if opts.get("include_initial"):
            shape = list(a.shape)
            shape[ax] = 1
            v = np.concatenate([np.full(shape, 0 if name == "cumulative_sum" else 1, dtype=rt), v], axis=ax)
        return v, k != "float", a.shape[ax] + 1
    return op


def diff(xs, opts):
    a, prepend = xs[0], opts.get("_prepend")
    ax, n = opts["axis"] - 1, opts["n"]
    if prepend is not None:
        r = np.result_type(a.dtype, prepend.dtype)
        a = np.concatenate([prepend.astype(r), a.astype(r)], axis=ax)

    def want():
        v = a
        for _ in range(n):
            if v.shape[ax] <= 1:  # nothing to subtract: an empty axis
                v = np.take(v, range(0), axis=ax)
                continue
            v = np.subtract(np.take(v, range(1, v.shape[ax]), axis=ax),
                            np.take(v, range(0, v.shape[ax] - 1), axis=ax)) if v.shape[ax] > 0 else v
        return v.astype(a.dtype), kind(a.dtype) != "float", 2
    if a.dtype == np.bool_ and n > 0:
        raise Refusable(want)
    return want()


def matmul(xs, opts):
    a, b = xs
    r = promote(xs)

    def want():
        if r == np.bool_:
            return np.matmul(a, b), True, 1
        if r.kind == "f":
            return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(r), False, a.shape[-1] + 1
        return np.matmul(a.astype(r), b.astype(r)), True, 1
    # integer matmul is being added (typed24); mixed float32/float64 still
    # raises "mixed ctypes" (the contract says promote): both reported
    if r.kind != "f" or a.dtype != b.dtype:
        raise Refusable(want)
    return want()


def astype_op(xs, opts):
    return astype(xs[0], NP[xs[1]]), True, 1


OPS = {
    "add": arith(np.add), "subtract": arith(np.subtract), "multiply": arith(np.multiply),
    "divide": divide, "pow": pow_op,
    "maximum": binary(lambda a, b, r: np.maximum(a, b), bool_ok=False, exact=True),
    "minimum": binary(lambda a, b, r: np.minimum(a, b), bool_ok=False, exact=True),
    "floor_divide": floordiv_or_rem("div"), "remainder": floordiv_or_rem("rem"),
    "greater": cmp(np.greater), "greater_equal": cmp(np.greater_equal), "less": cmp(np.less),
    "less_equal": cmp(np.less_equal), "equal": cmp(np.equal), "not_equal": cmp(np.not_equal),
    "logical_and": logical(np.logical_and), "logical_or": logical(np.logical_or),
    "logical_xor": logical(np.logical_xor),
    "bitwise_and": bitwise(lambda a, b, r: np.bitwise_and(a, b)),
    "bitwise_or": bitwise(lambda a, b, r: np.bitwise_or(a, b)),
    "bitwise_xor": bitwise(lambda a, b, r: np.bitwise_xor(a, b)),
    "bitwise_left_shift": shift_op(True), "bitwise_right_shift": shift_op(False),
    "atan2": binary(lambda a, b, r: np.arctan2(a, b), float_only=True),
    "hypot": binary(lambda a, b, r: np.hypot(a, b), float_only=True),
    "copysign": binary(lambda a, b, r: AnySign(np.copysign(a, b), np.broadcast_to(np.isnan(b), np.broadcast(a, b).shape)),
                       float_only=True, exact=True),
    "nextafter": binary(lambda a, b, r: np.nextafter(a, b), float_only=True, exact=True),
    "logaddexp": binary(lambda a, b, r: np.logaddexp(a, b), float_only=True),
    "abs": int_unary(np.abs), "negative": int_unary(np.negative), "positive": int_unary(np.positive),
    "sign": int_unary(sign), "square": int_unary(np.square),
    "trunc": int_unary(identity_int(np.trunc)), "round": int_unary(identity_int(np.rint)),
    "floor": int_unary(identity_int(np.floor)), "ceil": int_unary(identity_int(np.ceil)),
    "isnan": int_unary(np.isnan, True), "isinf": int_unary(np.isinf, True),
    "isfinite": int_unary(np.isfinite, True),
    "signbit": int_unary(lambda a: AnySign(np.signbit(a), np.isnan(a)) if a.dtype.kind == "f"
                         else a < 0 if a.dtype.kind == "i" else np.zeros(a.shape, bool), True),
    "logical_not": int_unary(lambda a: ~a.astype(np.bool_), True),
    "bitwise_invert": int_unary(invert, True),
    "where": where, "astype": astype_op, "diff": diff, "matmul": matmul,
    "cumulative_sum": cumulative("cumulative_sum"), "cumulative_prod": cumulative("cumulative_prod"),
}
for _f, _n in [("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log), ("expm1", np.expm1),
               ("log1p", np.log1p), ("sin", np.sin), ("cos", np.cos), ("tan", np.tan),
               ("tanh", np.tanh), ("sinh", np.sinh), ("cosh", np.cosh), ("acos", np.arccos),
               ("acosh", np.arccosh), ("asin", np.arcsin), ("asinh", np.arcsinh),
               ("atan", np.arctan), ("atanh", np.arctanh), ("log2", np.log2), ("log10", np.log10)]:
    OPS[_f] = float_unary(_n)
for _f in ("sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "count_nonzero",
           "argmax", "argmin"):
    OPS[_f] = reduction(_f)


# ---- complex mats (typed.lua's OPS.complex) ------------------------------------

def is_complex_step(xs):
    return any(isinstance(x, np.ndarray) and x.dtype.kind == "c" for x in xs)


def cx_result_type(xs):
    mats = [x.dtype for x in xs if isinstance(x, np.ndarray)]
    return np.result_type(*mats)  # Lua numbers are weak: the mats decide


def cx_binary(fn, cmp=False):
    def op(xs, opts):
        rt = cx_result_type(xs)
        vals = [x.astype(np.complex128) if isinstance(x, np.ndarray) else complex(x.v) for x in xs]
        if cmp:
            return fn(*vals), True, 1
        return np.asarray(fn(*vals)).astype(rt), False, 2
    return op


def cx_pow(a, b):
    # npy_cpow: 0 ** b is 0 for a real positive b, NaN otherwise; x ** 0 is 1
    with np.errstate(all="ignore"):
        r = np.power(a, b)
    a, b = np.broadcast_arrays(a, b)
    zero = (a == 0) & ~(b == 0)
    r = np.where(zero & (b.real > 0) & (b.imag == 0), 0, np.where(zero, complex(np.nan, np.nan), r))
    return np.where(b == 0, 1, r)


def cx_unary(fn, real=False):
    def op(xs, opts):
        a = xs[0]
        with np.errstate(all="ignore"):
            v = fn(a.astype(np.complex128))
        rt = (np.float32 if a.dtype == np.complex64 else np.float64) if real else a.dtype
        return np.asarray(v).astype(rt), False, 4
    return op


def cx_reduction(name):
    def op(xs, opts):
        a = xs[0]
        opts = opts or {}
        axis = opts.get("axis")
        ax = None if axis is None else (axis - 1 if axis > 0 else a.ndim + axis)
        keep = bool(opts.get("keepdims"))
        v = getattr(np, name)(a.astype(np.complex128), axis=ax, keepdims=keep)
        n = a.size if ax is None else a.shape[ax]
        mag = float(np.max(np.abs(a))) if a.size else 0.0
        scale = (n + 1) * (1 + mag) if name != "prod" else n + 1
        if ax is None and not keep:  # a gm.complex value, checked at a's precision
            return ("lua", np.asarray(v).astype(a.dtype)[()]), False, scale
        return np.asarray(v).astype(a.dtype), False, scale
    return op


def cx_cumulative(name):
    def op(xs, opts):
        a, ax = xs[0], opts["axis"] - 1
        v = (np.cumsum if name == "cumulative_sum" else np.cumprod)(a.astype(np.complex128), axis=ax)
        if opts.get("include_initial"):
            shape = list(a.shape)
            shape[ax] = 1
            v = np.concatenate([np.full(shape, 0 if name == "cumulative_sum" else 1, np.complex128), v], axis=ax)
        mag = float(np.max(np.abs(a))) if a.size else 0.0
        return v.astype(a.dtype), False, (a.shape[ax] + 1) * (1 + mag)
    return op


def cx_vecdot(xs, opts):
    a, b = xs
    v = np.sum(np.conj(a.astype(np.complex128)) * b.astype(np.complex128), axis=-1)
    scale = (a.shape[-1] + 1) * 4
    if a.ndim == 1:
        return ("lua", np.asarray(v).astype(cx_result_type(xs))[()]), False, scale
    return v.astype(cx_result_type(xs)), False, scale


def cx_matmul(xs, opts):
    a, b = xs
    v = np.matmul(a.astype(np.complex128), b.astype(np.complex128))
    return v.astype(cx_result_type(xs)), False, (a.shape[-1] + 1) * 4


def cx_sign(z):
    return np.where(z == 0, 0, z / np.where(z == 0, 1, np.abs(z)))


CX_OPS = {
    "add": cx_binary(np.add), "subtract": cx_binary(np.subtract), "multiply": cx_binary(np.multiply),
    "divide": cx_binary(np.divide), "pow": cx_binary(cx_pow),
    "equal": cx_binary(np.equal, cmp=True), "not_equal": cx_binary(np.not_equal, cmp=True),
    "abs": cx_unary(np.abs, real=True), "real": cx_unary(np.real, real=True),
    "imag": cx_unary(np.imag, real=True), "conj": cx_unary(np.conj), "sign": cx_unary(cx_sign),
    "negative": cx_unary(np.negative), "square": cx_unary(lambda z: z * z),
    "reciprocal": cx_unary(lambda z: 1 / z),
    **{f: cx_unary(getattr(np, f)) for f in ("sqrt", "exp", "log", "expm1", "log1p", "log2", "log10", "sin",
                                             "cos", "tan", "sinh", "cosh", "tanh")},
    "sum": cx_reduction("sum"), "prod": cx_reduction("prod"), "mean": cx_reduction("mean"),
    "cumulative_sum": cx_cumulative("cumulative_sum"), "cumulative_prod": cx_cumulative("cumulative_prod"),
    "vecdot": cx_vecdot, "matmul": cx_matmul,
}


def close_cx(got, want, dt, scale):
    """Complex elements within TOL * scale * (1 + |want|) (each part, the
    modulus as the scale); NaN where NumPy has NaN (in either part)."""
    tol = TOL[dt] * scale * (1 + np.abs(np.where(np.isfinite(want), want, 0)))
    nan_ok = np.isnan(got) == np.isnan(want)
    fin = np.isfinite(want)
    inf_ok = fin | np.isnan(want) | (got == want)
    with np.errstate(invalid="ignore"):
        val_ok = ~fin | (np.abs(got - want) <= tol)
    return nan_ok & inf_ok & val_ok


# ---- comparison ----------------------------------------------------------------

def same_exact(got, want):
    if got.dtype.kind == "f":
        eq = (got == want) | (np.isnan(got) & np.isnan(want))
        zero = (want == 0) & (got == 0)
        return eq & (~zero | (np.signbit(got) == np.signbit(want)))
    return got == want


def close(got, want, dt, scale):
    tol = TOL[dt] * scale * (1 + np.abs(want))
    nan_ok = np.isnan(got) == np.isnan(want)
    inf = np.isinf(want)
    fin = ~np.isnan(want) & ~inf
    inf_ok = ~inf | (got == want)
    # a float32 (float16) result beyond its type's range overflows to infinity
    lim = {"float16": 65504.0 * (1 - 2e-3), "float32": 3.0e38}.get(dt, np.inf)
    over = np.isinf(got) & (np.abs(want) > lim)
    with np.errstate(invalid="ignore"):
        val_ok = ~fin | (np.abs(got - want) <= tol) | over
    return nan_ok & inf_ok & val_ok


def decode_value(v, dt):
    """A Lua value result (whole reductions) as a numpy scalar of dt."""
    x = v["value"]
    if isinstance(x, dict):  # a gm.complex value
        return np.array([complex(x["re"], x["im"])], dtype=np.complex128)
    if dt == np.uint64 and isinstance(x, int):
        return np.array([x], dtype=np.int64).view(np.uint64)
    return np.array([x], dtype=dt if v["lt"] != "float" or np.dtype(dt).kind == "f" else np.float64)


def compare(p, want, exact, scale):
    """Problems (a list of strings) between the step's result and want."""
    if isinstance(want, tuple) and want[0] == "lua":
        w = np.asarray(want[1])
        if "value" not in p:
            return ["expected a Lua value %r, got %s" % (w, "a mat" if "res" in p else "nothing")]
        got = decode_value(p["value"], w.dtype)
        w = w.reshape(1)
        dt = NAME.get(w.dtype, "float64")
    else:
        loose = getattr(want, "loose", None)
        w = np.asarray(want)
        if loose is not None:
            w = np.where(loose, np.abs(w) if w.dtype.kind == "f" else False, w)
        if "res" not in p:
            return ["expected a mat, got %r" % p.get("value")]
        res = p["res"]
        dt = NAME[w.dtype]
        if res["dtype"] != dt:
            return ["dtype %s want %s" % (res["dtype"], dt)]
        if list(res["dims"]) != list(w.shape):
            return ["dims %s want %s" % (res["dims"], list(w.shape))]
        got = decode(res["vals"], dt).reshape(w.shape)
        if loose is not None:
            got = np.where(loose, np.abs(got) if got.dtype.kind == "f" else False, got)
        got, w = got.reshape(-1), w.reshape(-1)
    if got.dtype.kind == "c" or w.dtype.kind == "c":
        cdt = dt if dt in ("complex64", "complex128") else "complex128"
        ok = close_cx(got.astype(np.complex128), w.astype(np.complex128), cdt, scale)
    elif got.dtype.kind == "f" or w.dtype.kind == "f":
        g, ww = got.astype(np.float64), w.astype(np.float64)
        ok = same_exact(g, ww) if exact else close(g, ww, dt if dt in TOL else "float64", scale)
    else:
        ok = got.astype(w.dtype) == w
    if not ok.all():
        idx = np.nonzero(~ok)[0][:5]
        return ["elements %s got %s want %s" % (idx.tolist(), got[idx].tolist(), w[idx].tolist())]
    return []


def refusal_ok(msg):
    return any(s in msg for s in REFUSAL)


def out_written(p, st, out):
    """An out= call: the result (recorded as res, the same mat) must be in
    the out view, and its storage unchanged elsewhere."""
    after = decode(p["after"][str(out["s"])], out["dtype"])
    before = st[out["s"]].copy()
    base = before.copy()
    st2 = {out["s"]: base}
    idx = np.arange(base.size)
    st2[out["s"]] = idx
    pos = operand(st2, out).reshape(-1)  # the storage positions of the view
    if "res" in p:
        base[pos] = decode(p["res"]["vals"], p["res"]["dtype"]).astype(base.dtype)
    if not np.array_equal(base, after, equal_nan=True):
        bad = np.nonzero(~((base == after) | ((base != base) & (after != after))))[0][:5]
        return ["out's storage differs from the result at positions %s" % bad.tolist()]
    return []


def check_step(p, stats):
    """Problems of one typed step (empty when it agrees with numpy)."""
    types = storage_types(p)
    if p.get("out") is not None:
        types[p["out"]["s"]] = p["out"]["dtype"]
    st = {int(k): decode(v, types[int(k)]) for k, v in p["before"].items()}
    problems = []
    out = p.get("out")
    for k, v in p["after"].items():  # inputs unchanged (an out's storage: below)
        if out is not None and int(k) == out["s"]:
            continue
        if not np.array_equal(decode(v, types[int(k)]), st[int(k)], equal_nan=True):
            problems.append("storage %s changed" % k)
    xs = [arg(st, a) for a in p["args"]]
    if out is not None and p.get("err") is None:
        problems += out_written(p, st, out)
    opts = p.get("opts") or {}
    if "prepend" in p:
        opts = dict(opts, _prepend=operand(st, p["prepend"]))
    fn = CX_OPS[p["f"]] if is_complex_step(xs) else OPS[p["f"]]
    err = p.get("err")
    any_float = False
    try:
        want = fn(xs, opts)
    except Refusable as r:
        if err is not None and refusal_ok(err):
            stats["refused"][p["f"]] = stats["refused"].get(p["f"], 0) + 1
            return problems
        if err is not None:
            return problems + ["refused with an unexpected message: %s" % err]
        any_float = r.any_float
        name = p["f"]
        res_t = (p.get("res") or {}).get("dtype", "")
        if r.any_float and res_t.startswith("float"):
            name += "->" + res_t
        stats["computed"][name] = stats["computed"].get(name, 0) + 1
        try:
            want = r.want
            while callable(want):  # a nested refusable case computes too
                try:
                    want = want()
                except Refusable as inner:
                    want = inner.want
                except TypeError as e:  # NumPy refuses it too
                    return problems + ["computed where NumPy raises (%s): %s" % (e, json.dumps(p.get("res")))]
        except MustRaise as m:
            return problems + ["returned a value where it must raise (%s)" % m.pattern]
    except MustRaise as m:
        if err is None:
            return problems + ["returned a value where it must raise (%s)" % m.pattern]
        if m.pattern not in err:
            return problems + ["raised %r, expected a message with %r" % (err, m.pattern)]
        return problems
    if err is not None:
        return problems + ["raised %s" % err]
    value, exact, scale = want
    if any_float and "res" in p and p["res"]["dtype"].startswith("float") and not isinstance(value, tuple):
        value = np.asarray(value).astype(NP[p["res"]["dtype"]])
    return problems + compare(p, value, exact, scale)
