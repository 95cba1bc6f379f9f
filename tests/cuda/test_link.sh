#!/bin/bash
# tests/cuda/test_link.sh — libparac loads nothing a command does not use (issue 16): it must not
# depend on cuBLAS or cuSPARSE (gemm's cuBLAS reference is dlopen'ed at first use, cuSPARSE is the
# gemm bench's alone). In a CPU build there is no CUDA library at all; both builds are checked.
set -u
BUILD=${PARAC_BUILD:-.}
library=$(ls "$BUILD"/libparac.so* 2>/dev/null | head -1)
if [ -z "$library" ]; then
    echo "cuda.link: no shared libparac in $BUILD (static build): skipped"
    exit 77
fi
command -v readelf >/dev/null || { echo "cuda.link: readelf missing: skipped"; exit 77; }
needed=$(readelf -d "$library" | grep NEEDED)
if echo "$needed" | grep -qiE "cublas|cusparse|cufft|curand|cusolver"; then
    echo "FAIL: $library depends on a CUDA math library:"; echo "$needed"; exit 1
fi
# The CLI binary likewise (it links libparac only).
if readelf -d "$BUILD/parac" 2>/dev/null | grep NEEDED | grep -qiE "cublas|cusparse"; then
    echo "FAIL: the parac CLI depends on cuBLAS/cuSPARSE"; exit 1
fi
echo "cuda.link: libparac needs: $(echo "$needed" | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')"
