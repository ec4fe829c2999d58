"""Wrong calls from Python raise exceptions whose message names what was wrong; none crashes the interpreter.
Each case: what it does wrong, the call, the exception class and a piece of the message it must carry."""

import numpy as np
import pytest

import steprdu
from steprdu import init_fn, map_fn, ops


def tile_graph():
    """x: two 16 x 32 tiles; returns the graph and the stream of x."""
    g = steprdu.Graph()
    g.tensor("x", rows=16, cols=64)
    return g, g.linear_offchip_load("x", 16, 32, [1], [2], name="load_x")


def other_graph_stream():
    _, s = tile_graph()
    g, _ = tile_graph()
    return g.map([s], map_fn.Exp())


def matmul_mismatch():
    g, x = tile_graph()
    return g.map([x, x], map_fn.Matmul())  # [16, 32] x [16, 32]


def dangling():
    g, x = tile_graph()
    g.map([x], map_fn.Exp(), name="exp")  # its output goes nowhere
    return steprdu.simulate(g)


def feedback_without_a_first_element():
    g, x = tile_graph()
    ph = g.placeholder("tile", [1, 2], {"tile_rows": 16, "tile_cols": 32}, name="previous")
    y = g.map([x, ph], map_fn.Add(), name="add")
    g.connect(ph, y)  # each sum waits for itself
    g.sink(y)
    return steprdu.simulate(g, watchdog_cycles=10000)


def ok_graph():
    g, x = tile_graph()
    g.sink(g.map([x], map_fn.Exp()))
    return g


CASES = [
    ("tensor values not numbers", lambda: steprdu.Graph().tensor("a", values="abc"), steprdu.BadInputError,
     "tensor 'a': values"),
    ("tensor of no size", lambda: steprdu.Graph().tensor("a"), steprdu.BadInputError, "rows and cols > 0"),
    ("tensor of three dimensions", lambda: steprdu.Graph().tensor("a", np.zeros((2, 2, 2), np.float32)),
     steprdu.BadInputError, "1-D or 2-D"),
    ("load of an undeclared tensor", lambda: steprdu.Graph().linear_offchip_load("nope", 1, 1, [1], [1]),
     steprdu.BadInputError, "nope"),
    ("stride not a list", lambda: steprdu.Graph().linear_offchip_load("x", 1, 1, "1", [1]), steprdu.BadInputError,
     "stride"),
    ("stride and out_shape of different lengths", lambda: tile_graph()[0].linear_offchip_load("x", 16, 32, [1, 1],
                                                                                                [2]),
     steprdu.BadInputError, "stride"),
    ("unknown function", lambda: tile_graph()[0].map([tile_graph()[1]], "Tanh"), steprdu.BadInputError, "Tanh"),
    ("inputs not streams", lambda: tile_graph()[0].map(5, map_fn.Exp()), steprdu.BadInputError, "inputs"),
    ("a stream of another graph", other_graph_stream, steprdu.BadInputError, "another graph"),
    ("matmul of mismatched tiles", matmul_mismatch, steprdu.BadInputError, "inner dimensions"),
    ("wrong function arity", lambda: (lambda g, x: g.map([x, x], map_fn.Exp()))(*tile_graph()),
     steprdu.BadInputError, "expected 1 input stream"),
    ("init not an init function", lambda: (lambda g, x: g.accum(x, map_fn.Add(), "zero", 1))(*tile_graph()),
     steprdu.BadInputError, "init"),
    ("accumulating over more ranks than the stream has",
     lambda: (lambda g, x: g.accum(x, map_fn.Add(), init_fn.Zero((16, 32)), 3))(*tile_graph()),
     steprdu.BadInputError, "rank"),
    ("partition wider than its selector",
     lambda: (lambda g, x: g.partition(x, g.select_gen([[0], [1]], 2, [1, 2]), 0, 3))(*tile_graph()),
     steprdu.BadInputError, "Partition"),
    ("flatten of reversed ranks", lambda: (lambda g, x: g.flatten(x, 1, 0))(*tile_graph()), steprdu.BadInputError,
     "Flatten"),
    ("negative compute_bw", lambda: (lambda g, x: g.map([x], map_fn.Exp(), compute_bw=-1))(*tile_graph()),
     steprdu.BadInputError, "compute_bw"),
    ("unknown backend", lambda: steprdu.simulate(ok_graph(), backend="rtl"), steprdu.BadInputError, "rtl"),
    ("unknown hardware preset", lambda: steprdu.simulate(ok_graph(), hw="sn50"), steprdu.BadInputError, "sn50"),
    ("misspelt hardware key", lambda: steprdu.simulate(ok_graph(), set={"hbm.chanels": 4}),
     steprdu.BadInputError, "hbm.chanels"),
    ("hardware value of the wrong type", lambda: steprdu.simulate(ok_graph(), set={"hbm.channels": "many"}),
     steprdu.BadInputError, "hbm.channels"),
    ("simulate something that is not a graph", lambda: steprdu.simulate("graph.json"), steprdu.BadInputError,
     "steprdu.Graph"),
    ("functional on the roofline", lambda: steprdu.simulate(ok_graph(), functional=True), steprdu.BadInputError,
     "--functional"),
    ("a dangling stream", dangling, steprdu.BadInputError, "dangling"),
    ("a feedback loop with no first element", feedback_without_a_first_element, steprdu.DeadlockError, "add"),
    ("a deadlocking built-in configuration",
     lambda: steprdu.run("moe", hidden=64, inter=128, tile_f=32, tile_n=8, regions=2, elem_bytes=4),
     steprdu.DeadlockError, "no forward progress"),
    ("unknown testbench", lambda: steprdu.run("mixtral"), steprdu.BadInputError, "mixtral"),
    ("unknown knob", lambda: steprdu.run("moe", tiles=16), steprdu.BadInputError, "tiles"),
    ("bad knob value", lambda: steprdu.run("moe", tile_n="big"), steprdu.BadInputError, "tile_n"),
    ("unknown function argument", lambda: steprdu.Function.from_json({"fn": "Matmul", "bogus": 1}),
     steprdu.BadInputError, "bogus"),
    ("init shape of one number", lambda: init_fn.Zero((16,)), steprdu.BadInputError, "Zero"),
    ("address offset not an integer", lambda: map_fn.CacheWriteAddrGen("x"), steprdu.BadInputError, "row_offset"),
    ("dynamic dimension without a name", lambda: steprdu.DynDim(3), steprdu.BadInputError, "DynDim"),
    ("load of a missing directory", lambda: steprdu.load("/nonexistent/sweep"), steprdu.BadInputError,
     "/nonexistent/sweep"),
    ("negative binding", lambda: steprdu.Graph().bind("n", -1), steprdu.BadInputError, "'n'"),
    ("integer tensor for an artifact load",
     lambda: ops.OffChipLoad(np.zeros((4, 4), np.int64), (1,), (1,), 4, 4, 1, graph=steprdu.Graph()),
     steprdu.BadInputError, "float32"),
    ("wrong arity", lambda: steprdu.Graph().map(), TypeError, "map()"),
    ("wrong keyword", lambda: steprdu.Graph().tensor("a", rows=2, colums=2), TypeError, "tensor()"),
]


@pytest.mark.parametrize("what,call,kind,needle", CASES, ids=[c[0] for c in CASES])
def test_a_wrong_call_raises_a_pointed_exception(what, call, kind, needle):
    with pytest.raises(kind) as e:
        call()
    assert needle in str(e.value), f"{what}: {e.value}"


def test_every_error_is_a_steprdu_error():
    assert issubclass(steprdu.BadInputError, steprdu.Error)
    assert issubclass(steprdu.DeadlockError, steprdu.Error)
    assert len(CASES) >= 30
