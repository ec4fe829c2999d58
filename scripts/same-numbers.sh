#!/usr/bin/env bash
# Runs the golden cases (every `experiment` set on the roofline, the bench cases on both backends, a
# difftest) with two steprdu binaries and compares every number they print and every stat they write,
# wall-clock fields aside. For speed work that must not change a cycle (issue 22).
#   scripts/same-numbers.sh OLD_BINARY NEW_BINARY [SHARED_DIR]
# Exits 0 when everything is identical; otherwise lists the files that differ.
set -euo pipefail
old=${1:?usage: same-numbers.sh OLD_BINARY NEW_BINARY [SHARED_DIR]}
new=${2:?usage: same-numbers.sh OLD_BINARY NEW_BINARY [SHARED_DIR]}
shared=${3:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mix="trace=$shared/traces/expert_routing/mixtral_b64/008_010.csv"
kv="trace=$shared/traces/kv_lengths/b64/conv_stdev0996_4007_4070.csv"
[ -d "$shared/traces" ] || { mix="model=mixtral"; kv="batch=64"; }
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
run_all() { # binary, output folder
    local bin=$1 out=$2
    mkdir -p "$out"
    for e in $("$bin" experiment list | awk '$1 ~ /^fig/ {print $1}'); do
        "$bin" experiment "$e" --quiet --shared "$shared" --out "$out/exp-$e" >/dev/null
    done
    local i=0
    while IFS='|' read -r backend hw args; do
        i=$((i + 1))
        # shellcheck disable=SC2086
        "$bin" run $args --backend "$backend" --hw "$hw" --quiet --out "$out/run-$i" >/dev/null
    done <<CASES
roofline|step_eval|moe model=mixtral $mix tile_n=16
roofline|sn40l|moe model=mixtral $mix tile_n=16
cycle|step_eval|moe model=mixtral $mix tile_n=16
cycle|step_eval|moe model=mixtral $mix tile_n=dynamic
cycle|sn40l|moe model=mixtral $mix tile_n=16
cycle|sn40l|moe model=mixtral $mix tile_n=dynamic
cycle|step_eval|attention strategy=dynamic $kv
cycle|step_validation|swiglu
CASES
    "$bin" difftest --count 100 --seed 7 --quiet --json --out "$out/difftest" \
        --set chip.dies=1 --set chip.die_tile_rows=1 --set chip.die_tile_cols=1 >"$out/difftest.json"
}
run_all "$old" "$work/old" &
run_all "$new" "$work/new"
wait
# Wall-clock fields, paths and the binary's revision differ between any two runs; everything else must not.
strip() {
    python3 - "$1" <<'PY'
import json, re, sys
volatile = re.compile(r"wall|seconds|per_second|revision|version|path|out_dir|started|date|host")
def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items() if not volatile.search(k)}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x
p = sys.argv[1]
if p.endswith(".json"):
    print(json.dumps(clean(json.load(open(p))), sort_keys=True, indent=1))
else:
    for line in open(p):
        if not volatile.search(line):
            print(line.rstrip("\n"))
PY
}
status=0
files=0
while IFS= read -r f; do
    files=$((files + 1))
    case "$f" in *.csv | *.json) ;; *) continue ;; esac
    case "$f" in */meta.json | */trace.json) continue ;; esac
    if ! diff -q <(strip "$work/old/$f") <(strip "$work/new/$f") >/dev/null; then
        echo "differs: $f"
        diff <(strip "$work/old/$f") <(strip "$work/new/$f") | head -n 6 || true
        status=1
    fi
done < <(cd "$work/old" && find . -type f | sort)
echo "same-numbers: $files files compared, $([ $status = 0 ] && echo identical || echo 'DIFFERENCES')"
exit $status
