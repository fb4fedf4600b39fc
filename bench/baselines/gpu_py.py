#!/usr/bin/env python3
"""CuPy and PyTorch baselines of bench/gpu_bench.lua, on the same card in
the same run: for each case key (the Lua side's names) and each library
that imports, the median seconds per call over 5 repeats, each repeat
grown to take >= 0.1 s and synchronized.  Prints one line per result:

    LIB KEY SECONDS

and "LIB - absent: REASON" for a library that does not import.  Sizes
are the Lua side's (N float32 elements, 4096^3 gemm, 8192 x 8192
matrices, a 1e6 x 3 narrow mat, 64 MiB copies).

    python3 bench/baselines/gpu_py.py [KEY ...]     (default: every case)
"""
import statistics
import sys
import time

N = 64 << 20
SQ = 8192
GEMM = 4096
NARROW = (1000000, 3)
# the goal cases of the typed-mats II, ordering and linalg issues
MM = 8192
FFT, FFT2, RFFT = 1 << 24, 4096, 1 << 22
SORT, TAKE = 1 << 24, 1 << 22
BMM, BSOLVE, SOLVE = 10000, 1000, 4096


def timer(run, sync):
    run()
    sync()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            run()
        sync()
        if time.perf_counter() - t0 > 0.1 or n >= 1 << 20:
            break
        n *= 2
    ts = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            run()
        sync()
        ts.append((time.perf_counter() - t0) / n)
    return statistics.median(ts)


def cases_cupy():
    import cupy as cp
    import numpy as np

    f = cp.float32
    x = cp.ones(N, dtype=f)
    y = cp.ones(N, dtype=f)
    z = cp.ones(N, dtype=f)
    a = cp.ones((SQ, SQ), dtype=f)
    row = cp.ones((1, SQ), dtype=f)
    c = cp.ones((SQ, SQ), dtype=f)
    col = cp.ones(SQ, dtype=f)
    nar = cp.ones(NARROW, dtype=f)
    host = np.ones(N // 4, dtype=f)
    pinned_mem = cp.cuda.alloc_pinned_memory(host.nbytes)
    pinned = np.frombuffer(pinned_mem, dtype=f, count=host.size)
    pinned[:] = 1
    dev = cp.empty(N // 4, dtype=f)
    gm = {t: (cp.ones((GEMM, GEMM), dtype=t), cp.ones((GEMM, GEMM), dtype=t), cp.empty((GEMM, GEMM), dtype=t))
          for t in (cp.float32, cp.float64)}
    rs = cp.random.default_rng(42)
    r = cp.random.random
    h16 = [r((MM, MM), dtype=cp.float32).astype(cp.float16) for _ in range(3)]
    xc = r(FFT, dtype=cp.float32).astype(cp.complex64)
    x2c = r((FFT2, FFT2), dtype=cp.float32).astype(cp.complex64)
    xr = r(RFFT)
    xs = r(SORT, dtype=cp.float32)
    xd = r(SORT)
    idx = cp.floor(r(TAKE) * SORT).astype(cp.int64)
    ba, bb = r((BMM, 16, 16), dtype=cp.float32), r((BMM, 16, 16), dtype=cp.float32)
    sa, sb = r((BSOLVE, 8, 8)) + 8 * cp.eye(8), r((BSOLVE, 8, 1))
    la, lb = r((SOLVE, SOLVE)) + SOLVE * cp.eye(SOLVE), r(SOLVE)
    return cp.cuda.Device().synchronize, {
        "mm_fp16": lambda: cp.matmul(h16[0], h16[1], out=h16[2]),
        "fft_c64": lambda: cp.fft.fft(xc),
        "fft2_c64": lambda: cp.fft.fftn(x2c),
        "rfft_f64": lambda: cp.fft.rfft(xr),
        "sort_f32": lambda: cp.sort(xs),
        "argsort_f32": lambda: cp.argsort(xs),
        "cumsum_f64": lambda: cp.cumsum(xd),
        "take_f32": lambda: cp.take(xs, idx),
        "bmm_f32": lambda: cp.matmul(ba, bb),
        "bsolve_f64": lambda: cp.linalg.solve(sa, sb),
        "solve_f64": lambda: cp.linalg.solve(la, lb),
        "exp": lambda: cp.exp(x, out=x),
        "scal": lambda: cp.multiply(x, f(1.0000001), out=x),
        "axpy": lambda: cp.add(y, f(1e-7) * x, out=y),
        "geem": lambda: cp.multiply(x, y, out=z),
        "broadcast": lambda: cp.add(a, row, out=c),
        "sum": lambda: float(x.sum()),
        "colsum": lambda: cp.sum(a, axis=0, out=col),
        "rowsum": lambda: cp.sum(a, axis=1, out=col),
        "narrow_sum": lambda: cp.sum(nar, axis=0),
        "gemm_float": lambda: cp.matmul(gm[cp.float32][0], gm[cp.float32][1], out=gm[cp.float32][2]),
        "gemm_double": lambda: cp.matmul(gm[cp.float64][0], gm[cp.float64][1], out=gm[cp.float64][2]),
        "uniform": lambda: rs.random(N, dtype=f, out=x),
        "gaussian": lambda: rs.standard_normal(N, dtype=f, out=x),
        "d2d": lambda: cp.copyto(y, x),
        "transpose": lambda: cp.copyto(c, a.T),
        "h2d_pinned": lambda: dev.set(pinned),
        "h2d_pageable": lambda: dev.set(host),
    }


def cases_torch():
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False  # as gpumat's default (gm.cuda_allow_tf32 false)
    d = torch.device("cuda")
    f = torch.float32
    x = torch.ones(N, dtype=f, device=d)
    y = torch.ones(N, dtype=f, device=d)
    z = torch.ones(N, dtype=f, device=d)
    a = torch.ones((SQ, SQ), dtype=f, device=d)
    row = torch.ones((1, SQ), dtype=f, device=d)
    c = torch.ones((SQ, SQ), dtype=f, device=d)
    col = torch.ones(SQ, dtype=f, device=d)
    nar = torch.ones(NARROW, dtype=f, device=d)
    host = torch.ones(N // 4, dtype=f)
    pinned = torch.ones(N // 4, dtype=f).pin_memory()
    dev = torch.empty(N // 4, dtype=f, device=d)
    gm = {t: (torch.ones((GEMM, GEMM), dtype=t, device=d), torch.ones((GEMM, GEMM), dtype=t, device=d),
              torch.empty((GEMM, GEMM), dtype=t, device=d)) for t in (torch.float32, torch.float64)}

    def r(*shape, dtype=torch.float64):
        return torch.rand(shape, dtype=dtype, device=d)
    half = {t: [r(MM, MM, dtype=t) for _ in range(3)] for t in (torch.bfloat16, torch.float16)}
    xc = r(FFT, dtype=f).to(torch.complex64)
    x2c = r(FFT2, FFT2, dtype=f).to(torch.complex64)
    xr = r(RFFT)
    xs = r(SORT, dtype=f)
    xd = r(SORT)
    idx = torch.floor(r(TAKE) * SORT).to(torch.int64)
    ba, bb = r(BMM, 16, 16, dtype=f), r(BMM, 16, 16, dtype=f)
    eye8 = torch.eye(8, dtype=torch.float64, device=d)
    sa, sb = r(BSOLVE, 8, 8) + 8 * eye8, r(BSOLVE, 8, 1)
    la, lb = r(SOLVE, SOLVE) + SOLVE * torch.eye(SOLVE, dtype=torch.float64, device=d), r(SOLVE)
    bf, hf = half[torch.bfloat16], half[torch.float16]
    return torch.cuda.synchronize, {
        "mm_bf16": lambda: torch.mm(bf[0], bf[1], out=bf[2]),
        "mm_fp16": lambda: torch.mm(hf[0], hf[1], out=hf[2]),
        "fft_c64": lambda: torch.fft.fft(xc),
        "fft2_c64": lambda: torch.fft.fftn(x2c),
        "rfft_f64": lambda: torch.fft.rfft(xr),
        "sort_f32": lambda: torch.sort(xs, stable=True),
        "argsort_f32": lambda: torch.argsort(xs, stable=True),
        "cumsum_f64": lambda: torch.cumsum(xd, 0),
        "take_f32": lambda: torch.index_select(xs, 0, idx),
        "bmm_f32": lambda: torch.bmm(ba, bb),
        "bsolve_f64": lambda: torch.linalg.solve(sa, sb),
        "solve_f64": lambda: torch.linalg.solve(la, lb),
        "exp": lambda: x.exp_(),
        "scal": lambda: x.mul_(1.0000001),
        "axpy": lambda: y.add_(x, alpha=1e-7),
        "geem": lambda: torch.mul(x, y, out=z),
        "broadcast": lambda: torch.add(a, row, out=c),
        "sum": lambda: x.sum().item(),
        "colsum": lambda: torch.sum(a, 0, out=col),
        "rowsum": lambda: torch.sum(a, 1, out=col),
        "narrow_sum": lambda: torch.sum(nar, 0),
        "gemm_float": lambda: torch.mm(gm[torch.float32][0], gm[torch.float32][1], out=gm[torch.float32][2]),
        "gemm_double": lambda: torch.mm(gm[torch.float64][0], gm[torch.float64][1], out=gm[torch.float64][2]),
        "uniform": lambda: x.uniform_(),
        "gaussian": lambda: x.normal_(),
        "d2d": lambda: y.copy_(x),
        "transpose": lambda: c.copy_(a.t()),
        "h2d_pinned": lambda: dev.copy_(pinned, non_blocking=True),
        "h2d_pageable": lambda: dev.copy_(host),
    }


def main():
    want = sys.argv[1:]
    for lib, make in (("cupy", cases_cupy), ("torch", cases_torch)):
        try:
            sync, cases = make()
        except Exception as e:  # not installed, no device, out of memory
            print(f"{lib} - absent: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", flush=True)
            continue
        for key, run in cases.items():
            if want and key not in want:
                continue
            try:
                print(f"{lib} {key} {timer(run, sync):.9g}", flush=True)
            except Exception as e:
                print(f"{lib} {key} error: {type(e).__name__}", flush=True)
        del cases
        if lib == "cupy":
            import cupy as cp
            cp.get_default_memory_pool().free_all_blocks()
        else:
            import torch
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
