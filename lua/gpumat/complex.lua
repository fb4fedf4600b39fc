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

  local function is_complex(v) return getmetatable(v) == mt end

  -- the operands of a binary metamethod as parts: complex values or
  -- numbers, at least one complex (the VM calls it for one); anything
  -- else raises naming the metamethod and the argument
  local function operands(a, b, key)
    if not is_complex(a) and not is_complex(b) then
      argcheck.argerror(1, key, "gm.complex expected, got %s", type(a))
    end
    local p = {}
    for i, v in ipairs { a, b } do
      if type(v) == "number" then
        p[2 * i - 1], p[2 * i] = v + 0.0, 0.0
      elseif is_complex(v) then
        p[2 * i - 1], p[2 * i] = v.re, v.im
      else
        argcheck.argerror(i, key, "gm.complex or number expected, got %s", type(v))
      end
    end
    return table.unpack(p, 1, 4)
  end

  local function check_one(a, key)
    if not is_complex(a) then argcheck.argerror(1, key, "gm.complex expected, got %s", type(a)) end
    return a
  end

  mt.__index = {}
  mt.__add = function(a, b)
    local ar, ai, br, bi = operands(a, b, "__add")
    return make(ar + br, ai + bi)
  end
  mt.__sub = function(a, b)
    local ar, ai, br, bi = operands(a, b, "__sub")
    return make(ar - br, ai - bi)
  end
  mt.__mul = function(a, b)
    local ar, ai, br, bi = operands(a, b, "__mul")
    return make(ar * br - ai * bi, ar * bi + ai * br)
  end
  mt.__div = function(a, b)
    local ar, ai, br, bi = operands(a, b, "__div")
    if math.abs(br) >= math.abs(bi) then
      if br == 0 and bi == 0 then return make(ar / 0.0, ai / 0.0) end -- NumPy's: by +0 whatever br's sign
      local r = bi / br
      local den = br + bi * r
      return make((ar + ai * r) / den, (ai - ar * r) / den)
    end
    local r = br / bi
    local den = bi + br * r
    return make((ar * r + ai) / den, (ai * r - ar) / den)
  end
  mt.__unm = function(a)
    check_one(a, "__unm")
    return make(-a.re, -a.im)
  end
  mt.__eq = function(a, b)
    check_one(a, "__eq")
    return is_complex(b) and a.re == b.re and a.im == b.im
  end
  mt.__tostring = function(z)
    check_one(z, "__tostring")
    return core._format_complex(z.re, z.im)
  end

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
