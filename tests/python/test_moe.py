"""The paper's Listing 1 MoE written with the module (examples/python/moe_listing1.py): its values on every
executor against numpy, and Fig 9 rebuilt through the graph builder against `steprdu experiment fig9`."""

import json
import os
import subprocess

import numpy as np
import pytest

import steprdu
from fig9_sweep import fig9
from moe_listing1 import build_moe, read_routing, reference

ROUTING = [[0, 1], [2, 3], [1, 2], [3, 0], [0, 2], [1, 3], [2, 1], [0, 3]]


@pytest.mark.parametrize("tile_n", ["4", "dynamic"])
@pytest.mark.parametrize("backend", ["interp", "cycle"])
def test_listing1_leaves_what_numpy_computes(backend, tile_n):
    g = build_moe(ROUTING, 4, 64, 128, tile_n=tile_n, tile_f=32, elem_bytes=4, values=True)
    r = steprdu.simulate(g, backend=backend, functional=backend == "cycle")
    want = reference(r.tensors, ROUTING, 4)
    assert np.linalg.norm(r.tensors["out"] - want) / np.linalg.norm(want) < 1e-5
    if backend == "cycle":
        assert r["scoreboard"]["equal"]


def test_listing1_on_the_roofline_times_the_same_program():
    g = build_moe(ROUTING, 4, 64, 128, tile_n="4", tile_f=32, elem_bytes=4, values=True)
    r = steprdu.simulate(g, backend="roofline")
    assert r.cycles > 0 and r.off_chip_bytes == g.off_chip_traffic().eval(g.bindings)


def test_fig9_from_python_equals_the_experiment(binary, shared, tmp_path):
    frame = fig9(shared)
    subprocess.run([binary, "experiment", "fig9", "--shared", shared, "--out", str(tmp_path), "--quiet"],
                   check=True, capture_output=True)
    import pandas as pd

    cli = pd.read_csv(tmp_path / "fig9.csv", dtype={"tile_n": str})
    merged = frame.merge(cli, on=["series", "tile_n"], suffixes=("", "_cli"))
    assert len(merged) == len(frame) == 10
    assert (merged["cycles"] == merged["cycles_cli"]).all(), merged[["series", "tile_n", "cycles", "cycles_cli"]]
    assert (merged["off_chip_bytes"] == merged["off_chip_bytes_cli"]).all()
    assert (merged["simulated_off_chip_bytes"] == merged["off_chip_bytes_cli"]).all()


def test_fig9_program_moves_the_same_bytes_on_the_cycle_backend(binary, shared, tmp_path):
    # Mixtral's real routing, its first 8 tokens, with experts scaled down so that the chip run is short.
    routing = read_routing(os.path.join(shared, "traces/expert_routing/mixtral_b64/008_010.csv"))[:8]
    trace = tmp_path / "routing.csv"
    trace.write_text("token,topk0,topk1\n" + "".join(f"{t},{a},{b}\n" for t, (a, b) in enumerate(routing)))
    g = build_moe(routing, 8, 256, 512, tile_n="16")
    cyc = steprdu.simulate(g, backend="cycle", timing_elem_bytes=2)
    roof = steprdu.simulate(g, backend="roofline", timing_elem_bytes=2)
    cli = json.loads(subprocess.run(
        [binary, "run", "moe", "hidden=256", "inter=512", "tile_n=16", f"trace={trace}", "--json", "--quiet"],
        check=True, capture_output=True, text=True).stdout)
    assert cyc.simulated_off_chip_bytes == roof.simulated_off_chip_bytes == cli["off_chip_bytes"]
    assert roof.cycles == cli["cycles"]
