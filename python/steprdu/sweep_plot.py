"""A picture of any sweep: the swept axis against cycles (or another column of results.csv), one series per
backend, series label and value of the other axes, failed points marked.

Used by `steprdu plot DIR` (which runs this file as a script, so it needs only matplotlib) and by
`steprdu.plot(DIR)`. Input: a sweep directory of `steprdu sweep` (manifest.jsonl and results.csv).
"""
import argparse
import csv
import json
import math
import os
import sys

WIDTH, HEIGHT, DPI = 10.0, 6.0, 100  # 1000 x 600 pixels
NOT_Y = {"series", "point", "placement", "status", "error"}


class PlotError(Exception):
    """A sweep directory or option that cannot be plotted; the message names the file or option."""


def _read_sweep(sweep_dir):
    manifest = os.path.join(sweep_dir, "manifest.jsonl")
    results = os.path.join(sweep_dir, "results.csv")
    for path in (manifest, results):
        if not os.path.exists(path):
            raise PlotError(f"{path}: not found (expected a directory written by `steprdu sweep`)")
    points = {}
    with open(manifest) as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    p = json.loads(line)
                    points[p["id"]] = p
                except (ValueError, KeyError) as e:
                    raise PlotError(f"{manifest}:{n}: expected a JSON object with an id, found {line.strip()!r}") \
                        from e
    with open(results, newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        columns = reader.fieldnames or []
    if "point" not in columns:
        raise PlotError(f"{results}: expected a 'point' column, found {', '.join(columns) or 'no header'}")
    return points, rows, columns


def _number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def plot(sweep_dir, x=None, y="cycles", out=None, logy=False):
    """Draws DIR/results.csv as a PNG (default DIR/plot.png) and returns what was drawn:
    {"out": path, "x": axis, "y": column, "series": {label: points drawn}, "failed": points failed,
    "pending": points not run}."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.transforms import blended_transform_factory

    points, rows, columns = _read_sweep(sweep_dir)
    axes = []
    for p in points.values():
        for name, _ in p.get("axes", []):
            if name not in axes:
                axes.append(name)
    x = x or (axes[0] if axes else None)
    if x is None:
        raise PlotError(f"{sweep_dir}: the sweep has no axis to plot against")
    if x not in axes:
        raise PlotError(f"--x: expected one of the sweep's axes ({', '.join(axes)}), found {x!r}")
    numeric = [c for c in columns if c not in NOT_Y and c not in axes]
    if y not in columns or y in NOT_Y:
        raise PlotError(f"--y: expected a column of {os.path.join(sweep_dir, 'results.csv')} "
                        f"({', '.join(numeric)}), found {y!r}")

    def axis_values(p):
        return dict((k, str(v)) for k, v in p.get("axes", []))

    # One series per backend, label and value of every other axis; x positions in order of first appearance
    # unless every value is a number.
    series, xs = {}, []
    failed, pending = [], 0
    backends = {p.get("backend") for p in points.values()}
    for r in rows:
        p = points.get(r["point"], {})
        av = axis_values(p)
        xv = av.get(x, r.get(x, ""))
        if xv not in xs:
            xs.append(xv)
        parts = []
        if len(backends) > 1:
            parts.append(p.get("backend", "?"))
        if p.get("series"):
            parts.append(p["series"])
        parts += [f"{k}={v}" for k, v in av.items() if k not in (x, "backend")]
        label = " / ".join(parts) or "all"
        status = r.get("status", "ok")
        if status == "failed":
            failed.append((xv, label))
        elif status != "ok":
            pending += 1
        else:
            series.setdefault(label, []).append((xv, _number(r[y])))
    numeric_x = all(not math.isnan(_number(v)) for v in xs)
    pos = (lambda v: _number(v)) if numeric_x else (lambda v: float(xs.index(v)))

    fig, ax = plt.subplots(figsize=(WIDTH, HEIGHT), dpi=DPI)
    drawn = {}
    for label, pts in series.items():
        pts = sorted(pts, key=lambda t: pos(t[0]))
        ax.plot([pos(v) for v, _ in pts], [v for _, v in pts], marker="o", label=label)
        drawn[label] = len(pts)
    # Failed points at the foot of the plot (they have no value to place them by), one marker per series.
    foot = blended_transform_factory(ax.transData, ax.transAxes)
    for k, label in enumerate(dict.fromkeys(lbl for _, lbl in failed)):
        at = [pos(v) for v, lbl in failed if lbl == label]
        ax.scatter(at, [0.03 + 0.04 * k] * len(at), marker="x", s=80, color="red", zorder=5, transform=foot,
                   label=f"failed: {label} ({len(at)})")
    values = [_number(v) for v in xs]
    if not numeric_x:
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs, rotation=30 if len(xs) > 6 else 0)
    elif len(xs) > 2 and min(values) > 0 and max(values) / min(values) >= 16:
        # Sizes and rates swept by factors: a log axis, ticked at the values swept.
        ax.set_xscale("log", base=2)
        ax.set_xticks(values)
        ax.set_xticklabels(xs)
    if logy:
        ax.set_yscale("log")
    name = os.path.basename(os.path.normpath(sweep_dir))
    notes = [f"{backends.pop()} backend"] if len(backends) == 1 else []
    notes += [f"{pending} points not run"] if pending else []
    ax.set_title(f"{name}: {y} against {x}" + (f" ({', '.join(notes)})" if notes else ""))
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.grid(alpha=0.3)
    if drawn or failed:
        ax.legend(fontsize=8)
    fig.tight_layout()
    out = out or os.path.join(sweep_dir, "plot.png")
    fig.savefig(out)
    plt.close(fig)
    return {"out": out, "x": x, "y": y, "series": drawn, "failed": len(failed), "pending": pending}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="steprdu plot", description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="a sweep directory (steprdu sweep --out)")
    ap.add_argument("--x", help="the swept axis along x (default: the sweep's first axis)")
    ap.add_argument("--y", default="cycles", help="the results.csv column along y (default: cycles)")
    ap.add_argument("--out", help="the PNG to write (default: DIR/plot.png)")
    ap.add_argument("--logy", action="store_true", help="a logarithmic y axis")
    ap.add_argument("--json", action="store_true", help="print what was drawn as one JSON object")
    args = ap.parse_args(argv)
    try:
        info = plot(args.dir, x=args.x, y=args.y, out=args.out, logy=args.logy)
    except PlotError as e:
        print(f"steprdu: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"steprdu: error: plotting needs matplotlib for {sys.executable} (Debian: python3-matplotlib, "
              f"which make deps installs): {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(info))
    else:
        print(f"wrote {info['out']}: {info['y']} against {info['x']}, {len(info['series'])} series"
              + (f", {info['failed']} failed points marked" if info["failed"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
