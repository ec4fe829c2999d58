"""Fig 9 from Python: the MoE of Listing 1 (moe_listing1.py) built through the graph builder for static tiles of
8-64 rows and dynamic tiling, on both models' batch-64 routing traces, into one pandas DataFrame; it prints the
table and, with --compare, checks it against `steprdu experiment fig9` (on the roofline the same cycles and
off-chip bytes, on the chip the same off-chip bytes).

    PYTHONPATH=build/python python3 examples/python/fig9_sweep.py [--shared ../shared] [--backend roofline]
        [--compare build/steprdu]
"""

import argparse
import os
import subprocess
import sys
import tempfile

import pandas as pd

import steprdu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from moe_listing1 import MODELS, build_moe, read_routing  # noqa: E402

TRACES = {"mixtral": "traces/expert_routing/mixtral_b64/008_010.csv",
          "qwen": "traces/expert_routing/qwen_b64/032_012.csv"}
TILES = ["8", "16", "32", "64", "dynamic"]


def fig9(shared, backend="roofline", hw="step_eval", tiles=TILES, models=("mixtral", "qwen")):
    rows = []
    for model in models:
        E, K, D, F = MODELS[model]
        routing = read_routing(os.path.join(shared, TRACES[model]))
        for tile_n in tiles:
            g = build_moe(routing, E, D, F, tile_n=tile_n)
            # On the chip, Qwen's 128 static experts need more PCUs than step_eval has: shrink them, as
            # `make paper`'s cycle-level Fig 9 does.
            r = steprdu.simulate(g, backend=backend, hw=hw, timing_elem_bytes=2,
                                 set={"pnr.on_overflow": "shrink"} if backend == "cycle" else None)
            rows.append({"series": model, "tile_n": tile_n, "cycles": r.cycles,
                         "off_chip_bytes": r.off_chip_bytes, "simulated_off_chip_bytes": r.simulated_off_chip_bytes,
                         "on_chip_bytes": r["on_chip_bytes"]})
    return pd.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=os.environ.get("STEPRDU_SHARED", "../shared"))
    ap.add_argument("--backend", choices=steprdu.BACKENDS[1:], default="roofline")
    ap.add_argument("--compare", metavar="STEPRDU", help="the steprdu binary whose `experiment fig9` to match")
    a = ap.parse_args()
    frame = fig9(a.shared, a.backend)
    print(frame.to_string(index=False))
    if a.compare:
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([a.compare, "experiment", "fig9", "--shared", a.shared, "--out", out, "--quiet"],
                           check=True, stdout=subprocess.DEVNULL)
            cli = pd.read_csv(os.path.join(out, "fig9.csv"), dtype={"tile_n": str})
        merged = frame.merge(cli, on=["series", "tile_n"], suffixes=("", "_cli"))
        # The roofline's cycles and bytes are the experiment's; the chip's cycles are its own, its bytes the same.
        same = merged["simulated_off_chip_bytes"] == merged["off_chip_bytes_cli"]
        if a.backend == "roofline":
            same &= merged["cycles"] == merged["cycles_cli"]
        what = "cycles and off-chip bytes" if a.backend == "roofline" else "off-chip bytes"
        print(f"{same.sum()} of {len(merged)} points with the {what} of `steprdu experiment fig9`")
        sys.exit(0 if same.all() and len(merged) == len(frame) else 1)


if __name__ == "__main__":
    main()
