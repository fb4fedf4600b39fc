-- lua/gpumat/kernel_range.lua: which run-time kernel bodies the CPU model
-- may run as a loop over a range of indices.  A false positive would run a
-- kernel with the wrong semantics, so most cases here are the shapes it
-- must refuse; spec/kernel_spec.lua checks the values of both forms.
local range = require "gpumat.kernel_range"

local P = { { "alpha", "scalar" }, { "x", "mat", "input" }, { "y", "mat", "io" }, { "n", "int" }, { "m", "int" } }

local function rec(body) return range.recognize(body, P) end

describe("kernel_range.recognize", function()
  it("recognizes the grid-stride loop in its usual spellings", function()
    for _, body in ipairs {
      [[for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
             i += (int64_t)blockDim.x * gridDim.x) y[i] += alpha * x[i];]],
      "for (int i = blockIdx.x*blockDim.x+threadIdx.x; i < n; i += blockDim.x*gridDim.x) { y[i] = x[i]; }",
      "for (long long i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i = i + gridDim.x * blockDim.x)\n  y[i] = 2;",
      "  // comment\n for (int64_t k = (blockIdx.x * blockDim.x) + threadIdx.x; k < n * m; k += (blockDim.x * gridDim.x)) {\n"
        .. "  T v = x[k]; /* block */ if (v > 0) y[k] = v; else y[k] = -v;\n }\n",
    } do
      local r = rec(body)
      assert.is_table(r, body)
      assert.are.equal("stride", r.form)
    end
    local r = rec("for (int64_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n * m; k += blockDim.x * gridDim.x) y[k] = 1;")
    assert.are.same({ "stride", "int64_t", "k", "n * m", "y[k] = 1;" }, { r.form, r.type, r.var, r.bound, r.stmt })
  end)

  it("recognizes one element per thread", function()
    local r = rec("int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;\nif (i < n) y[i] += alpha * x[i];")
    assert.are.same({ "element", "int64_t", "i", "n", "y[i] += alpha * x[i];" }, { r.form, r.type, r.var, r.bound, r.stmt })
    assert.are.equal(2, r.line)
    r = rec("const int i = threadIdx.x + blockIdx.x * blockDim.x; if (i < n) { y[i] = 0; }")
    assert.are.equal("element", r.form)
  end)

  it("refuses bodies whose threads differ or leave early", function()
    local gs = "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) "
    for _, stmt in ipairs {
      "y[i] = threadIdx.x;", "y[i] = blockIdx.x;", "y[i] = blockDim.x;", "y[i] = gridDim.x;", "y[i] = warpSize;",
      "{ __syncthreads(); y[i] = 1; }", "{ __shared__ float s; s = 1; y[i] = s; }",
      "{ if (x[i] < 0) break; y[i] = 1; }", "{ if (x[i] < 0) return; y[i] = 1; }", "{ goto out; out: y[i] = 1; }",
      "{ static int c; y[i] = c++; }",
      "{ i += 1; y[i] = 1; }", "{ y[i] = 1; i++; }", "{ y[i] = 1; ++i; }", "{ y[i] = 1; i = n; }",
      "{ y[i] = 1; i <<= 1; }", "{ int64_t *p = &i; y[*p] = 1; }", "{ y[i] = 1; n--; }", "{ n = 0; y[i] = 1; }",
      "y[i] = 1; y[0] = 2;", "if (x[i] > 0) y[i] = 1; else y[i] = 2;", "do y[i] = 1; while (0);", "",
    } do
      assert.is_nil(rec(gs .. stmt), stmt)
    end
  end)

  it("refuses other loop headers, types and bounds", function()
    for _, body in ipairs {
      -- the index must be the global thread index
      "for (int64_t i = threadIdx.x; i < n; i += blockDim.x) y[i] = 1;",
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.y; i < n; i += blockDim.x * gridDim.x) y[i] = 1;",
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x + 1; i < n; i += blockDim.x * gridDim.x) y[i] = 1;",
      "for (int64_t i = blockIdx.y * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = 1;",
      -- the stride must be the grid size
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x) y[i] = 1;",
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 2 * blockDim.x * gridDim.x) y[i] = 1;",
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i++) y[i] = 1;",
      -- the condition must be i < bound
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += blockDim.x * gridDim.x) y[i] = 1;",
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; n > i; i += blockDim.x * gridDim.x) y[i] = 1;",
      -- unsigned types (mixed-sign comparisons) and floating indices
      "for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = 1;",
      "for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = 1;",
      "for (double i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[0] = 1;",
      -- bounds: int params and integer literals only, no calls or scalars
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < alpha; i += blockDim.x * gridDim.x) y[i] = 1;",
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < f(n); i += blockDim.x * gridDim.x) y[i] = 1;",
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 2.5; i += blockDim.x * gridDim.x) y[i] = 1;",
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < k; i += blockDim.x * gridDim.x) y[i] = 1;",
      -- something before or after the loop
      "int64_t c = 0; for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = 1;",
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = 1; y[0] = 0;",
      -- per element: nothing else, no else branch
      "int64_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1; else y[0] = 1;",
      "int64_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1; y[0] = 2;",
      "int64_t i = blockIdx.x * blockDim.x + threadIdx.x; y[0] = 1; if (i < n) y[i] = 1;",
      "int64_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; y[i] = 1;",
      -- literals and preprocessor lines are not lexed
      [[for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) printf("%d", i);]],
      "#define Z 0\nfor (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = Z;",
      -- names of the generated range form
      "for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) { int gm_lo_ = 0; y[i] = gm_lo_; }",
    } do
      assert.is_nil(rec(body), body)
    end
  end)
end)
