-- gm.einsum (NumPy's subscripts), gm.matmul / m:matmul (the standard's
-- matmul: gm.linalg.matmul under the main namespace's name) and the `*`
-- operator on stacks: a product where either operand has more than two
-- axes goes to gm.matmul (batched, stacks broadcast); everything else
-- stays the C operator (src/lua/l_operators.c: 2-d products, matrix x
-- vector, scaling by a number) with its messages.
--
-- einsum works on labels: each operand's axes carry one label each (an
-- ellipsis stands for internal labels, bytes 1..E, which sort before the
-- letters as NumPy puts the broadcast axes first).  Every operand is first
-- reduced on its own: a label repeated within one term becomes one axis
-- (the diagonal: a strided subscript of the contiguous stack, as
-- gm.linalg.diagonal), an axis of size 1 whose label is longer elsewhere
-- is dropped (NumPy broadcasts it).  Then the operands are contracted
-- pairwise left to right: labels needed by neither the output nor a later
-- operand are summed away first, the rest sorted into batch (shared,
-- kept), free and contracted (shared, not kept) labels, and one batched
-- gemm (gm.linalg.matmul on (batch, m, k) x (batch, k, n) views of the
-- permuted operands) does the contraction.  With nothing to contract (an
-- outer or elementwise product), a 1 x 1 result per batch (dot
-- products) or a stack of small products a broadcasting cmul (and a sum)
-- does it instead: a gemm per element or tiny matrix is all overhead.  A term with no labels is carried as a
-- mat of one element; a result with no axes is a Lua number (as
-- gm.linalg's "0-d results").
local argcheck = require "gpumat.argcheck"
local argerror = argcheck.argerror

return function(gm, core, methods)
  local mat_mt = getmetatable(core.mat(0))
  local function is_mat(x) return getmetatable(x) == mat_mt end
  local FN = "einsum"
  local matmul = gm.linalg.matmul
  -- a stack of products of at most this many multiplications each is one
  -- broadcasting cmul and a sum: a gemm call per matrix costs more there
  -- (1000 8x8 products: 2 ms against 5-9 ms for the gemm loop on the host,
  -- bench/einsum_bench.lua; on a device the loop is a launch per matrix)
  local SMALL = 1024

  -- a label as the user wrote it
  local function shown(l) return l:byte() < 32 and "..." or l end

  -- one term: its letters, and where its ellipsis stands (or nil)
  local function parse_term(term, what)
    local labels, ell, i = {}, nil, 1
    while i <= #term do
      local c = term:sub(i, i)
      if c == "." then
        if term:sub(i, i + 2) ~= "..." then argerror(1, FN, "%s '%s': '.' outside an ellipsis '...'", what, term) end
        if ell then argerror(1, FN, "%s '%s' has more than one ellipsis", what, term) end
        ell, i = #labels + 1, i + 3
      elseif c:match("^%a$") then
        labels[#labels + 1], i = c, i + 1
      else
        argerror(1, FN, "%s '%s': '%s' is not a subscript (letters and one '...')", what, term, c)
      end
    end
    return { labels = labels, ell = ell, text = term }
  end

  local function parse(spec, nops)
    if type(spec) ~= "string" then argerror(1, FN, "subscripts string expected, got %s", type(spec)) end
    local s = spec:gsub("%s", "")
    local lhs, rhs = s:match("^(.-)%->(.*)$")
    if not lhs then lhs = s end
    if lhs:find("->", 1, true) or (rhs and rhs:find("->", 1, true)) or (not rhs and s:find("[%->]")) then
      argerror(1, FN, "'%s': one '->' at most, and '-' and '>' only in it", spec)
    end
    local terms = {}
    for t in (lhs .. ","):gmatch("([^,]*),") do terms[#terms + 1] = parse_term(t, "operand") end
    if rhs and rhs:find(",", 1, true) then argerror(1, FN, "'%s': the output is one term", spec) end
    if nops < #terms then argerror(nops + 2, FN, "'%s' names %d operands, got %d", spec, #terms, nops) end
    if nops > #terms then argerror(#terms + 2, FN, "'%s' names %d operands, got %d", spec, #terms, nops) end
    return terms, rhs and parse_term(rhs, "output")
  end

  -- each operand's labels, one per axis (the ellipsis expanded); E
  local function label_axes(terms, ops)
    local E = 0
    for k, t in ipairs(terms) do
      local r = #ops[k]:dims()
      local e = r - #t.labels
      if e < 0 or (e > 0 and not t.ell) then
        argerror(k + 1, FN, "operand has %d dimensions, its subscripts '%s' name %d", r, t.text, #t.labels)
      end
      t.e, E = e, math.max(E, e)
    end
    for _, t in ipairs(terms) do
      local ls = {}
      for i, l in ipairs(t.labels) do
        if t.ell and i == t.ell then
          for j = E - t.e + 1, E do ls[#ls + 1] = string.char(j) end
        end
        ls[#ls + 1] = l
      end
      if t.ell and t.ell > #t.labels then
        for j = E - t.e + 1, E do ls[#ls + 1] = string.char(j) end
      end
      t.axes = ls
    end
    return E
  end

  -- the output labels: explicit, or NumPy's implicit ones (the broadcast
  -- axes, then every letter used once, sorted)
  local function output_of(terms, out, E)
    local count = {}
    for _, t in ipairs(terms) do
      for _, l in ipairs(t.labels) do count[l] = (count[l] or 0) + 1 end
    end
    local res = {}
    for j = 1, E do res[j] = string.char(j) end
    if not out then
      local once = {}
      for l, c in pairs(count) do
        if c == 1 then once[#once + 1] = l end
      end
      table.sort(once)
      for _, l in ipairs(once) do res[#res + 1] = l end
      return res
    end
    if E > 0 and not out.ell then
      argerror(1, FN, "the output '%s' has no '...' for the %d broadcast dimensions", out.text, E)
    end
    local seen, ls = {}, {}
    for i, l in ipairs(out.labels) do
      if seen[l] then argerror(1, FN, "the output '%s' repeats '%s'", out.text, l) end
      if not count[l] then argerror(1, FN, "the output's '%s' is in no operand", l) end
      seen[l] = true
      if out.ell and i == out.ell then
        for j = 1, E do ls[#ls + 1] = string.char(j) end
      end
      ls[#ls + 1] = l
    end
    if out.ell and out.ell > #out.labels then
      for j = 1, E do ls[#ls + 1] = string.char(j) end
    end
    return ls
  end

  local function prod(sizes, ls)
    local n = 1
    for _, l in ipairs(ls) do n = n * sizes[l] end
    return n
  end

  local function dims_of(sizes, ls)
    local d = {}
    for i, l in ipairs(ls) do d[i] = sizes[l] end
    return d
  end

  -- m (labels ls) permuted to the labels of order, as a view
  local function arrange(m, ls, order)
    local pos, p, same = {}, {}, true
    for i, l in ipairs(ls) do pos[l] = i end
    for i, l in ipairs(order) do
      p[i] = pos[l]
      same = same and p[i] == i
    end
    if same or #p < 2 then return m end
    return m:permute(p)
  end

  -- m's elements as a contiguous mat of dims d (d may be {} : one element)
  local function shaped(m, d)
    if #d == 0 then d = { 1 } end
    return m:contiguous():view(d)
  end

  -- one repeated label of op (axes at the positions of ls) to its diagonal
  local function diagonal(op, l, sizes)
    local others, p, reps = {}, {}, {}
    for i, x in ipairs(op.ls) do
      if x == l then reps[#reps + 1] = i else others[#others + 1], p[#p + 1] = x, i end
    end
    for _, i in ipairs(reps) do p[#p + 1] = i end
    local n, r = sizes[l], #reps
    local rest = dims_of(sizes, others)
    local block, step = 1, 0
    for _ = 1, r do block, step = block * n, step * n + 1 end
    local flat = shaped(op.m:permute(p), { prod(sizes, others), block })
    if n > 1 then
      -- (i, i, ..., i) is element i * (1 + n + ... + n^(r-1)) of the block
      flat = flat[{ {}, { 1, 1 + (n - 1) * step, step } }]
      op.fresh = true
    end
    rest[#rest + 1] = n
    others[#others + 1] = l
    op.m, op.ls = shaped(flat, rest), others
  end

  -- the axes of op whose labels drop says, summed away
  local function sum_away(op, drop, sizes)
    local keep, gone = {}, {}
    for _, l in ipairs(op.ls) do
      if drop[l] then gone[#gone + 1] = l else keep[#keep + 1] = l end
    end
    if #gone == 0 then return end
    local order = { table.unpack(keep) }
    for _, l in ipairs(gone) do order[#order + 1] = l end
    local flat = shaped(arrange(op.m, op.ls, order), { prod(sizes, keep), prod(sizes, gone) })
    op.m, op.ls, op.fresh = shaped(flat:sum(2), dims_of(sizes, keep)), keep, true
  end

  local function repeated(ls)
    local seen = {}
    for _, l in ipairs(ls) do
      if seen[l] then return l end
      seen[l] = true
    end
  end

  -- every operand's sizes checked and merged (size 1 broadcasts); the
  -- diagonals taken and the broadcast axes dropped
  local function prepare(terms, ops)
    local sizes, from, list = {}, {}, {}
    for k, t in ipairs(terms) do
      local d, local_size = ops[k]:dims(), {}
      for i, l in ipairs(t.axes) do
        if local_size[l] and local_size[l] ~= d[i] then
          argerror(k + 1, FN, "'%s' is repeated in '%s' with sizes %d and %d", shown(l), t.text, local_size[l], d[i])
        end
        local_size[l] = d[i]
        if sizes[l] and sizes[l] ~= d[i] and sizes[l] ~= 1 and d[i] ~= 1 then
          argerror(k + 1, FN, "'%s' has size %d here and %d in operand %d", shown(l), d[i], sizes[l], from[l])
        end
        if not sizes[l] or sizes[l] == 1 then sizes[l], from[l] = d[i], k end
      end
    end
    for k, t in ipairs(terms) do
      local op = { m = #t.axes == 0 and ops[k]:contiguous():view(1) or ops[k], ls = t.axes }
      local d = op.m:dims()
      for i = #op.ls, 1, -1 do
        if #t.axes > 0 and d[i] == 1 and sizes[op.ls[i]] ~= 1 then
          op.m = op.m:select(i, 1)
          table.remove(op.ls, i)
        end
      end
      local l = repeated(op.ls)
      while l do
        diagonal(op, l, sizes)
        l = repeated(op.ls)
      end
      list[k] = op
    end
    return sizes, list
  end

  local function contains(ls)
    local s = {}
    for _, l in ipairs(ls) do s[l] = true end
    return s
  end

  -- a and b contracted over their shared labels that keep does not name
  local function contract(a, b, keep, sizes)
    local inA, inB = contains(a.ls), contains(b.ls)
    local dropA, dropB = {}, {}
    for _, l in ipairs(a.ls) do dropA[l] = not inB[l] and not keep[l] end
    for _, l in ipairs(b.ls) do dropB[l] = not inA[l] and not keep[l] end
    sum_away(a, dropA, sizes)
    sum_away(b, dropB, sizes)
    inA, inB = contains(a.ls), contains(b.ls)
    local batch, contr, fa, fb = {}, {}, {}, {}
    for _, l in ipairs(a.ls) do
      local list = not inB[l] and fa or keep[l] and batch or contr
      list[#list + 1] = l
    end
    for _, l in ipairs(b.ls) do
      if not inA[l] then fb[#fb + 1] = l end
    end
    local nb, m, k, n = prod(sizes, batch), prod(sizes, fa), prod(sizes, contr), prod(sizes, fb)
    local ls = { table.unpack(batch) }
    for _, l in ipairs(fa) do ls[#ls + 1] = l end
    for _, l in ipairs(fb) do ls[#ls + 1] = l end
    local ao = { table.unpack(batch) }
    for _, l in ipairs(fa) do ao[#ao + 1] = l end
    for _, l in ipairs(contr) do ao[#ao + 1] = l end
    local bo = { table.unpack(batch) }
    for _, l in ipairs(contr) do bo[#bo + 1] = l end
    for _, l in ipairs(fb) do bo[#bo + 1] = l end
    local am, bm = arrange(a.m, a.ls, ao), arrange(b.m, b.ls, bo)
    local r
    if nb * m * n == 0 or k == 0 then
      r = gm.zeros({ nb * m * n }, { ctype = a.m:ctype(), cuda_enabled = a.m:cuda_enabled() })
    elseif k == 1 then
      r = gm.cmul(shaped(am, { nb, m, 1 }), shaped(bm, { nb, 1, n }))
    elseif m == 1 and n == 1 then
      r = gm.cmul(shaped(am, { nb, k }), shaped(bm, { nb, k })):sum(2)
    elseif nb > 1 and m * k * n <= SMALL then
      r = gm.cmul(shaped(am, { nb, m, k, 1 }), shaped(bm, { nb, 1, k, n })):sum(3)
    elseif nb == 1 then
      r = matmul(shaped(am, { m, k }), shaped(bm, { k, n }))
    else
      r = matmul(shaped(am, { nb, m, k }), shaped(bm, { nb, k, n }))
    end
    return { m = shaped(r, dims_of(sizes, ls)), ls = ls, fresh = true }
  end

  function gm.einsum(spec, ...)
    local nops = select("#", ...)
    local ops = { ... }
    local terms, out = parse(spec, nops)
    for k = 1, nops do
      if not is_mat(ops[k]) then argerror(k + 1, FN, "gpumat.mat expected, got %s", type(ops[k])) end
    end
    -- every element type, promoted as NumPy's einsum does (gm.result_type
    -- of all operands); the sums below may widen (small integers sum to
    -- int64), so the result is converted back to that type at the end:
    -- integer products wrap and bool ones are or-of-ands, as NumPy's
    local rt = nops > 0 and gm.result_type(table.unpack(ops, 1, nops))
    for k = 1, nops do
      if ops[k]:dtype() ~= rt then ops[k] = ops[k]:as(rt) end
    end
    local E = label_axes(terms, ops)
    local res = output_of(terms, out, E)
    local sizes, list = prepare(terms, ops)
    local keep_out = contains(res)
    local acc = list[1]
    for k = 2, #list do
      local keep = setmetatable({}, { __index = keep_out })
      for j = k + 1, #list do
        for _, l in ipairs(list[j].ls) do keep[l] = true end
      end
      acc = contract(acc, list[k], keep, sizes)
    end
    local drop = {}
    for _, l in ipairs(acc.ls) do drop[l] = not keep_out[l] end
    sum_away(acc, drop, sizes)
    local p = arrange(acc.m, acc.ls, res)
    local c = p:contiguous()
    -- a result that went through no sum, product, diagonal or copy shares
    -- the operand's elements
    if not acc.fresh and c == p then c = c:copy() end
    if c:dtype() ~= rt then c = c:as(rt) end
    if #res == 0 then return c:view(1)[1] end
    return c:view(dims_of(sizes, res))
  end

  gm.matmul = matmul
  methods.matmul = matmul

  -- `*` on stacks, and of integer, bool, half, complex or mixed-type
  -- mats, is gm.matmul (which promotes): the C operator calls it (its
  -- other cases, 2-d float mats of one type, matrix x vector, numbers and
  -- gm.complex values, stay in C: no Lua call on the hot path)
  core._set_matmul(matmul)
end
