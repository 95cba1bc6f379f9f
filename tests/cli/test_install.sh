#!/usr/bin/env bash
# `make install` lays out a usable library: headers, libparac, the CLI and parac.pc.
# Installs the current build into a scratch prefix and builds a tiny program with pkg-config.
set -euo pipefail
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$PARAC_BUILD" --prefix "$prefix" > "$prefix/install.log"
libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -1); libdir=${libdir%/pkgconfig}
for f in "$prefix/bin/parac" "$prefix/include/parac/status.h" "$prefix/include/parac/version.h" \
         "$prefix/include/parac/fca.h" "$libdir/pkgconfig/parac.pc"; do
  [[ -e "$f" ]] || { echo "FAIL: $f was not installed"; exit 1; }
done
cat > "$prefix/use_parac.c" <<'C'
#include <stdio.h>
#include <parac/devices.h>
#include <parac/version.h>
int main(void)
{
    char why[128] = "";
    int gpus = parac_cuda_device_count(why, sizeof why);
    printf("parac %s, %d GPU(s), status name: %s\n", PARAC_VERSION_STRING, gpus, parac_status_name(PARAC_ERR_PARSE));
    return 0;
}
C
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# A sanitizer build's libparac needs the sanitizer runtime in the program too.
sanitize=()
grep -q "^PARAC_SANITIZE:BOOL=ON" "$PARAC_BUILD/CMakeCache.txt" && sanitize=(-fsanitize=address,undefined)
cc "${sanitize[@]}" "$prefix/use_parac.c" -o "$prefix/use_parac" $(pkg-config --cflags --libs parac) -Wl,-rpath,"$libdir"
out=$("$prefix/use_parac")
echo "$out"
[[ "$out" == *"status name: parse error"* ]] || { echo "FAIL: unexpected output"; exit 1; }
"$prefix/bin/parac" --version | grep -q "^parac " || { echo "FAIL: installed CLI"; exit 1; }
echo "install: 1 passed, 0 failed"
