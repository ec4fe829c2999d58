"""A program written as the STeP artifact's scripts write them (examples/python/artifact_style.py): operators that
return ops, outputs named (op, i), arrays loaded by name and class, per-operator metrics in sympy, and the
artifact's HBMConfig and SimConfig."""

import json

import numpy as np
import pytest

import artifact_style
import steprdu
from steprdu import HBMConfig, SimConfig, ops

ROUTES = [0, 1, 0, 0, 1, 0, 1, 0]  # the expert of each of 8 tokens


def routed_experts(x, w):
    """The example's program: y[t] = silu(x[t]) * w[route of t] over two experts."""
    return artifact_style.routed_experts(x, w, ROUTES)


def inputs():
    rng = np.random.default_rng(7)
    return (rng.standard_normal((8, 64)).astype(np.float32), rng.standard_normal((2, 64)).astype(np.float32))


def test_an_artifact_style_program_computes_what_numpy_does():
    x, w = inputs()
    g, part, store = routed_experts(x, w)
    assert isinstance(part, steprdu.Op) and len(part) == 2 and isinstance(store, steprdu.Op)
    assert part.kind == "Partition" and store.kind == "LinearOffChipStore" and len(store) == 0
    r = steprdu.simulate(g, backend="interp")
    want = x / (1 + np.exp(-x)) * w[ROUTES]
    np.testing.assert_allclose(r.tensors["y"], want, rtol=1e-5, atol=1e-6)
    # Arrays keep the names and classes they were given.
    np.testing.assert_array_equal(r.tensors["x"], x)
    classes = {t["name"]: t.get("class", "activations") for t in json.loads(g.to_json())["tensors"]}
    assert classes["x"] == "activations" and classes["w0"] == classes["w1"] == "weights"


def test_hbm_config_and_sim_config_map_onto_steprdus_keys():
    x, w = inputs()
    g, _, _ = routed_experts(x, w)
    # The paper's section-5 node is step_eval's: the same cycles as the preset itself.
    paper = HBMConfig(64, 32, 2, 2, 1, 14)
    assert paper.peak_bytes_per_cycle() == 1024
    plain = steprdu.simulate(g, backend="roofline", hw="step_eval")
    ported = steprdu.simulate(g, backend="roofline", hw="step_eval", hbm_config=paper,
                              sim_config=SimConfig(channel_depth=2, functional_sim=False))
    assert ported.cycles == plain.cycles > 0
    # Fig 8's node: a quarter of the channels, the same as setting the key.
    fig8 = HBMConfig(64, 8, 2, 2, 1, 14)
    assert fig8.to_sets()["hbm.channels"] == 8
    by_config = steprdu.simulate(g, backend="roofline", hbm_config=fig8, sim_config=SimConfig(1, mock_bf16=True))
    by_keys = steprdu.simulate(g, backend="roofline", set={"hbm.channels": 8}, depth=1, timing_elem_bytes=2)
    assert by_config.cycles == by_keys.cycles
    # A per-producer depth through config_dict, keyed by the op, is the same as simulate's depths.
    deep = SimConfig(channel_depth=1, config_dict={g.op("x"): 8})
    assert (steprdu.simulate(g, backend="roofline", sim_config=deep).cycles
            == steprdu.simulate(g, backend="roofline", depth=1, depths={"x": 8}).cycles)


def test_per_operator_metrics_add_up_to_the_graphs():
    x, w = inputs()
    g, part, store = routed_experts(x, w)
    per_op = [g.op(name) for name in g.operators]
    total = sum(op.off_chip_traffic().eval(g.bindings) for op in per_op)
    assert total == g.off_chip_traffic().eval(g.bindings) == 8 * 256 + 8 * 256 + 8 * 256
    assert store.off_chip_traffic().eval() == 8 * 64 * 4
    assert g.op("x").on_chip_requirement().eval() == 64 * 4
    # An expert's weight traffic depends on how many tokens it gets.
    n0 = str(part[0].shape.dims[0].size)
    assert g.op("w0").off_chip_traffic().symbols == [n0]
    assert g.op("w0").off_chip_traffic().eval({n0: 5}) == 5 * 256


def test_metrics_convert_to_sympy():
    sympy = pytest.importorskip("sympy")
    x, w = inputs()
    g, part, _ = routed_experts(x, w)
    n0, n1 = (str(part[e].shape.dims[0].size) for e in range(2))
    expr = g.off_chip_traffic().to_sympy()
    s0, s1 = sympy.Symbol(n0, integer=True, nonnegative=True), sympy.Symbol(n1, integer=True, nonnegative=True)
    assert expr.free_symbols == {s0, s1}
    assert expr.subs({s0: 5, s1: 3}) == g.off_chip_traffic().eval({n0: 5, n1: 3})
    assert steprdu.ceil_div(steprdu.Expr.sym("n"), 4).to_sympy() == sympy.ceiling(
        sympy.Symbol("n", integer=True, nonnegative=True) / 4)


def test_the_example_runs(capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["artifact_style.py", "--tokens", "6", "--experts", "3"])
    artifact_style.main()
    out = capsys.readouterr().out
    assert "roofline:" in out and "256*experts_000" in out
    error = float(out.split("max |y - numpy| = ")[1].split()[0])
    assert error < 1e-5


def test_an_op_is_a_sequence_of_its_outputs():
    x, w = inputs()
    g, part, store = routed_experts(x, w)
    a, b = part
    assert a.type == part[0].type == part.stream_idx(0).type == g.stream((part, 0)).type
    assert b.index == 1 and b.op.name == "experts" and b.op == part and hash(b.op) == hash(part)
    assert part[-1].index == 1
    assert [s.index for s in part.outputs] == [0, 1]
    assert store.inputs[0].op.name == "gather"


@pytest.mark.parametrize("values", [
    np.ones((4, 8), np.float32), np.ones((4, 8), np.float16), [[1, 2], [3, 4]], [[0.5, 1.5]],
    np.ones((4, 8), np.int64), np.ones((4, 8), np.float64), np.ones((4, 8), bool), [["a", "b"]], {"a": 1},
], ids=["float32", "float16", "int-list", "float-list", "int64", "float64", "bool", "str-list", "dict"])
def test_graph_tensor_and_offchipload_accept_and_refuse_the_same_values(values):
    def outcome(call):
        try:
            call()
            return "accepted"
        except steprdu.Error as e:
            return type(e).__name__

    rows, cols = np.asarray(values).shape if not isinstance(values, dict) else (1, 1)
    by_tensor = outcome(lambda: steprdu.Graph().tensor("t", values))
    by_load = outcome(lambda: ops.OffChipLoad(values, (1,), (1,), rows, cols, 1, graph=steprdu.Graph()))
    assert by_tensor == by_load
    floats = isinstance(values, np.ndarray) and values.dtype in (np.float32, np.float16)
    numbers = isinstance(values, list) and np.asarray(values).dtype.kind in "iuf"
    assert (by_tensor == "accepted") == (floats or numbers), by_tensor
