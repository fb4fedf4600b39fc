-- Lua values of complex elements: gm.complex(re, im) and the metamethods
-- of the tables that element reads of complex64/complex128 mats return
-- (src/lua/l_complex.c makes them with one shared metatable,
-- core._complex_mt).  Fields re and im; + - * / and unary - with gm.complex
-- values or Lua numbers on either side; == between two complex values
-- (Lua calls __eq only when both sides are tables, so z == 1 is false:
-- compare z.re and z.im); tostring gives "1+2i" with the mat printer's
-- number rules (the parts as float64).  The arithmetic is double
-- precision, C99 Annex G's formulas (division: Smith's), as the kernels'.
local argcheck = require "gpumat.argcheck"

return function(gm, core)
  local mt = core._complex_mt

  local function make(re, im) return setmetatable({ re = re, im = im }, mt) end

  -- an operand of an arithmetic metamethod: a complex value or a number
  local function parts(v, op)
    if type(v) == "number" then return v + 0.0, 0.0 end
    if getmetatable(v) == mt then return v.re, v.im end
    error(("gm.complex: attempt to perform arithmetic (%s) on a %s value"):format(op, type(v)), 3)
  end

  mt.__index = {}
  mt.__add = function(a, b)
    local ar, ai = parts(a, "+")
    local br, bi = parts(b, "+")
    return make(ar + br, ai + bi)
  end
  mt.__sub = function(a, b)
    local ar, ai = parts(a, "-")
    local br, bi = parts(b, "-")
    return make(ar - br, ai - bi)
  end
  mt.__mul = function(a, b)
    local ar, ai = parts(a, "*")
    local br, bi = parts(b, "*")
    return make(ar * br - ai * bi, ar * bi + ai * br)
  end
  mt.__div = function(a, b)
    local ar, ai = parts(a, "/")
    local br, bi = parts(b, "/")
    if math.abs(br) >= math.abs(bi) then
      if br == 0 and bi == 0 then return make(ar / br, ai / br) end
      local r = bi / br
      local den = br + bi * r
      return make((ar + ai * r) / den, (ai - ar * r) / den)
    end
    local r = br / bi
    local den = bi + br * r
    return make((ar * r + ai) / den, (ai * r - ar) / den)
  end
  mt.__unm = function(a) return make(-a.re, -a.im) end
  mt.__eq = function(a, b)
    return getmetatable(a) == mt and getmetatable(b) == mt and a.re == b.re and a.im == b.im
  end
  mt.__tostring = function(z) return core._format_complex(z.re, z.im) end

  -- gm.complex(re [, im]): im defaults to 0 (strict_table checks the
  -- argument count)
  function gm.complex(re, im)
    if type(re) ~= "number" then argcheck.argerror(1, "complex", "number expected, got %s", type(re)) end
    if im ~= nil and type(im) ~= "number" then
      argcheck.argerror(2, "complex", "number expected, got %s", type(im))
    end
    return make(re + 0.0, (im or 0) + 0.0)
  end

  -- gm.iscomplex(v): whether v is a gm.complex value
  function gm.iscomplex(v) return getmetatable(v) == mt end
end
