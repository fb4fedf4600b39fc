#!/usr/bin/env bash
# Register spills and stack frames of the CUDA kernels, no GPU needed:
# every kernels/*.cu and tests/*.cu (compile checks of kernel headers,
# tests/int_ops_cuda.cu) compiled once for sm_90 with `ptxas -v`; a spill
# store in any function, or a stack frame in a kernel not on the list
# below, fails the step.  A stack frame in a kernel usually means an array
# indexed at run time (accumulators in local memory: a load and a store
# per element) or a pointer taken to a local.  Without nvcc the step is
# skipped (said so in its summary line).  NVCC=path picks the compiler.
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
  echo "no nvcc (NVCC=$NVCC): ptxas check skipped"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
# Kernels allowed a stack frame (never spills), each with its reason:
#  gm_gaussian_kernel: the slow paths of sin, cos and log in CUDA's math
#    library (Payne-Hanek argument reduction keeps a small array), only
#    taken for huge arguments.
#  unary_kernel: sin, cos, tan of the elementwise ops, the same
#    math-library slow path.
#  compact_coords_kernel: an element's coordinates, one per axis, in a
#    small local array indexed by axis.
ALLOWED=" gm_gaussian_kernel unary_kernel compact_coords_kernel "
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
for cu in kernels/*.cu tests/*.cu; do
  log="$out/$(basename "$cu" .cu).log"
  # -cubin: device code only (ptxas is what is checked), no host compile
  if ! "$NVCC" -std=c++17 -O2 -DNDEBUG -arch=sm_90 -Xptxas -v -cubin -o "$out/obj.cubin" -Ikernels -Iinclude -Isrc \
    "$cu" >"$log" 2>&1; then
    echo "FAILED to compile $cu"; tail -20 "$log"; failed=$((failed + 1)); continue
  fi
  # "Function properties for NAME" then "N bytes stack frame, N bytes spill
  # stores, N bytes spill loads": one line per function, NAME demangled
  while read -r name stack spill; do
    base=$(echo "$name" | c++filt | sed -E 's/\(anonymous namespace\):://g; s/^void //; s/[<(].*$//; s/^.*:://')
    if [ "$spill" -gt 0 ]; then
      echo "FAIL $cu: $base spills $spill bytes ($(echo "$name" | c++filt))"; failed=$((failed + 1))
    elif [ "$stack" -gt 0 ] && [[ "$ALLOWED" != *" $base "* ]]; then
      echo "FAIL $cu: $base has a $stack-byte stack frame ($(echo "$name" | c++filt))"; failed=$((failed + 1))
    else
      passed=$((passed + 1))
    fi
  done < <(awk '/Function properties for/ { name = $NF }
                /bytes stack frame/ { print name, $1, $5 }' "$log")
done
echo "$passed passed, $failed failed"
