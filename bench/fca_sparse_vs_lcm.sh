#!/usr/bin/env bash
# bench/fca_sparse_vs_lcm.sh — parac's sparse and dense fca searches beside LCM 5.3 (closed itemsets)
# and, when given, fcbo, on the same transaction files, same machine, same run: whole-command wall
# time, CPU time (user + system: what matters on a shared machine) and peak memory (/usr/bin/time).
#
#   bench/fca_sparse_vs_lcm.sh [FILE.dat ...]
#
# Files: default ../shared/data/fca/T10I4D100K.dat (PARAC_SHARED_DATA) and a retail-like context made
# by bench/fca_sparse_retail.py (RETAIL=0 leaves it out; RETAIL_ARGS passes options to it).
# Environment:
#   PARAC=build/parac        the CLI to time
#   THREADS="1 N"            thread counts for parac (default 1 and all cores)
#   STRATEGIES="sparse dense" parac --cpu-strategy values
#   TIMEOUT=300              seconds per command; a run over it is reported as "timeout"
#   LCM_SRC=dir              a directory holding LCM's lcm.c (LCM 5.3, Uno et al.): built here with
#                            `gcc -O3 -o lcm lcm.c -lm` into a temporary folder; LCM is skipped unset.
#                            Nothing of LCM is fetched or committed.
#   FCBO=path                an fcbo binary (Outrata & Vychodil), run as `fcbo FILE` (prints concepts:
#                            counted with wc -l); skipped unset.
#   OUT=file.jsonl           where the JSON lines go as well (default: only stdout)
#   WRITE=1                  also time the commands that write every concept to a file (parac -o,
#                            `lcm C FILE 1 OUTFILE`): tools "parac-S-write", "lcm-closed-write"; their
#                            counts are the output's lines (WRITE=0 leaves them out)
# Counting: parac --count counts every concept (min support 0), the bottom concept (every attribute,
# an empty extent) included. `lcm C FILE 1` (closed frequent itemsets, support >= 1, no output file:
# it counts only, like --count) lists exactly the intents with a non-empty extent, so on a file where
# no object has every attribute parac = LCM + 1; the table's "agrees" column checks that.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
PARAC=${PARAC:-$root/build/parac}
THREADS=${THREADS:-"1 $(nproc)"}
STRATEGIES=${STRATEGIES:-"sparse dense"}
TIMEOUT=${TIMEOUT:-300}
RETAIL=${RETAIL:-1}
shared=${PARAC_SHARED_DATA:-$root/../shared/data}
work=$(mktemp -d /tmp/parac-fca-sparse-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
[[ -x $PARAC ]] || { echo "fca_sparse_vs_lcm.sh: no parac at $PARAC (set PARAC=)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "fca_sparse_vs_lcm.sh: /usr/bin/time (GNU time) is needed for peak memory" >&2; exit 1; }

files=("$@")
if (( ${#files[@]} == 0 )); then
  [[ -f $shared/fca/T10I4D100K.dat ]] && files+=("$shared/fca/T10I4D100K.dat") ||
    echo "# T10I4D100K.dat not found under $shared/fca (set PARAC_SHARED_DATA=)" >&2
  if [[ $RETAIL == 1 ]]; then
    # shellcheck disable=SC2086
    python3 "$here/fca_sparse_retail.py" -o "$work/retail_like.dat" ${RETAIL_ARGS:-} && files+=("$work/retail_like.dat")
  fi
fi

lcm=
if [[ -n ${LCM_SRC:-} ]]; then
  if gcc -O3 -o "$work/lcm" "$LCM_SRC/lcm.c" -lm 2>"$work/lcm-build.log"; then lcm=$work/lcm
  else echo "# LCM did not build from $LCM_SRC/lcm.c: $(head -c 300 "$work/lcm-build.log")" >&2; fi
else
  echo "# LCM skipped: set LCM_SRC to a directory holding lcm.c (LCM 5.3)" >&2
fi
[[ -n ${FCBO:-} ]] || echo "# fcbo skipped: set FCBO to an fcbo binary" >&2

rows=()
# run NAME FILE THREADS COMMAND...: times the command, prints a JSON line, keeps a table row
run() {
  local tool=$1 file=$2 threads=$3; shift 3
  local status=ok count wall user sys peak
  timeout "$TIMEOUT" /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr"
  local code=$?
  if (( code == 124 || code == 137 )); then status=timeout; echo "$TIMEOUT 0 0 0" >> "$work/time"; elif (( code != 0 )); then status="exit $code"; fi
  read -r wall user sys peak < <(tail -n 1 "$work/time")
  case $tool in
    lcm*) count=$(head -n 1 "$work/stdout") ;;
    fcbo*) count=$(wc -l < "$work/stdout") ;;
    *-write) count=$(wc -l < "$work/written.txt") ;;
    *) count=$(tail -n 1 "$work/stdout") ;;
  esac
  rm -f "$work/written.txt"
  [[ $status == ok && $count =~ ^[0-9]+$ ]] || count=null
  local line
  line=$(printf '{"bench":"fca_sparse_vs_lcm","file":"%s","tool":"%s","threads":%s,"status":"%s","concepts":%s,"wall_s":%s,"cpu_s":%s,"peak_mb":%s}' \
    "$(basename "$file")" "$tool" "$threads" "$status" "$count" "${wall:-null}" \
    "$(awk -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN{printf "%.2f", u + s}')" "$(( ${peak:-0} / 1024 ))")
  echo "$line"
  [[ -n ${OUT:-} ]] && echo "$line" >> "$OUT"
  rows+=("$(basename "$file")|$tool|$threads|$status|$count|$wall|$(awk -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN{printf "%.2f", u + s}')|$(( ${peak:-0} / 1024 ))")
}

for file in "${files[@]}"; do
  for strategy in $STRATEGIES; do
    for threads in $THREADS; do
      run "parac-$strategy" "$file" "$threads" "$PARAC" fca "$file" --count --device cpu --threads "$threads" --cpu-strategy "$strategy"
      [[ ${WRITE:-1} == 1 ]] && run "parac-$strategy-write" "$file" "$threads" "$PARAC" fca "$file" -q -o "$work/written.txt" \
        --device cpu --threads "$threads" --cpu-strategy "$strategy"
    done
  done
  [[ -n $lcm ]] && run "lcm-closed" "$file" 1 "$lcm" C "$file" 1
  [[ -n $lcm && ${WRITE:-1} == 1 ]] && run "lcm-closed-write" "$file" 1 "$lcm" C "$file" 1 "$work/written.txt"
  [[ -n ${FCBO:-} ]] && run "fcbo" "$file" 1 "$FCBO" "$file"
done

echo
printf '%-20s %-20s %7s %-8s %12s %9s %9s %8s %s\n' file tool threads status concepts wall_s cpu_s peak_MB agrees
for row in "${rows[@]}"; do
  IFS='|' read -r file tool threads status count wall cpu peak <<< "$row"
  agrees=
  if [[ $tool == lcm* && $count != null ]]; then
    for other in "${rows[@]}"; do
      IFS='|' read -r f2 t2 _ s2 c2 _ <<< "$other"
      [[ $f2 == "$file" && $t2 == parac-* && $c2 != null ]] || continue
      [[ $tool == *-write ]] && want_write=1 || want_write=0
      [[ $t2 == *-write ]] && is_write=1 || is_write=0
      (( want_write == is_write )) || continue
      if (( c2 == count + 1 || c2 == count )); then agrees="parac = lcm + $(( c2 - count ))"; else agrees="MISMATCH ($c2)"; fi
      break
    done
  fi
  printf '%-20s %-20s %7s %-8s %12s %9s %9s %8s %s\n' "$file" "$tool" "$threads" "$status" "$count" "$wall" "$cpu" "$peak" "$agrees"
done
