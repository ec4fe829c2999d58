#!/usr/bin/env bash
# Runs every libFuzzer target of a `make fuzz` build for the given seconds, starting from the seed corpora in
# tests/fuzz/corpus (copied, so the repository's corpora stay as committed). Prints executions per second;
# exits non-zero on the first crash, leak or timeout, leaving the reproducer in <build>/fuzz-artifacts.
set -euo pipefail
build=${1:?usage: fuzz.sh <build dir> <seconds per target>}
seconds=${2:?usage: fuzz.sh <build dir> <seconds per target>}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$build/fuzz-artifacts"
for target in hw_config traces memtrace graph program program_file; do
    work="$build/fuzz-corpus/$target"
    mkdir -p "$work"
    cp -n "$root/tests/fuzz/corpus/$target"/* "$work"/
    log="$build/fuzz-$target.log"
    dict=()
    [ -f "$root/tests/fuzz/$target.dict" ] && dict=(-dict="$root/tests/fuzz/$target.dict")
    # fuzz_program places, routes and simulates some inputs on the chip: a valid 70-operator program takes
    # 5 s under ASan alone, more on a loaded machine.
    timeout=10
    [ "$target" = program ] && timeout=60
    if ! "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 \
        -max_len=8192 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$target-" "${dict[@]}" \
        "$work" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "fuzz: $target failed; reproducer in $build/fuzz-artifacts (log: $log)" >&2
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz: $target: $runs inputs in ${seconds} s ($((runs / seconds)) per second), no crash"
done
