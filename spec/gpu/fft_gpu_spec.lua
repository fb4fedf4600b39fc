-- gm.fft on cuFFT on a real GPU (pending without one): every transform
-- family (C2C/Z2Z along the last and a leading axis, R2C/D2Z, C2R/Z2D)
-- gives the host's results (KISS FFT, checked against NumPy by
-- spec/fft_spec.lua) within the precision's tolerance, its results stay on
-- the device, a C2R input is left as it was (cuFFT overwrites its own), and
-- more shapes than the plan cache holds (16) run correctly after
-- evictions.  #outermost: not wrapped by spec/helper.lua.
local gm = require "gpumat"
local need_gpu, CUDA = require("gpu_case")(_ENV)
local R = require "numpy_ref"

local TOL = { complex64 = 1e-4, complex128 = 1e-11, float32 = 1e-4, float64 = 1e-11 }

local flat = R.flat -- gm.complex values are elements

local function close(dev, host, what)
  local dt, ht = flat(dev), flat(host)
  assert.are.equal(#ht, #dt, what)
  local big = 1
  for _, v in ipairs(ht) do big = math.max(big, type(v) == "number" and math.abs(v) or math.abs(v.re) + math.abs(v.im)) end
  local tol = TOL[host:dtype()] * big
  for i = 1, #ht do
    local a, b = dt[i], ht[i]
    local dr, di = type(a) == "number" and a or a.re, type(a) == "number" and 0 or a.im
    local hr, hi = type(b) == "number" and b or b.re, type(b) == "number" and 0 or b.im
    if math.abs(dr - hr) > tol or math.abs(di - hi) > tol then
      error(("%s[%d]: device %.17g%+.17gi, host %.17g%+.17gi"):format(what, i, dr, di, hr, hi), 2)
    end
  end
end

local function cmat(n, seed, dt, dims)
  local v, zs = R.vals(2 * n, seed), {}
  for i = 1, n do zs[i] = gm.complex(v[2 * i - 1], v[2 * i]) end
  return gm.asarray(zs, { dtype = dt }):reshape(dims)
end

describe("gm.fft on cuFFT", function()
  for _, ct in ipairs { "complex64", "complex128" } do
    local rt = ct == "complex64" and "float32" or "float64"
    it("fft, ifft, fftn, rfft, irfft, hfft match the host; results stay on the device (" .. ct .. ") #outermost",
      function()
        if not need_gpu() then return end
        local F = gm.fft
        local z = cmat(3 * 10 * 7, 1, ct, { 3, 10, 7 })
        local r = gm.asarray(R.vals(6 * 12, 2), { dtype = rt }):reshape(6, 12)
        local function all(zm, rm)
          return { F.fft(zm), F.ifft(zm, { axis = 1, norm = "ortho" }), F.fftn(zm, { s = { 4, 8 } }),
            F.rfft(rm), F.rfft(rm, { axis = 1, n = 9 }), F.irfft(zm, { n = 11 }), F.irfftn(zm), F.hfft(zm, { axis = 2 }),
            F.ifftn(zm, { norm = "forward" }) }
        end
        local host = all(z, r)
        gm.with_cuda(CUDA, function()
          local dz, dr = z:copy(), r:copy()
          dz:set_cuda_enabled(true)
          dr:set_cuda_enabled(true)
          local before = flat(dz)
          local dev = all(dz, dr)
          assert.are.equal("C", dev[1]:facets())
          for i = 1, #host do close(dev[i], host[i], ct .. " case " .. i) end
          close(dz, z, "input after the C2R transforms")
          assert.are.equal(#before, #flat(dz))
        end)
      end)
  end

  it("runs more shapes than the plan cache holds, each right after evictions #outermost", function()
    if not need_gpu() then return end
    local host, inputs = {}, {}
    for n = 1, 20 do
      inputs[n] = cmat(n * 3, n, "complex128", { 3, n })
      host[n] = gm.fft.fft(inputs[n])
    end
    gm.with_cuda(CUDA, function()
      for pass = 1, 2 do
        for n = 1, 20 do
          local d = inputs[n]:copy()
          d:set_cuda_enabled(true)
          close(gm.fft.fft(d), host[n], ("pass %d, n %d"):format(pass, n))
        end
      end
    end)
  end)
end)
