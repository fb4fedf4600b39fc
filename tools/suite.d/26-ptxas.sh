#!/usr/bin/env bash
# Register spills and stack frames of the CUDA kernels, no GPU needed:
# ptxas's report (`ptxas -v`) of every kernels/*.cu and tests/*.cu
# (compile checks of kernel headers, tests/int_ops_cuda.cu); a spill store
# in any function, or a stack frame in a kernel not on the list below,
# fails the step.  The kernels' reports come from the build itself where
# tools/test.sh built it through tools/ptxas-log (BUILD's
# gpumat_kernels.dir/kernels/NAME.cu.o.ptxas, every architecture the build
# compiles: sm_80 and sm_90); a kernel without a current report, and
# tests/*.cu, are compiled here once for sm_90.  A stack frame in a kernel usually means an array
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
reports=${BUILD:+$BUILD/CMakeFiles/gpumat_kernels.dir/kernels}
from_build=0
for cu in kernels/*.cu tests/*.cu; do
  log="$out/$(basename "$cu" .cu).log"
  report="$reports/$(basename "$cu").o.ptxas"
  # the build's report, when the object was compiled with it (not older)
  if [ -n "$reports" ] && [[ "$cu" == kernels/* ]] && [ -s "$report" ] && [ ! "$report" -ot "${report%.ptxas}" ] &&
     [ ! "$report" -ot "$cu" ]; then
    cp "$report" "$log"
    from_build=$((from_build + 1))
  # -cubin: device code only (ptxas is what is checked), no host compile
  elif ! "$NVCC" -std=c++17 -O2 -DNDEBUG -arch=sm_90 -Xptxas -v -cubin -o "$out/obj.cubin" -Ikernels -Iinclude -Isrc \
    "$cu" >"$log" 2>&1; then
    echo "FAILED to compile $cu"; tail -20 "$log"; failed=$((failed + 1)); continue
  fi
  # "Function properties for NAME" then "N bytes stack frame, N bytes spill
  # stores, N bytes spill loads": one line per function (and architecture);
  # the names demangled in one c++filt call, and the kernel's bare name
  # (no namespace, template or parameters) matched against ALLOWED
  awk '/Function properties for/ { name = $NF }
       /bytes stack frame/ { print name, $1, $5 }' "$log" >"$log.fn"
  cut -d' ' -f1 "$log.fn" | c++filt >"$log.dm"
  sed -E 's/\(anonymous namespace\):://g; s/^void //; s/[<(].*$//; s/^.*:://' "$log.dm" >"$log.base"
  while read -r name stack spill && read -r full <&3 && read -r base <&4; do
    if [ "$spill" -gt 0 ]; then
      echo "FAIL $cu: $base spills $spill bytes ($full)"; failed=$((failed + 1))
    elif [ "$stack" -gt 0 ] && [[ "$ALLOWED" != *" $base "* ]]; then
      echo "FAIL $cu: $base has a $stack-byte stack frame ($full)"; failed=$((failed + 1))
    else
      passed=$((passed + 1))
    fi
  done <"$log.fn" 3<"$log.dm" 4<"$log.base"
done
echo "ptxas reports: $from_build kernels/*.cu from the build ($BUILD), the rest compiled here"
echo "$passed passed, $failed failed"
