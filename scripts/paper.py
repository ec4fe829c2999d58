#!/usr/bin/env python3
"""Draws the paper's figures from the sweeps `make paper` ran, and writes results/paper.md.

Input: RESULTS/sweeps/<figure>-<backend>/results.csv (steprdu collect's format) and, if present,
RESULTS/claims.json (steprdu experiment claims --json). Output: RESULTS/figures/<figure>.png, each with the
roofline and the cycle-level backend side by side, and RESULTS/paper.md. Figures whose sweeps are missing
are skipped with a message.

With --gallery DIR (make paper passes docs/figures), the README's figures also go to DIR, each beside a CSV of
the points it was drawn from (each point's run, so tests/python/test_gallery.py can recompute some with the
current code), and the PNG records the CSV's SHA-256, so a CSV edited by hand no longer matches its picture.
"""
import argparse
import csv
import hashlib
import io
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BACKENDS = [("roofline", "roofline"), ("cycle", "cycle-level")]
WIDTH, HEIGHT, DPI = 12.0, 4.5, 100  # every figure is 1200 x 450 pixels


def read(results, figure, backend):
    path = os.path.join(results, "sweeps", f"{figure}-{backend}", "results.csv")
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:  # finished points only (failed and pending ones have no metrics)
        return [row for row in csv.DictReader(f) if row.get("status", "ok") == "ok"]


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def short_trace(path):
    """conv_stdev0996_4007_4070.csv -> 'sd 996'."""
    base = os.path.basename(path)
    if base.startswith("conv_stdev"):
        return "sd " + str(int(base[len("conv_stdev"):len("conv_stdev") + 4]))
    return base


def lines(ax, rows, x, y, group, title, xlabel, ylabel, xfmt=str, logy=False):
    xs = []
    for r in rows:
        if r[x] not in xs:
            xs.append(r[x])
    groups = []
    for r in rows:
        if r[group] not in groups:
            groups.append(r[group])
    for g in groups:
        pts = {r[x]: num(r[y]) for r in rows if r[group] == g}
        ax.plot(range(len(xs)), [pts.get(v, math.nan) for v in xs], marker="o", label=g or "all")
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels([xfmt(v) for v in xs], rotation=30 if len(xs) > 6 else 0, fontsize=8)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logy:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def pearson(a, b):
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    sa = math.sqrt(sum((x - ma) ** 2 for x in a))
    sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (sa * sb) if sa and sb else math.nan


def fig8(results):
    roof, cyc = read(results, "fig8", "roofline"), read(results, "fig8", "cycle")
    if not roof or not cyc:
        return None, {}
    key = lambda r: (r["tile_b"], r["tile_inter"])  # noqa: E731
    c = {key(r): num(r["cycles"]) for r in cyc}
    pairs = [(num(r["cycles"]), c[key(r)]) for r in roof if key(r) in c]
    rv, cv = [p[0] for p in pairs], [p[1] for p in pairs]
    r = pearson(rv, cv)
    fig, (a, b) = plt.subplots(1, 2, figsize=(WIDTH, HEIGHT), dpi=DPI)
    a.scatter(rv, cv, label=f"15 SwiGLU tile shapes, Pearson r = {r:.3f}")
    lo, hi = min(rv + cv), max(rv + cv)
    a.plot([lo, hi], [lo, hi], "k--", lw=0.8, label="cycle-level = roofline")
    a.set_xlabel("roofline cycles")
    a.set_ylabel("cycle-level cycles")
    a.set_title("Fig 8: cycle-level against roofline (paper: HDL against simulator)", fontsize=10)
    a.legend(fontsize=8)
    a.grid(alpha=0.3)
    rows = [dict(r, backend="roofline") for r in roof] + [dict(r, backend="cycle-level") for r in cyc]
    for row in rows:
        row["shape"] = f"{row['tile_b']}x{row['tile_inter']}"
    lines(b, rows, "shape", "off_chip_bytes", "backend", "off-chip traffic per tile shape (tile_b x tile_inter)",
          "tile shape", "off-chip bytes")
    return fig, {"Fig 8 Pearson r, cycle-level vs roofline (paper: 0.99 HDL vs simulator)": f"{r:.3f}"}


def side_by_side(results, figure, x, group, y, title, xlabel, ylabel, xfmt=str, logy=False, panels=None):
    """One panel per backend (and per value of `panels`, if given)."""
    data = [(label, read(results, figure, b)) for b, label in BACKENDS]
    data = [(label, rows) for label, rows in data if rows]
    if not data:
        return None
    keys = [None]
    if panels:
        keys = []
        for _, rows in data:
            for r in rows:
                if r[panels] not in keys:
                    keys.append(r[panels])
    fig, axes = plt.subplots(len(keys), len(data), figsize=(WIDTH, HEIGHT * (1 if len(keys) == 1 else 0.75 * len(keys))),
                             dpi=DPI, squeeze=False)
    for i, k in enumerate(keys):
        for j, (label, rows) in enumerate(data):
            sel = [r for r in rows if k is None or r[panels] == k]
            lines(axes[i][j], sel, x, y, group, f"{title} ({label}{', ' + k if k else ''})", xlabel, ylabel, xfmt,
                  logy)
    fig.tight_layout()
    return fig


def fig17(results):
    """Each model's three decoder-layer variants on each backend, normalised to that model's memory-matched
    layer on the same backend: cycles, on-chip memory and allocated compute (flops / cycles / utilisation)."""
    data = [(label, read(results, "fig17", b)) for b, label in BACKENDS]
    data = [(label, rows) for label, rows in data if rows]
    if not data:
        return None, {}
    variants = ["memory_matched", "performance_matched", "optimized"]
    groups = []  # (model, backend label, rows of that model)
    for label, rows in data:
        for r in rows:
            if not any(g[0] == r["series"] and g[1] == label for g in groups):
                groups.append((r["series"], label, [x for x in rows if x["series"] == r["series"]]))
    groups.sort(key=lambda g: g[0])

    def metric(r, y):
        if y == "allocated":
            return num(r["flops"]) / num(r["cycles"]) / num(r["compute_utilization"])
        return num(r[y])

    fig, axes = plt.subplots(1, 3, figsize=(WIDTH, HEIGHT), dpi=DPI)
    fig.suptitle("Fig 17: decoder layers, each model and backend relative to its memory-matched layer")
    for ax, (y, title) in zip(axes, [("cycles", "cycles"), ("on_chip_bytes", "on-chip memory"),
                                     ("allocated", "allocated compute")]):
        width = 0.8 / len(variants)
        for i, v in enumerate(variants):
            vals = []
            for _, _, rows in groups:
                pick = {r["variant"]: r for r in rows}
                ok = v in pick and "memory_matched" in pick
                vals.append(metric(pick[v], y) / metric(pick["memory_matched"], y) if ok else math.nan)
            ax.bar([k + (i - 1) * width for k in range(len(groups))], vals, width, label=v.replace("_", "-"))
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([f"{m}\n{b}" for m, b, _ in groups], fontsize=8)
        ax.set_title(f"{title}, relative", fontsize=10)
        ax.axhline(1, color="k", lw=0.5)
        ax.legend(fontsize=8)
    return fig, {}


def read_system(results, name):
    path = os.path.join(results, "system", name, name.split("-")[0] + ".csv")
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


CONFIGS = [("operator", "software", "unfused + SO"), ("layer", "software", "fused + SO"),
           ("layer", "hardware", "fused + HO"), ("layer", "looping", "fused + looping")]


def sn40l_fig10(results):
    """Llama2-7B 4K decode on one sn40l socket: tokens/s per configuration and batch on each backend, the time
    split of batch 8, and the host round trip swept (speed-up of fusion and of hardware orchestration)."""
    data = [(label, read_system(results, f"sn40l_fig10-{b}")) for b, label in BACKENDS]
    data = [(label, rows) for label, rows in data if rows]
    if not data:
        return None, {}
    fig, axes = plt.subplots(1, 3, figsize=(WIDTH, HEIGHT), dpi=DPI)
    fig.suptitle("SN40L Fig 10 on one socket: Llama2-7B decode at 4K, programs of kernels")
    ax = axes[0]
    bars = [(label, b) for label, rows in data for b in sorted({r["batch"] for r in rows if r["workload"] == "decode"},
                                                                key=int)]
    width = 0.8 / len(CONFIGS)
    headlines = {}
    for i, (fusion, orch, name) in enumerate(CONFIGS):
        vals = []
        for label, b in bars:
            rows = dict(data)[label]
            pick = [r for r in rows if r["workload"] == "decode" and r["batch"] == b and r["fusion"] == fusion
                    and r["orchestration"] == orch]
            vals.append(num(pick[0]["tokens_per_s"]) if pick else math.nan)
        ax.bar([k + (i - 1.5) * width for k in range(len(bars))], vals, width, label=name)
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([f"b{b}\n{label}" for label, b in bars], fontsize=8)
    ax.set_ylabel("tokens/s")
    ax.set_title("decode throughput", fontsize=10)
    ax.legend(fontsize=7)
    ax = axes[1]
    label, rows = data[-1]
    parts = [("host_ms", "host"), ("program_load_ms", "program load"), ("argument_load_ms", "argument load"),
             ("execute_ms", "execute")]
    picks = []
    for fusion, orch, name in CONFIGS:
        p = [r for r in rows if r["workload"] == "decode" and r["batch"] == "8" and r["fusion"] == fusion
             and r["orchestration"] == orch]
        if p:
            picks.append((name, p[0]))
    bottom = [0.0] * len(picks)
    for key, part in parts:
        vals = [num(r[key]) for _, r in picks]
        ax.bar(range(len(picks)), vals, 0.6, bottom=bottom, label=part)
        bottom = [a + b for a, b in zip(bottom, vals)]
    ax.set_xticks(range(len(picks)))
    ax.set_xticklabels([n.replace(" + ", "\n") for n, _ in picks], fontsize=8)
    ax.set_ylabel("ms per decode step")
    ax.set_title(f"time split, batch 8, {label}", fontsize=10)
    ax.legend(fontsize=7)
    ax = axes[2]
    for label, rows in data:
        for b in ("1", "8"):
            sweep = [r for r in rows if r["workload"] == "decode_host_sweep" and r["batch"] == b]
            xs = sorted({num(r["host_round_trip_us"]) for r in sweep})
            ho = [num(next(r for r in sweep if num(r["host_round_trip_us"]) == x and r["orchestration"] == "hardware")
                      ["ho_over_so"]) for x in xs]
            fu = [num(next(r for r in sweep if num(r["host_round_trip_us"]) == x and r["orchestration"] == "hardware")
                      ["speedup_over_unfused"]) for x in xs]
            ax.plot(xs, ho, marker="o", label=f"HO / SO, b{b} {label}")
            ax.plot(xs, fu, marker="s", ls="--", label=f"fused HO / unfused SO, b{b} {label}")
            for r in rows:
                if r["workload"] == "decode" and r["batch"] == b and r["orchestration"] == "hardware":
                    headlines[f"sn40l_fig10 b{b} {label}: fused HO over unfused SO"] = f"{num(r['speedup_over_unfused']):.2f}x"
    ax.axhspan(1.4, 8, color="0.9", label="paper: HO / SO on decode 1.4-8x")
    ax.set_xscale("log")
    ax.set_xlabel("host round trip, us (launch.host_round_trip_us)")
    ax.set_ylabel("speed-up")
    ax.set_title("where each regime begins", fontsize=10)
    ax.legend(fontsize=6)
    return fig, headlines


def sn40l_fig11(results):
    """Kernel calls per forward pass, unfused and fused, beside the paper's 11x for llama7B-4k prefill."""
    rows = read_system(results, "sn40l_fig11")
    if not rows:
        return None, {}
    fig, ax = plt.subplots(1, 1, figsize=(WIDTH, HEIGHT), dpi=DPI)
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [num(r["unfused_calls"]) for r in rows], 0.4, label="unfused")
    ax.bar([x + 0.2 for x in xs], [num(r["fused_calls"]) for r in rows], 0.4, label="fused")
    for x, r in zip(xs, rows):
        paper = f", paper {num(r['paper_ratio']):g}x" if r["paper_ratio"] else ""
        ax.annotate(f"{num(r['ratio']):.1f}x{paper}", (x, num(r["unfused_calls"])), ha="center", va="bottom")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r["workload"] for r in rows])
    ax.set_ylabel("kernel calls per forward pass")
    ax.set_title("SN40L Fig 11: kernel calls, unfused / fused (Llama2-7B, 32 layers)")
    ax.legend()
    return fig, {}


# The README's gallery (docs/figures): these figures, each with the CSV of its points.
GALLERY = ["fig8", "fig9", "fig14", "fig17"]
GALLERY_COLUMNS = ["backend", "series", "testbench", "hw", "knobs", "sets", "cycles", "off_chip_bytes",
                   "on_chip_bytes", "flops", "compute_utilization", "wall_seconds", "pnr_seconds"]


def gallery_csv(results, figure, shared):
    """The points a figure was drawn from, with each point's run: knobs and sets joined by ';', the shared data
    folder written {shared}."""
    out = io.StringIO()
    w = csv.DictWriter(out, GALLERY_COLUMNS, lineterminator="\n")
    w.writeheader()
    for backend, _ in BACKENDS:
        rows = read(results, figure, backend)
        if not rows:
            continue
        manifest = {}
        with open(os.path.join(results, "sweeps", f"{figure}-{backend}", "manifest.jsonl")) as f:
            for line in f:
                if line.strip():
                    p = json.loads(line)
                    manifest[p["id"]] = p
        for r in rows:
            p = manifest[r["point"]]
            rel = lambda v: v.replace(shared, "{shared}") if shared else v  # noqa: E731
            # Place and route, done once per structure before the points ran (summed over its threads).
            pnr = 0.0
            if r.get("placement"):
                with open(os.path.join(results, "sweeps", f"{figure}-{backend}", r["placement"])) as f:
                    pnr = sum(json.load(f).get("seconds", {}).values())
            w.writerow({"backend": p["backend"], "series": p.get("series", ""), "testbench": p["testbench"],
                        "hw": p["hw"], "knobs": ";".join(rel(k) for k in p["knobs"]),
                        "sets": ";".join(p.get("sets", [])),
                        **{c: r.get(c, "") for c in GALLERY_COLUMNS[6:-1]}, "pnr_seconds": f"{pnr:.3f}"})
    return out.getvalue()


FIGURES = [
    ("fig8", "Fig 8: SwiGLU tile sweep, cycle-level against roofline", fig8),
    ("fig9", "Fig 9: MoE batch 64, static tiles vs dynamic tiling",
     lambda r: (side_by_side(r, "fig9", "tile_n", "series", "cycles", "MoE b64", "tile_n", "cycles"), {})),
    ("fig10", "Fig 10: MoE batch 1024, static tiles vs dynamic tiling",
     lambda r: (side_by_side(r, "fig10", "tile_n", "series", "cycles", "MoE b1024", "tile_n", "cycles"), {})),
    ("fig12_13", "Figs 12/13: time-multiplexing (experts per region), cycles",
     lambda r: (side_by_side(r, "fig12_13", "regions", "series", "cycles", "Qwen b64", "regions", "cycles"), {})),
    ("fig14", "Fig 14: attention b64, static interleaved vs dynamic",
     lambda r: (side_by_side(r, "fig14", "trace", "strategy", "cycles", "attention b64", "KV trace (stdev)",
                             "cycles", short_trace), {})),
    ("fig15", "Fig 15: attention, static coarse vs dynamic, batch 16-64",
     lambda r: (side_by_side(r, "fig15", "batch", "series", "cycles", "attention", "batch", "cycles"), {})),
    ("fig17", "Fig 17: decoder layers, memory-matched / performance-matched / optimized", fig17),
    ("fig21", "Fig 21: attention, three strategies, batches 16/64/80",
     lambda r: (side_by_side(r, "fig21", "trace", "strategy", "cycles", "attention", "KV trace (stdev)", "cycles",
                             short_trace, panels="series"), {})),
    ("sn40l_fig10", "SN40L Fig 10 on one socket: Llama2-7B decode, unfused / fused, SO / HO / looping", sn40l_fig10),
    ("sn40l_fig11", "SN40L Fig 11: kernel calls unfused / fused", sn40l_fig11),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="the results directory of make paper (holds sweeps/)")
    ap.add_argument("--gallery", help="also write the README's figures and their CSVs here (docs/figures)")
    ap.add_argument("--shared", help="the shared data folder the sweeps ran with, written {shared} in the CSVs")
    args = ap.parse_args()
    out = os.path.join(args.results, "figures")
    os.makedirs(out, exist_ok=True)
    drawn, headlines = [], {}
    for name, caption, draw in FIGURES:
        fig, numbers = draw(args.results)
        if fig is None:
            print(f"paper.py: {name}: no sweep results, skipped", file=sys.stderr)
            continue
        fig.tight_layout()
        path = os.path.join(out, f"{name}.png")
        fig.savefig(path)
        if args.gallery and name in GALLERY:
            os.makedirs(args.gallery, exist_ok=True)
            text = gallery_csv(args.results, name, args.shared)
            with open(os.path.join(args.gallery, f"{name}.csv"), "w") as f:
                f.write(text)
            digest = hashlib.sha256(text.encode()).hexdigest()
            fig.savefig(os.path.join(args.gallery, f"{name}.png"), metadata={"Description": f"csv-sha256 {digest}"})
            print(os.path.join(args.gallery, f"{name}.png"))
        plt.close(fig)
        drawn.append((name, caption))
        headlines.update(numbers)
        print(path)
    md = ["# steprdu: the paper's figures", "",
          "Generated by `make paper` (scripts/paper.sh, scripts/paper.py): each figure spec of configs/experiments/ "
          "swept on the roofline backend and, where it runs in minutes, on the cycle-level backend.", ""]
    claims = os.path.join(args.results, "claims.json")
    if os.path.exists(claims):
        with open(claims) as f:
            c = json.load(f)
        md += ["## Headline numbers (roofline backend) next to the paper's", "",
               "| figure | claim | paper | steprdu | holds |", "|---|---|---|---|---|"]
        for k in c["claims"]:
            paper = k.get("paper")
            meas = k.get("measured")
            fmtv = lambda v: f"{v:.4g}" if isinstance(v, (int, float)) else str(v)  # noqa: E731
            md.append(f"| {k.get('figure', '')} | {k['claim']} | {fmtv(paper)} | {fmtv(meas)} | "
                      f"{'yes' if k.get('holds') else 'NO'} |")
        md.append("")
    if headlines:
        md += ["## Cycle-level", ""] + [f"* {k}: {v}" for k, v in headlines.items()] + [""]
    md += ["## Figures", ""]
    for name, caption in drawn:
        md += [f"### {caption}", "", f"![{name}](figures/{name}.png)", ""]
    with open(os.path.join(args.results, "paper.md"), "w") as f:
        f.write("\n".join(md))
    print(os.path.join(args.results, "paper.md"))
    return 0 if drawn else 1


if __name__ == "__main__":
    sys.exit(main())
