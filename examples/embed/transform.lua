-- Run by the embed example (main.c): `x` is the application's 2x3 float
-- buffer, wrapped without a copy.  Transform it in place and leave a new
-- mat in `result` for the application to read.
local gm = require "gpumat" -- the library's own copy: no search path needed

-- On a device when there is one (or GPUMAT_DEVICE=emulated); otherwise
-- with_cuda simply runs the body on the host.
gm.with_cuda({}, function()
  print(("script: x is %dx%d %s"):format(x:dim(1), x:dim(2), x:ctype()))
  gm.scal_(2, x)        -- x := 2x
  gm.add_scalar_(1, x)  -- x := x + 1
  result = gm.mat(3, { ctype = "float" })
  gm.sum_(x, result, { axis = 1 }) -- column sums
  -- x went to the device if the ops ran there (copy counters start at 0
  -- in a context that opens a device)
  print("script: ran on " .. (gm.counters().n_memcpy_host_to_device > 0 and "a device" or "the host"))
end)
