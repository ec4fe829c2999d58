"""Wrong calls from Python, as a new user makes them, raise a steprdu.Error subclass whose message names what was
wrong and how to fix it; none crashes the interpreter. Each case: what it does wrong, the call, the exception class
and a piece of the message it must carry (for the newer cases, the fix)."""

import tempfile

import numpy as np
import pytest

import steprdu
from steprdu import HBMConfig, SimConfig, init_fn, map_fn, ops


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


def routed():
    """Rows routed to two consumers: two data-dependent sizes. Returns the graph and the partition's outputs."""
    g, x = tile_graph()
    rows = g.flatten(g.linear_offchip_load("x", 1, 64, [1, 1], [16, 1], name="rows"), 0, 1)
    parts = g.partition(rows, g.select_gen([[0], [1]] * 8, 2, [1, 16]), 0, 2, name="split")
    for i, p in enumerate(parts):  # a row of x per routed row: bytes that depend on the counts
        g.sink(g.linear_offchip_load("x", 1, 64, [1], [1], ref=p, name=f"per_row{i}"))
    g.sink(x)
    return g, parts


def artifact_partition():
    """An artifact-style partition: returns (graph, the Partition op)."""
    g = steprdu.Graph()
    x = ops.OffChipLoad(np.ones((4, 16), np.float32), (1, 1), (4, 1), 1, 16, 1, graph=g, name="x")
    sel = ops.SelectGen(True, np.eye(2, dtype=np.int64)[[0, 1, 0, 1]], 2, graph=g)
    return g, ops.FlatPartition(g, ops.Flatten(g, x, 0, 1), sel, 0, num_consumers=2)


def store_op():
    g, x = tile_graph()
    return g, ops.OffChipStore(g, x, par_dispatch=1, store_file_name="y")


def map_accum_init_mismatch():
    # The reproducer: the product is 32 x 16, the init tile 32 x 32.
    g = steprdu.Graph()
    g.tensor("a", rows=32, cols=64)
    g.tensor("b", rows=64, cols=16)
    a = g.linear_offchip_load("a", 32, 32, [1], [2])
    b = g.linear_offchip_load("b", 32, 16, [1], [2])
    return g.map_accum(a, b, map_fn.Matmul(), init_fn.Zero((32, 32)), 1)


def stats_csv_as_results():
    d = tempfile.mkdtemp()
    with open(f"{d}/stats.csv", "w") as f:
        f.write("path,value,unit\nchip.pcu.busy_cycles,10,cycles\n")
    return steprdu.load(f"{d}/stats.csv")


def roofline_unbound():
    g, _ = routed()
    return steprdu.simulate(g, backend="roofline")


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
    ("wrong arity", lambda: steprdu.Graph().map(), steprdu.ArgumentError, "map()"),
    ("wrong keyword", lambda: steprdu.Graph().tensor("a", rows=2, colums=2), steprdu.ArgumentError, "tensor()"),
    # Symbols and bindings.
    ("binding a name the graph does not have", lambda: routed()[0].bind("nope", 3), steprdu.BadInputError,
     "one of split_000, split_001"),
    ("binding before the symbol exists", lambda: steprdu.Graph().bind("n", 3), steprdu.BadInputError,
     "bind a symbol after adding the operator"),
    ("metrics with a binding the graph does not have", lambda: routed()[0].metrics({"nope": 1}),
     steprdu.BadInputError, "g.symbols"),
    ("a timed run with a size left unbound", roofline_unbound, steprdu.BadInputError, "g.bind(name, count)"),
    ("metrics with a size left unbound", lambda: routed()[0].metrics(), steprdu.BadInputError, "g.bind("),
    # One dtype rule for arrays.
    ("int64 tensor values", lambda: steprdu.Graph().tensor("a", np.arange(16).reshape(4, 4)),
     steprdu.ArgumentError, "astype(np.float32)"),
    ("float64 tensor values", lambda: steprdu.Graph().tensor("a", np.random.default_rng(0).random((4, 4))),
     steprdu.ArgumentError, "astype(np.float32)"),
    ("float64 array for an artifact load",
     lambda: ops.OffChipLoad(np.zeros((4, 4)), (1,), (1,), 4, 4, 1, graph=steprdu.Graph()),
     steprdu.ArgumentError, "astype(np.float32)"),
    ("a ragged list of values", lambda: steprdu.Graph().tensor("a", [[1, 2], [3]]), steprdu.BadInputError,
     "rectangular list"),
    ("values and a different rows x cols", lambda: steprdu.Graph().tensor("a", np.ones((4, 4), np.float32), rows=8),
     steprdu.BadInputError, "leave rows and cols out"),
    ("an unknown tensor class", lambda: steprdu.Graph().tensor("a", rows=2, cols=2, cls="weight"),
     steprdu.BadInputError, "weights, activations or kv_cache"),
    ("an artifact load naming a tensor twice",
     lambda: [ops.OffChipLoad(np.ones((4, 4), np.float32), (1,), (1,), 4, 4, 1, graph=g, name="w")
              for g in [steprdu.Graph()] for _ in range(2)], steprdu.BadInputError, "pass the name itself"),
    # (op, i) references.
    ("an output index out of range", lambda: (lambda g, p: g.map([(p, 2)], map_fn.Exp()))(*artifact_partition()),
     steprdu.OutOfRangeError, "an index in 0..1"),
    ("a multi-output op where one stream goes",
     lambda: (lambda g, p: ops.UnaryMap(g, p, map_fn.Exp()))(*artifact_partition()), steprdu.BadInputError,
     "name one as (op, i)"),
    ("(list, i) for a Graph method's list of streams",
     lambda: (lambda g, parts: g.map([(parts, 0)], map_fn.Exp()))(*routed()), steprdu.ArgumentError,
     "index the list instead: parts[i]"),
    ("a store's op consumed as a stream", lambda: (lambda g, s: g.sink(s))(*store_op()), steprdu.BadInputError,
     "has no output stream"),
    ("indexing a store's op", lambda: store_op()[1][0], steprdu.OutOfRangeError, "has 0 output streams"),
    ("an unknown operator name", lambda: ok_graph().op("exp"), steprdu.BadInputError, "g.operators"),
    ("making an Op directly", lambda: steprdu.Op(), steprdu.ArgumentError,
     "Graph methods and steprdu.ops functions return them"),
    ("indexing an op by name", lambda: artifact_partition()[1]["Partition_000"], steprdu.ArgumentError,
     "i: expected int, found str"),
    ("a stream that is not one", lambda: ok_graph().stream(3), steprdu.ArgumentError,
     "a Stream, an Op or an (op, i) pair"),
    # The artifact's habits.
    ("the artifact's positional simulate", lambda: steprdu.simulate(ok_graph(), False, None, None, "graph.pb"),
     steprdu.BadInputError, "steprdu.simulate(graph, backend='roofline', hbm_config=..., sim_config=...)"),
    ("an artifact load without the graph keyword",
     lambda: ops.OffChipLoad(np.ones((4, 4), np.float32), (1,), (1,), 4, 4, 1), steprdu.ArgumentError,
     "graph"),
    ("an artifact operator missing an argument", lambda: ops.UnaryMap(steprdu.Graph(), None), steprdu.ArgumentError,
     "call it as UnaryMap(graph, input, fn"),
    ("an HBMConfig of the wrong type", lambda: HBMConfig(64, "32", 2, 2, 1, 14), steprdu.BadInputError,
     "hbm.channels"),
    ("an HBMConfig with a field missing", lambda: HBMConfig(64, 32, 2, 2, 1), steprdu.ArgumentError,
     "per_channel_start_up_time"),
    ("an HBMConfig that contradicts a set key",
     lambda: steprdu.simulate(ok_graph(), hbm_config=HBMConfig(64, 32, 2, 2, 1, 14), set={"hbm.channels": 8}),
     steprdu.BadInputError, "give it once"),
    ("a SimConfig keyed by the artifact's operator ids",
     lambda: steprdu.simulate(ok_graph(), sim_config=SimConfig(2, config_dict={3: 16})), steprdu.BadInputError,
     "key the depth by the Op"),
    ("a SimConfig and a depth both given", lambda: steprdu.simulate(ok_graph(), depth=1, sim_config=SimConfig(2)),
     steprdu.BadInputError, "give them in one place"),
    ("a depth for an operator the graph does not have", lambda: steprdu.simulate(ok_graph(), depths={"nope": 4}),
     steprdu.BadInputError, "g.operators lists them"),
    ("counting FIFOs in on_chip_requirement", lambda: store_op()[1].on_chip_requirement(count_fifos=True),
     steprdu.BadInputError, "count_fifos: expected False"),
    ("values from a timed run", lambda: steprdu.simulate(ok_graph()).tensors["x"], steprdu.MissingKeyError,
     "backend='interp'"),
    ("dividing a size with /", lambda: steprdu.Expr("n") / 2, steprdu.ArgumentError, "steprdu.ceil_div"),
    ("a result key that is not there", lambda: steprdu.simulate(ok_graph())["latency"], steprdu.MissingKeyError,
     "expected one of"),
    ("a Tile without its element type", lambda: steprdu.Tile(shape=(16, 16)), steprdu.ArgumentError,
     "call it as Tile(tile_dtype, shape)"),
    ("an expression evaluated with a list", lambda: steprdu.Expr("n").eval(["n", 3]), steprdu.ArgumentError,
     "a dict {symbol: count}"),
    ("a MapAccum whose init tile is not the product's", map_accum_init_mismatch, steprdu.BadInputError,
     "MapAccum"),
    # Loading results.
    ("loading a run's stats.csv", stats_csv_as_results, steprdu.BadInputError, "load its run directory"),
]


@pytest.mark.parametrize("what,call,kind,needle", CASES, ids=[c[0] for c in CASES])
def test_a_wrong_call_raises_a_pointed_exception(what, call, kind, needle):
    with pytest.raises(kind) as e:
        call()
    assert needle in str(e.value), f"{what}: {e.value}"


def test_every_mistake_raises_a_steprdu_error():
    assert len(CASES) >= 40
    for what, call, _, _ in CASES:
        with pytest.raises(steprdu.Error, match=".") as e:
            call()
        assert e.type.__module__ == "steprdu", what


def test_the_error_classes_are_steprdu_errors_and_builtin_ones_where_python_expects_them():
    for cls in (steprdu.BadInputError, steprdu.DeadlockError, steprdu.LimitError, steprdu.InternalError):
        assert issubclass(cls, steprdu.Error)
    assert issubclass(steprdu.ArgumentError, steprdu.BadInputError) and issubclass(steprdu.ArgumentError, TypeError)
    assert issubclass(steprdu.OutOfRangeError, IndexError) and issubclass(steprdu.MissingKeyError, KeyError)
    assert issubclass(steprdu.InternalError, RuntimeError)
    assert str(steprdu.MissingKeyError("plain text")) == "plain text"
