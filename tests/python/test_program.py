"""Programs built in Python: run on every executor, metrics as expressions, and the graph file they save."""

import json
import subprocess

import numpy as np
import pytest

import steprdu
from steprdu import init_fn, map_fn, ops


def gemm(n=64, tile=32, values=True):
    """y = x w over tile x tile blocks: the K loop accumulated by MapAccum."""
    rng = np.random.default_rng(3)
    g = steprdu.Graph()
    x = rng.standard_normal((n, n)).astype(np.float32)
    w = rng.standard_normal((n, n)).astype(np.float32)
    g.tensor("x", x if values else None, rows=n, cols=n)
    g.tensor("w", w if values else None, rows=n, cols=n, cls="weights")
    g.tensor("y", rows=n, cols=n)
    t = n // tile
    # For each output block (i, j): x blocks (i, k) and w blocks (k, j) over k.
    xs = g.linear_offchip_load("x", tile, tile, [t, 0, 1], [t, t, t], name="load_x")
    ws = g.linear_offchip_load("w", tile, tile, [0, 1, t], [t, t, t], name="load_w")
    y = g.map_accum(xs, ws, map_fn.Matmul(), init_fn.Zero((tile, tile)), 1, compute_bw=1024, name="matmul")
    g.linear_offchip_store(y, "y", name="store_y")
    return g, x, w


@pytest.mark.parametrize("backend", ["interp", "cycle"])
def test_a_python_program_computes_what_numpy_does(backend):
    g, x, w = gemm()
    r = steprdu.simulate(g, backend=backend, functional=backend == "cycle")
    np.testing.assert_allclose(r.tensors["y"], x @ w, rtol=1e-4, atol=1e-4)
    if backend == "cycle":
        assert r["scoreboard"]["equal"]
        assert r.cycles > 0


def test_roofline_and_cycle_move_the_metrics_bytes():
    g, _, _ = gemm(values=False)
    # x and w: 2 x 2 x 2 blocks of 4 KiB each read once per output block; y written once.
    assert g.off_chip_traffic().eval() == 2 * 8 * 32 * 32 * 4 + 64 * 64 * 4
    roof = steprdu.simulate(g, backend="roofline")
    cyc = steprdu.simulate(g, backend="cycle")
    assert roof.off_chip_bytes == cyc.off_chip_bytes == g.off_chip_traffic().eval()
    assert roof.simulated_off_chip_bytes == cyc.simulated_off_chip_bytes == roof.off_chip_bytes
    assert g.flops().eval() == 2 * 64 ** 3
    assert roof.cycles > 0 and cyc.cycles > 0


def test_metrics_are_expressions_over_dynamic_sizes():
    g = steprdu.Graph()
    g.tensor("x", rows=64, cols=16)
    x = g.linear_offchip_load("x", 1, 16, [1, 1], [64, 1], name="load_x")
    keep = g.select_gen([[0], [1]] * 32, 2, [1, 64], name="keep")
    parts = g.partition(g.flatten(x, 0, 1), keep, 0, 2, name="split")
    g.sink(parts[1])
    g.sink(g.map([parts[0]], map_fn.Exp(), compute_bw=512, name="exp"))
    n = str(parts[0].shape.dims[0].size)
    flops = g.flops()
    assert n in str(flops)
    assert flops.eval() is None  # the partition's share is unknown until bound
    per_row = flops.eval({n: 1})
    assert per_row > 0 and flops.eval({n: 32}) == 32 * per_row
    g.bind(n, 10)
    assert g.metrics()["flops"] == 10 * per_row


def test_to_json_runs_the_same_through_run_graph(binary, tmp_path):
    g, _, _ = gemm(values=False)
    path = tmp_path / "gemm.json"
    path.write_text(g.to_json())
    assert json.loads(path.read_text())["format"] == "steprdu-graph-1"
    for backend in ("roofline", "cycle"):
        r = steprdu.simulate(g, backend=backend)
        out = subprocess.run([binary, "run-graph", str(path), "--backend", backend, "--json", "--quiet"],
                             check=True, capture_output=True, text=True).stdout
        cli = json.loads(out)
        assert cli["cycles"] == r.cycles, backend
        assert cli["off_chip_bytes"] == r.off_chip_bytes


def test_artifact_names_build_the_same_program():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    g = steprdu.Graph()
    a = ops.OffChipLoad(x, stride=(2, 1), out_shape_tiled=(2, 2), tile_row=16, tile_col=32, par_dispatch=1,
                        graph=g)
    s = ops.UnaryMap(g, a, map_fn.Silu(), write_back_mu=False, compute_bw=512)
    ops.OffChipStore(g, s, par_dispatch=1, store_file_name="out")
    r = steprdu.simulate(g, backend="interp")
    np.testing.assert_allclose(r.tensors["out"], x / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)


def test_run_gives_the_clis_result_for_a_builtin_testbench(binary):
    r = steprdu.run("swiglu", backend="roofline", tile_b=16)
    cli = json.loads(subprocess.run([binary, "run", "swiglu", "tile_b=16", "--json", "--quiet"], check=True,
                                    capture_output=True, text=True).stdout)
    assert r.cycles == cli["cycles"] and r.off_chip_bytes == cli["off_chip_bytes"]
    c = steprdu.run("swiglu", backend="cycle", tile_b=16, batch=32)
    frame = c.stats_frame()
    assert {"path", "stat", "value", "unit", "description"} <= set(frame.columns)
    assert (frame["stat"] == "busy_cycles").any()
    assert c.stats["chip"]  # the stats tree by module path


def test_run_reuses_a_placement_as_the_cli_does(binary, tmp_path):
    # A placement from `steprdu pnr --out` gives the cycles of the run that places anew, and with more PMU
    # bandwidth on it the run changes only by the bandwidth; a path of the wrong type is refused.
    subprocess.run([binary, "pnr", "swiglu", "tile_b=16", "--hw", "sn40l", "--out", str(tmp_path)], check=True,
                   capture_output=True)
    fresh = steprdu.run("swiglu", backend="cycle", hw="sn40l", tile_b=16)
    reused = steprdu.run("swiglu", backend="cycle", hw="sn40l", tile_b=16, placement=tmp_path / "pnr.json")
    assert reused.cycles == fresh.cycles
    assert reused["pnr"]["reused_from"] == str(tmp_path / "pnr.json")
    with pytest.raises(steprdu.BadInputError, match="placement"):
        steprdu.run("swiglu", backend="cycle", tile_b=16, placement=3)
    with pytest.raises(steprdu.BadInputError, match="--placement: expected --backend cycle"):
        steprdu.run("swiglu", tile_b=16, placement=tmp_path)


def test_phases_plan_a_parts_streams_over_its_own_time():
    # The two copies of the C++ lowering test (PnrLowering.PhasesPlanTheirStreamsOverTheirOwnTime): b's load
    # gets 2 lanes as part of one run, 16 as a phase of its own.
    g = steprdu.Graph()
    for p, rows, cols in (("a.", 2048, 1024), ("b.", 512, 512)):
        g.tensor(p + "x", rows=rows, cols=cols)
        g.tensor(p + "out", rows=rows, cols=cols)
        x = g.linear_offchip_load(p + "x", 64, cols, [1], [rows // 64], name=p + "load")
        g.linear_offchip_store(g.map([x], map_fn.Exp(), compute_bw=16 * 512, name=p + "exp"), p + "out",
                               name=p + "store")

    def lanes(result):
        streams = {s["stream"]: s["lanes"] for s in result["pnr"]["streams"]}
        return streams["b.load[0] -> b.exp[0]"]

    one = steprdu.simulate(g, backend="cycle", set={"pnr.starts": 1})
    two = steprdu.simulate(g, backend="cycle", set={"pnr.starts": 1}, phases=["a.", "b."])
    assert lanes(one) == 2 and lanes(two) == 16
    assert one.off_chip_bytes == two.off_chip_bytes
    with pytest.raises(steprdu.BadInputError, match="phases"):
        steprdu.simulate(g, phases="a.")
