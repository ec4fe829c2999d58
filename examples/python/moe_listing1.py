"""The paper's Listing 1: an MoE layer of SwiGLU experts written with the steprdu module, one operator per call.

Each token is routed to its top-k experts (Partition by a multi-hot selector); each expert packs its tokens into
tiles of `tile_n` rows (static tiling, padded) or one tile of exactly its tokens (dynamic tiling), streams its
weights in tile_f-column tiles, computes silu(x W_gate) * (x W_up) W_down, scales each row by its routing
weight and the tokens' rows are gathered back in order (Reassemble) and summed over their k experts.

    python3 examples/python/moe_listing1.py [--model mixtral|qwen] [--tile-n 16|dynamic] [--trace CSV]
        [--backend interp|roofline|cycle] [--small]

The operators are made in the order the built-in `moe` testbench makes them (the roofline's memory serves its
readers in creation order), so the roofline gives the same cycles as `steprdu run moe` on the same trace.
"""

import argparse
import csv

import numpy as np

import steprdu
from steprdu import init_fn, map_fn, accum_fn

MODELS = {"mixtral": (8, 2, 4096, 14336), "qwen": (128, 8, 2048, 768)}  # experts, top-k, hidden, inter
WEIGHTS = ("W_up", "W_gate", "W_down")


def read_routing(path):
    """Rows of expert ids, one per token, from a routing CSV (token,topk0,topk1,...)."""
    with open(path, newline="") as f:
        rows = [[int(v) for v in row[1:]] for row in list(csv.reader(f))[1:]]
    if not rows:
        raise ValueError(f"{path}: no tokens")
    return rows


def softmax_weights(batch, k, seed):
    logits = np.random.default_rng(seed).standard_normal((batch, k))
    e = np.exp(logits)
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def build_moe(routing, experts, hidden, inter, tile_n=16, tile_f=64, compute_bw=None, elem_bytes=2,
              seed=5, values=False):
    """The MoE graph: a steprdu.Graph with tensors x, out, routing_weights and W_up_e, W_gate_e, W_down_e.
    With `values`, the tensors hold random data (for functional runs); otherwise they are generated."""
    E, D, F, tf = experts, hidden, inter, tile_f
    B, K = len(routing), len(routing[0])
    dynamic = tile_n == "dynamic"
    T = 0 if dynamic else int(tile_n)
    nf = F // tf
    bw = compute_bw or (6400 if dynamic else 4096)
    pack_bw = 1024 if dynamic and compute_bw is None else bw
    counts = [sum(row.count(e) for row in routing) for e in range(E)]
    rng = np.random.default_rng(seed)

    g = steprdu.Graph()
    if values:
        g.tensor("x", rng.standard_normal((B, D)).astype(np.float32))
    else:
        g.tensor("x", rows=B, cols=D, init="randn", seed=seed * 1000 + 1)
    g.tensor("out", rows=B, cols=D)
    g.tensor("routing_weights", softmax_weights(B, K, seed * 1000 + 2))
    for e in range(E):
        for which, name in enumerate(WEIGHTS):
            rows, cols = (F, D) if which == 2 else (D, F)
            if values:
                w = (rng.standard_normal((rows, cols)) / np.sqrt(rows)).astype(np.float32)
                g.tensor(f"{name}_{e}", w, cls="weights")
            else:
                g.tensor(f"{name}_{e}", rows=rows, cols=cols, init="randn", seed=seed * 1000 + 10 + e * 3 + which,
                         cls="weights")

    # Routing selectors: multi-hot per token, one-hot per top-k slot.
    multi = [sorted(row) for row in routing]
    one_hot = []
    for row in routing:
        one_hot += [[e] for e in row] + ["S1"]
    one_hot[-1] = "S2"
    sel_multi = g.select_gen(multi, E, [1, B], name="select_tokens")
    sel_one = g.source("selector", [1, B, K], one_hot, {"width": E}, name="select_slots")

    x = g.flatten(g.linear_offchip_load("x", 1, D, [1, 1], [B, 1], elem_bytes=elem_bytes, name="load_x"), 0, 1)
    xs = g.partition(x, sel_multi, 0, E, name="route_x")
    packed = []
    for e in range(E):
        p = f"e{e}."
        if dynamic:
            rows = g.flatten(g.reshape_add_outer(xs[e], 1, False, name=p + "reshape"), 0, 1)
            tile = {"rows": xs[e].shape.dims[0], "cols": D, "elem": "f32"}
        else:
            rows = g.flatten(g.reshape_add_outer(xs[e], T, True, name=p + "reshape"), 1, 2)
            tile = {"rows": T, "cols": D, "elem": "f32"}
        packed.append(g.accum(rows, accum_fn.RetileRow(), init_fn.Empty((0, D)), 1, compute_bw=pack_bw,
                              out_tile=tile, name=p + "pack"))
    for e in range(E):
        g.bind(str(xs[e].shape.dims[0].size), counts[e])

    # Every expert's up loads, then gate, then down, as the scripts make them.
    loads = [[], [], []]
    for which, name in enumerate(WEIGHTS):
        for e in range(E):
            tr, tc = (tf, D) if which == 2 else (D, tf)
            raw = g.linear_offchip_load(f"{name}_{e}", tr, tc, [1, 1], [nf, 1], ref=packed[e], elem_bytes=elem_bytes,
                                        name=f"e{e}.load_{name}")
            loads[which].append(g.flatten(raw, 0, 1))

    outs = []
    for e in range(E):
        p = f"e{e}."
        rep = g.repeat_static(packed[e], nf, name=p + "repeat")
        up = g.map([rep, loads[0][e]], map_fn.Matmul(), compute_bw=bw, name=p + "up")
        gate = g.map([rep, loads[1][e]], map_fn.Matmul(), compute_bw=bw, name=p + "gate")
        h = g.map([g.map([gate], map_fn.Silu(), compute_bw=bw, name=p + "silu"), up], map_fn.Mul(),
                  compute_bw=bw, name=p + "mul")
        init = init_fn.Empty((0, D)) if dynamic else init_fn.Zero((T, D))
        outs.append(g.map_accum(h, loads[2][e], map_fn.Matmul(), init, 1, compute_bw=bw, name=p + "down"))

    rw = g.linear_offchip_load("routing_weights", 1, 1, [K, 1], [B, K], elem_bytes=elem_bytes,
                               name="load_routing_weights")
    ws = g.partition(rw, sel_one, 0, E, name="route_w")
    for e in range(E):
        g.bind(str(ws[e].shape.dims[0].size), counts[e])
    scaled = []
    for e in range(E):
        rows = g.retile_streamify(outs[e], True, True, name=f"e{e}.unpack")
        rows.set_shape(xs[e].shape)  # padding rows dropped: exactly the expert's tokens remain
        scaled.append(g.map([rows, ws[e]], map_fn.Mul(), compute_bw=bw, name=f"e{e}.weight"))
    sel_gather = g.select_gen(multi, E, [1, B], name="select_tokens_gather")
    gathered = g.reassemble(scaled, sel_gather, 0, name="gather")
    gathered.set_shape([1, B, K])  # every token gathers exactly K expert rows
    y = g.accum(gathered, accum_fn.Add(), init_fn.Zero((1, D)), 1, compute_bw=bw, name="combine")
    g.linear_offchip_store(y, "out", name="store_out")
    return g


def reference(tensors, routing, experts):
    """The same MoE in numpy, from the run's input tensors."""
    x, rw = tensors["x"], tensors["routing_weights"]
    out = np.zeros_like(x, dtype=np.float64)
    for t, row in enumerate(routing):
        for j, e in enumerate(row):
            up = x[t] @ tensors[f"W_up_{e}"].astype(np.float64)
            gate = x[t] @ tensors[f"W_gate_{e}"].astype(np.float64)
            h = gate / (1 + np.exp(-gate)) * up
            out[t] += rw[t, j] * (h @ tensors[f"W_down_{e}"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", choices=sorted(MODELS), default="mixtral")
    ap.add_argument("--tile-n", default="16", help="rows per expert tile, or 'dynamic'")
    ap.add_argument("--trace", help="routing CSV (token,topk0,...); default: a random routing of 64 tokens")
    ap.add_argument("--backend", choices=steprdu.BACKENDS, default="roofline")
    ap.add_argument("--hw", default="step_eval")
    ap.add_argument("--small", action="store_true",
                    help="a scaled-down layer (4 experts, top-2, hidden 64, inter 128, 8 tokens) run functionally "
                         "and checked against numpy")
    a = ap.parse_args()
    if a.small:
        rng = np.random.default_rng(1)
        routing = [list(rng.choice(4, 2, replace=False)) for _ in range(8)]
        g = build_moe(routing, 4, 64, 128, tile_n=a.tile_n, tile_f=32, elem_bytes=4, values=True)
        r = steprdu.simulate(g, backend=a.backend, hw=a.hw, functional=a.backend == "cycle")
        check = ""
        if r.tensors:  # the roofline times the program without values
            want = reference(r.tensors, routing, 4)
            check = f", relative error {np.linalg.norm(r.tensors['out'] - want) / np.linalg.norm(want):.2e}"
        print(f"{a.backend}: cycles {r.cycles}, off-chip bytes {r.off_chip_bytes}{check}")
        return
    E, K, D, F = MODELS[a.model]
    if a.trace:
        routing = read_routing(a.trace)
    else:
        rng = np.random.default_rng(5)
        routing = [list(rng.choice(E, K, replace=False)) for _ in range(64)]
    g = build_moe(routing, E, D, F, tile_n=a.tile_n)
    r = steprdu.simulate(g, backend=a.backend, hw=a.hw, timing_elem_bytes=2)
    print(f"{a.model} tile_n={a.tile_n} {a.backend}: cycles {r.cycles}, off-chip bytes {r.off_chip_bytes}, "
          f"on-chip bytes {r['on_chip_bytes']}")


if __name__ == "__main__":
    main()
