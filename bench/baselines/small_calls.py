# numpy's side of bench/small_calls.lua: CPU time of one allocating call,
# µs, best of 15 short repeats (as bench/small_calls.lua); prints "form elements ctype<TAB>us".
import time
import numpy as np

for n in (1024, 10000):
    for ct, dt in (("float", np.float32), ("double", np.float64)):
        rng = np.random.default_rng(1)
        x, y = rng.random(n).astype(dt), rng.random(n).astype(dt)
        X = x.reshape((32, 32) if n == 1024 else (100, 100))
        row = rng.random(X.shape[1]).astype(dt)
        s = dt(0.9)
        forms = [("x + y", lambda: x + y), ("x * 0.9", lambda: x * s), ("gm.tanh(x)", lambda: np.tanh(x)),
                 ("x:gt(0.5)", lambda: x > 0.5), ("x:copy()", lambda: x.copy()), ("X + row", lambda: X + row),
                 ("X:sum(1)", lambda: X.sum(axis=0))]
        calls = (200000 if n == 1024 else 40000) // 10
        for name, f in forms:
            best = 1e9
            for _ in range(15):
                t = time.process_time()
                for _ in range(calls):
                    f()
                best = min(best, (time.process_time() - t) / calls * 1e6)
            print("%s %d %s\t%.3f" % (name, n, ct, best))
