"""A program written as the STeP artifact's scripts write them, run by steprdu: operators that return ops, outputs
named (op, i), arrays loaded under a name and a tensor class, per-operator metrics as sympy, and the artifact's
HBMConfig and SimConfig.

Tokens are routed to experts (FlatPartition by a one-hot selector); each expert applies SiLU to its rows and scales
them by its own weight row (a DynOffChipLoad once per routed row); FlatReassemble gathers the rows back in order:
y[t] = silu(x[t]) * w[route[t]].

    PYTHONPATH=build/python python3 examples/python/artifact_style.py [--tokens 8] [--experts 2]
"""

import argparse

import numpy as np

import steprdu
from steprdu import HBMConfig, SimConfig, map_fn, ops


def routed_experts(x, w, routes):
    """The graph (a steprdu.Graph), its FlatPartition op and its OffChipStore op for tokens `x` [T, D], expert
    weight rows `w` [E, D] and one expert per token in `routes`."""
    tokens, dim = x.shape
    experts = w.shape[0]
    onehot = np.eye(experts, dtype=np.int64)[routes]
    g = steprdu.Graph()
    x_op = ops.OffChipLoad(x, stride=(1, 1), out_shape_tiled=(tokens, 1), tile_row=1, tile_col=dim,
                           par_dispatch=1, graph=g, name="x")
    rows = ops.Flatten(g, x_op, 0, 1)
    route = ops.SelectGen(True, onehot, experts, graph=g, name="route")
    part = ops.FlatPartition(g, rows, route, partition_rank=0, switch_cycles=[1] * experts,
                             num_consumers=experts, name="experts")
    scaled = []
    for e in range(experts):
        act = ops.UnaryMap(g, (part, e), map_fn.Silu(), write_back_mu=False, compute_bw=64, name=f"silu{e}")
        weight = ops.DynOffChipLoad(g, (part, e), w[e:e + 1], stride=(1,), out_shape_tiled=(1,), tile_row=1,
                                    tile_col=dim, par_dispatch=1, name=f"w{e}", cls="weights")
        scaled.append(ops.BinaryMap(g, act, ops.Flatten(g, weight, 0, 1), map_fn.Mul(), compute_bw=64,
                                    name=f"scale{e}"))
    gather = ops.SelectGen(True, onehot, experts, graph=g, name="gather_route")
    out = ops.FlatReassemble(g, scaled, gather, reassemble_rank=0, switch_cycles=[1] * experts, name="gather")
    out.stream.set_shape([1, tokens, 1])  # every token comes back from exactly one expert
    store = ops.OffChipStore(g, out, par_dispatch=1, store_file_name="y")
    # The artifact binds each expert's token count to the partition's symbols; so does steprdu.
    for e in range(experts):
        g.bind(str(part[e].shape.dims[0].size), int(np.count_nonzero(np.asarray(routes) == e)))
    return g, part, store


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", type=int, default=8)
    ap.add_argument("--experts", type=int, default=2)
    ap.add_argument("--dim", type=int, default=64)
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    x = rng.standard_normal((args.tokens, args.dim)).astype(np.float32)
    w = rng.standard_normal((args.experts, args.dim)).astype(np.float32)
    routes = rng.integers(0, args.experts, args.tokens).tolist()
    g, _, _ = routed_experts(x, w, routes)

    values = steprdu.simulate(g, backend="interp").tensors["y"]
    want = x / (1 + np.exp(-x)) * w[routes]
    print(f"interp: max |y - numpy| = {np.abs(values - want).max():.2e}")

    # The artifact's simulate(graph, False, HBMConfig(64, 32, 2, 2, 1, 14), SimConfig(channel_depth=2), ...).
    r = steprdu.simulate(g, backend="roofline", hbm_config=HBMConfig(64, 32, 2, 2, 1, 14),
                         sim_config=SimConfig(channel_depth=2, functional_sim=False))
    print(f"roofline: {r.cycles} cycles, {r.off_chip_bytes} off-chip bytes")
    print("operator            off-chip bytes (symbolic)")
    for name in g.operators:
        traffic = g.op(name).off_chip_traffic()
        if not traffic.is_const or traffic.eval():
            print(f"  {name:16}  {traffic}")
    try:
        print("as sympy:", g.off_chip_traffic().to_sympy())
    except steprdu.BadInputError as e:  # python3-sympy is not installed
        print(e)


if __name__ == "__main__":
    main()
