-- gm.fft on the host against np.fft on the same machine: KISS FFT
-- (src/host/fft.cpp) for gpumat, pocketfft for NumPy 1.24 (which computes
-- in double and returns complex128 whatever the input, so the complex64
-- row compares gpumat's single precision with NumPy's double).  Inputs are
-- the harness pattern (complex ones: as the real part); every call
-- allocates its result, on both sides.
local gm = require "gpumat"
local U = require "bench_util"

local function case(label, op, dims, dtype, call, iterations)
  return {
    name = label .. ", " .. table.concat(dims, "x") .. " " .. dtype, requires = {},
    iterations = iterations, repeats = 5, settle = 0.2,
    prepare = function()
      local p = U.pattern_mat(gm, dims, dtype:match("complex") and "double" or dtype)
      local a = dtype:match("complex") and p:as(dtype) or p
      return function(k) for _ = 1, k or 1 do call(a) end end, nil, function() U.free(a, p) end
    end,
    against = {
      { label = "numpy", numpy = { op = op, dtype = dtype, dims = dims }, iterations = iterations },
    },
  }
end

local F = gm.fft
return {
  order = 92,
  title = "gm.fft",
  description = "host, one transform per iteration (fft2: over both axes of one 1024x1024 mat); both sides " ..
    "allocate their results.",
  cases = {
    case("fft.fft(a)", "ff_fft", { 1048576 }, "complex128", function(a) F.fft(a) end, 1),
    case("fft.rfft(a)", "ff_rfft", { 4194304 }, "double", function(a) F.rfft(a) end, 1),
    case("fft.fftn(a) (fft2)", "ff_fft2", { 1024, 1024 }, "complex64", function(a) F.fftn(a) end, 1),
    -- a prime length: Bluestein's algorithm on both sides
    case("fft.fft(a) (prime n)", "ff_fft", { 1000003 }, "complex128", function(a) F.fft(a) end, 1),
    case("fft.rfft(a) (prime n)", "ff_rfft", { 1000003 }, "double", function(a) F.rfft(a) end, 1),
    case("fft.rfft(a) (n = 2 x prime)", "ff_rfft", { 1000018 }, "double", function(a) F.rfft(a) end, 1),
    -- 500010 terms: n = 2 (m - 1) = 2 x 500009 on both sides
    case("fft.irfft(a) (n = 2 x prime)", "ff_irfft", { 500010 }, "complex128", function(a) F.irfft(a) end, 1),
  },
}
