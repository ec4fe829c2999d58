#!/usr/bin/env bash
# make paper: every figure spec of configs/experiments/ swept on the roofline backend, and on the cycle-level
# backend where it runs in minutes (with pnr.on_overflow=shrink, since the un-time-multiplexed Qwen graphs ask
# for more PCUs than step_eval has), the paper's claims, then the figures and results/paper.md, and the README's
# gallery in docs/figures.
# Usage: scripts/paper.sh <steprdu binary> <results dir> [jobs]. Finished points are reused on a re-run.
set -euo pipefail
bin=$1
out=$2
jobs=${3:-2}
shared=${STEPRDU_SHARED:-../shared}
if [ ! -d "$shared/traces" ]; then
    echo "make paper: the figures need the real traces in $shared (set STEPRDU_SHARED)" >&2
    exit 2
fi
# Fig 10's batch-1024 MoE takes too long cycle by cycle for the one-hour budget on two cores: roofline only.
cycle_figures=" fig8 fig9 fig12_13 fig14 fig15 fig17 fig21 "
mkdir -p "$out/sweeps"
for spec in configs/experiments/*.yaml; do
    name=$(basename "$spec" .yaml)
    echo "make paper: $name (roofline)" >&2
    "$bin" sweep "$name" -j "$jobs" --shared "$shared" --out "$out/sweeps/$name-roofline" > /dev/null
    if [[ "$cycle_figures" == *" $name "* ]]; then
        echo "make paper: $name (cycle-level)" >&2
        "$bin" sweep "$name" --backend cycle --set pnr.on_overflow=shrink -j "$jobs" --shared "$shared" \
            --out "$out/sweeps/$name-cycle" > /dev/null
    fi
done
"$bin" experiment claims --json --shared "$shared" --out "$out/claims" > "$out/claims.json"
# The system level (docs/system.md): Llama2-7B programs of kernels on one sn40l socket, on both backends.
for backend in roofline cycle; do
    echo "make paper: sn40l_fig10 ($backend)" >&2
    "$bin" experiment sn40l_fig10 --backend "$backend" --quiet --out "$out/system/sn40l_fig10-$backend" > /dev/null
done
"$bin" experiment sn40l_fig11 --quiet --out "$out/system/sn40l_fig11" > /dev/null
# The README's figures (docs/figures) with the CSVs of their points, which tests/python/test_gallery.py checks.
/usr/bin/python3 scripts/paper.py "$out" --gallery docs/figures --shared "$shared"
