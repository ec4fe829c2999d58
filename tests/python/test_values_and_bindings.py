"""Values and counts a program carries: special floats come back bit for bit from every executor, and the counts
bound to data-dependent sizes are checked against what the run did (issue 40, items 3 and 4)."""

import numpy as np

import steprdu
from steprdu import accum_fn, init_fn, map_fn


def special_values():
    """8 x 4 float32 holding NaN (default and with a payload), +-inf, -0 and denormals."""
    x = np.array([[np.nan, np.inf, -np.inf, -0.0], [1e-40, 1.0, 2.0, 3.0]] * 4, np.float32)
    x[1, 3] = np.array([0x7FC00123], np.uint32).view(np.float32)[0]
    return x


def special_program():
    g = steprdu.Graph()
    g.tensor("x", special_values())
    for name, rows in (("y", 8), ("z", 8), ("s", 4)):
        g.tensor(name, rows=rows, cols=4)
    xs = g.linear_offchip_load("x", 4, 4, [1], [2])
    g.linear_offchip_store(g.map([xs], map_fn.Exp()), "y")
    g.linear_offchip_store(xs, "z")
    g.linear_offchip_store(g.accum(xs, accum_fn.Add(), init_fn.Zero((4, 4)), 1), "s")
    return g


def test_special_values_come_back_bit_for_bit_from_the_chip():
    g = special_program()
    interp = steprdu.simulate(g, backend="interp")
    chip = steprdu.simulate(g, backend="cycle", hw="tiny", functional=True)
    x = special_values()
    assert interp.tensors["z"].view(np.uint32).tolist() == x.view(np.uint32).tolist()
    y = interp.tensors["y"]  # exp in float32: NaN stays NaN, exp(+inf) = inf, exp(-inf) = +0
    assert np.isnan(y[0, 0]) and y[0, 1] == np.inf and y[0, 2].view(np.uint32) == 0 and y[0, 3] == 1.0
    for name in ("x", "y", "z", "s"):
        assert chip.tensors[name].view(np.uint32).tolist() == interp.tensors[name].view(np.uint32).tolist(), name
    assert chip["scoreboard"]["equal"] and chip["scoreboard"]["differing_elements"] == 0
    assert chip["scoreboard"]["non_finite_elements"] > 0


def test_a_graph_file_keeps_special_values(tmp_path):
    g = special_program()
    path = tmp_path / "g.json"
    path.write_text(g.to_json())
    assert '"0x7fc00123"' in path.read_text() and '"nan"' in path.read_text()


def routed():
    """Eight rows routed five to one consumer and three to the other; each consumer loads a 64-byte row of w per
    row it gets. Off-chip bytes: 512 for x and 64 per routed row."""
    g = steprdu.Graph()
    g.tensor("x", rows=8, cols=16)
    g.tensor("w", rows=1, cols=16)
    x = g.flatten(g.linear_offchip_load("x", 1, 16, [1, 1], [8, 1]), 0, 1)
    keep = g.select_gen([[0], [1], [0], [0], [1], [0], [1], [0]], 2, [1, 8])
    parts = g.partition(x, keep, 0, 2)
    for i, p in enumerate(parts):
        g.sink(g.linear_offchip_load("w", 1, 16, [1], [1], ref=p, name=f"load_w{i}"))
    return g, [str(p.shape.dims[0].size) for p in parts]


def test_the_interpreter_runs_unbound_and_reports_the_counts_it_observed():
    g, (n0, n1) = routed()
    r = steprdu.simulate(g, backend="interp")
    assert r["observed_bindings"] == {n0: 5, n1: 3}
    assert r.off_chip_bytes == r.simulated_off_chip_bytes == 512 + 8 * 64
    assert r["metrics_agree_with_run"]


def test_wrong_counts_are_warned_with_both_byte_figures():
    g, (n0, n1) = routed()
    g.bind(n0, 1)
    g.bind(n1, 1)
    r = steprdu.simulate(g, backend="roofline")
    assert r.off_chip_bytes == 640 and r.simulated_off_chip_bytes == 1024
    assert not r["metrics_agree_with_run"]
    assert any("count 640 off-chip bytes but the run moved 1024" in w for w in r["warnings"])
    g.bind(n0, 5)
    g.bind(n1, 3)
    assert steprdu.simulate(g, backend="roofline")["metrics_agree_with_run"]
