"""Run results as Python objects, and run or sweep directories as pandas DataFrames of one schema per kind
(docs/python.md, "Analysis")."""

import csv
import json
import os
import re
import shlex

from steprdu._api import MissingKeyError, guard_class, public
from steprdu._steprdu import BadInputError

STATS_COLUMNS = ["path", "stat", "value", "unit", "description"]
# The metrics of both kinds of frame, as results.csv and result.json name them; the first four are integers.
INT_METRICS = ["cycles", "off_chip_bytes", "on_chip_bytes", "flops"]
FLOAT_METRICS = ["wall_seconds", "compute_utilization", "off_chip_bw_utilization", "pcu_utilization"]
METRICS = INT_METRICS + FLOAT_METRICS
# What `steprdu run` and `steprdu sweep` take when the command line or the spec does not say.
DEFAULT_BACKEND = "roofline"
DEFAULT_HW = "step_eval"
_TEXT_COLUMNS = {"series", "testbench", "backend", "hw", "point", "placement", "status", "error", "run_dir"}


def _flatten_stats(tree, prefix=""):
    """Rows (path, stat, value, unit, description) of a stats tree (docs/stats.md)."""
    rows = []
    for key, node in tree.items():
        if isinstance(node, dict) and "value" in node and not isinstance(node["value"], dict):
            rows.append({"path": prefix.rstrip("."), "stat": key, "value": node["value"],
                         "unit": node.get("unit", ""), "description": node.get("description", "")})
        elif isinstance(node, dict):
            rows.extend(_flatten_stats(node, f"{prefix}{key}."))
    return rows


class _Tensors(dict):
    """A run's tensors by name; a name it lacks is a MissingKeyError saying why."""

    def __init__(self, values, backend, functional):
        super().__init__(values)
        self._backend, self._functional = backend, functional

    def __missing__(self, name):
        if not self:
            raise MissingKeyError(f"Result.tensors['{name}']: this {self._backend} run computed no values; run "
                                  "backend='interp', or backend='cycle' with functional=True")
        raise MissingKeyError(f"Result.tensors['{name}']: expected one of {', '.join(sorted(self))}")


class Result:
    """One run, as steprdu.simulate and steprdu.run return it.

    cycles: simulated cycles (None on the interpreter); off_chip_bytes: the bytes the program's metric says
    it moves; simulated_off_chip_bytes: the bytes the run moved; json: every field of docs/cli.md's result
    object (also result["key"]); stats: the stats tree (docs/stats.md), each stat with its value, unit and
    description; tensors: after a functional run, every off-chip tensor as a 2-D float32 numpy array, by name.
    The artifact's simulate returned (cycles, duration_ms, duration_s): here r.cycles and
    r["wall_seconds"].
    """

    def __init__(self, result, stats=None, tensors=None):
        self.json = result
        self.stats = stats or {}
        self.tensors = _Tensors(tensors or {}, result.get("backend"), result.get("functional"))

    @property
    def cycles(self):
        """Simulated cycles (an int), or None on the interpreter, which has no time."""
        return self.json.get("cycles")

    @property
    def off_chip_bytes(self):
        """Off-chip bytes the program moves by its symbolic metric with the graph's bindings (an int)."""
        return self.json.get("off_chip_bytes")

    @property
    def simulated_off_chip_bytes(self):
        """Off-chip bytes the run itself moved (an int)."""
        return self.json.get("simulated_off_chip_bytes")

    def __getitem__(self, key):
        if key not in self.json:
            raise MissingKeyError(f"Result: key '{key}': expected one of {', '.join(sorted(self.json))} "
                                  "(docs/cli.md, Output keys)")
        return self.json[key]

    def stats_frame(self):
        """The stats as a long DataFrame: one row per stat, columns path, stat, value, unit, description."""
        import pandas as pd

        return pd.DataFrame(_flatten_stats(self.stats), columns=STATS_COLUMNS)

    def __repr__(self):
        return (f"<steprdu.Result {self.json.get('backend')} {self.json.get('testbench')}: "
                f"cycles={self.cycles} off_chip_bytes={self.off_chip_bytes}>")


guard_class(Result)


# Loading. Every column gets one dtype by what it holds: integers -> Int64 (nullable), numbers -> float64,
# true/false -> boolean, anything else text.

_INT = re.compile(r"^[+-]?\d+$")


def _typed(values):
    """A pandas Series of `values` (Python objects or CSV text, None for missing) with its one dtype."""
    import pandas as pd

    present = [v for v in values if v is not None and not (isinstance(v, float) and v != v) and v != ""]

    def is_bool(v):
        return isinstance(v, bool) or (isinstance(v, str) and v in ("true", "false"))

    def is_int(v):
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, str) and bool(_INT.match(v)))

    def is_number(v):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return True
        try:
            float(v)
            return isinstance(v, str)
        except (TypeError, ValueError):
            return False

    missing = [v is None or (isinstance(v, float) and v != v) or v == "" for v in values]
    if present and all(is_bool(v) for v in present):
        return pd.array([None if m else (v is True or v == "true") for v, m in zip(values, missing)],
                        dtype="boolean")
    if present and all(is_int(v) for v in present):
        return pd.array([None if m else int(v) for v, m in zip(values, missing)], dtype="Int64")
    if present and all(is_number(v) for v in present):
        return pd.array([float("nan") if m else float(v) for v, m in zip(values, missing)], dtype="float64")
    return pd.array([None if m else str(v) for v, m in zip(values, missing)], dtype=object)


def _column(name, values):
    """A column of the schema: the metrics' fixed dtypes, the text columns as text, the rest by content."""
    import pandas as pd

    missing = [v is None or (isinstance(v, float) and v != v) or v == "" for v in values]
    if name in INT_METRICS:
        return pd.array([None if m else int(float(v)) for v, m in zip(values, missing)], dtype="Int64")
    if name in FLOAT_METRICS:
        return pd.array([float("nan") if m else float(v) for v, m in zip(values, missing)], dtype="float64")
    if name in _TEXT_COLUMNS:
        return pd.array(["" if m and name == "error" else (None if m else str(v))
                         for v, m in zip(values, missing)], dtype=object)
    return _typed(values)


def _frame(rows, columns):
    """A steprdu frame of dict rows over `columns`, each column typed by _column."""
    data = {c: _column(c, [r.get(c) for r in rows]) for c in columns}
    return _frame_class()(data, columns=columns)


_FRAME = None


def _frame_class():
    """steprdu.Frame: a pandas DataFrame whose `.stats` is the long stats frame of its rows' run directories
    (made on first use, so that importing steprdu does not import pandas)."""
    global _FRAME
    if _FRAME is None:
        import pandas as pd

        class Frame(pd.DataFrame):
            """A pandas DataFrame of runs (steprdu.load): one row per run or sweep point. `.stats` is the long
            stats frame of its rows' run directories (the run_dir column): columns run_dir, path, stat,
            value, unit, description; the interpreter's runs have no stats."""

            @property
            def _constructor(self):
                return Frame

            @property
            def stats(self):
                """The stats of every row's run directory, one row per stat: run_dir, path, stat, value, unit,
                description (empty for runs without stats: the interpreter, failed and pending points)."""
                if "run_dir" not in self.columns:
                    raise BadInputError("Frame.stats: this frame has no run_dir column (it was dropped); load "
                                        "the stats with steprdu.load_stats(run_directory)")
                frames = [load_stats(d) for d in self["run_dir"].dropna().unique()]
                frames = [f for f in frames if len(f)]
                if not frames:
                    return pd.DataFrame(columns=["run_dir", *STATS_COLUMNS])
                return pd.concat(frames, ignore_index=True)

        _FRAME = Frame
    return _FRAME


def _read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise BadInputError(f"load: {path}: expected a JSON file that steprdu wrote, found {e}") from None


def _command_line_run(meta):
    """(testbench, backend, hw, {knob: value}) from a run's meta.json command line (`steprdu run TB k=v ...
    --backend B --hw H`), with the CLI's defaults for what it does not say."""
    try:
        words = shlex.split(meta.get("command_line", ""))
    except ValueError:
        words = []
    testbench, backend, hw, knobs = None, DEFAULT_BACKEND, DEFAULT_HW, {}
    if "run" in words:
        rest = words[words.index("run") + 1:]
        i = 0
        while i < len(rest):
            w = rest[i]
            if w in ("--backend", "--hw") and i + 1 < len(rest):
                backend, hw = (rest[i + 1], hw) if w == "--backend" else (backend, rest[i + 1])
                i += 2
                continue
            if w.startswith("--backend="):
                backend = w.split("=", 1)[1]
            elif w.startswith("--hw="):
                hw = w.split("=", 1)[1]
            elif w in ("--set", "--out", "--trace", "--trace-window", "--max-cycles", "--max-wall-seconds",
                       "--watchdog-cycles"):
                i += 1
            elif not w.startswith("-") and "=" in w:
                k, v = w.split("=", 1)
                knobs[k] = v
            elif not w.startswith("-") and testbench is None:
                testbench = w
            i += 1
    return testbench, backend, hw, knobs


def _run_row(directory):
    """(row, knob names) of a run directory: result.json when it finished, error.json when it failed."""
    result_path = os.path.join(directory, "result.json")
    if os.path.isfile(result_path):
        r = _read_json(result_path)
        knobs = r.get("params") if isinstance(r.get("params"), dict) else {}
        row = {"testbench": r.get("testbench"), "backend": r.get("backend"), "hw": r.get("hw"),
               **{k: v for k, v in knobs.items() if not isinstance(v, (dict, list))},
               **{m: r.get(m) for m in METRICS}, "status": "ok", "error": "", "run_dir": directory}
        return row, [k for k, v in knobs.items() if not isinstance(v, (dict, list))]
    error = _read_json(os.path.join(directory, "error.json"))
    meta_path = os.path.join(directory, "meta.json")
    meta = _read_json(meta_path) if os.path.isfile(meta_path) else {}
    testbench, backend, hw, knobs = _command_line_run(meta)
    row = {"testbench": testbench, "backend": backend, "hw": hw, **knobs, "status": "failed",
           "error": error.get("message", "") if isinstance(error, dict) else str(error), "run_dir": directory}
    return row, list(knobs)


def _load_run(directory):
    row, knobs = _run_row(directory)
    columns = ["testbench", "backend", "hw", *knobs, *METRICS, "status", "error", "run_dir"]
    return _frame([row], columns)


def _read_manifest(directory):
    """{point id: manifest entry} of a sweep directory; {} when it has none."""
    path = os.path.join(directory, "manifest.jsonl")
    if not os.path.isfile(path):
        return {}
    points = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                p = json.loads(line)
                points[p["id"]] = p
            except (ValueError, KeyError, TypeError):
                raise BadInputError(f"load: {path}:{n}: expected a sweep manifest line with an id") from None
    return points


def _check_results_header(path):
    with open(path, newline="") as f:
        header = next(csv.reader(f), None)
    if not header:
        raise BadInputError(f"load: {path}: empty; expected a sweep's results.csv with a header row")
    if header[:3] == ["path", "value", "unit"]:
        d = os.path.dirname(path) or "."
        raise BadInputError(f"load: {path}: a run's stats file, not a sweep's results.csv; load its run "
                            f"directory instead: steprdu.load('{d}') (its .stats is the long stats frame)")
    if header[0] != "series" or header[-4:] != ["point", "placement", "status", "error"]:
        raise BadInputError(f"load: {path}: expected a sweep's results.csv (columns series, <axes>, cycles, ..., "
                            f"point, placement, status, error), found columns {', '.join(header[:8])}"
                            + (", ..." if len(header) > 8 else ""))
    return header


def _load_sweep(results_path):
    import pandas as pd

    header = _check_results_header(results_path)
    directory = os.path.dirname(results_path) or "."
    manifest = _read_manifest(directory)
    text = pd.read_csv(results_path, dtype=str, keep_default_na=False)
    rows = text.to_dict("records")
    metrics_at = next((i for i, c in enumerate(header) if c in METRICS), len(header) - 4)
    axes = header[1:metrics_at]
    filled = ["testbench", "backend", "hw"]
    for row in rows:
        point = manifest.get(row.get("point"), {})
        knobs = dict(k.split("=", 1) for k in point.get("knobs", []) if "=" in k)
        sets = dict(s.split("=", 1) for s in point.get("sets", []) if "=" in s)
        # Where a series did not sweep an axis, its effective value: the manifest's (the spec's default).
        for col in filled:
            if not row.get(col):
                row[col] = point.get(col) or {"backend": DEFAULT_BACKEND, "hw": DEFAULT_HW}.get(col)
        for axis in axes:
            if row.get(axis):
                continue
            if axis.startswith("hw.") and axis[3:] in sets:
                row[axis] = sets[axis[3:]]
            elif axis in knobs:
                row[axis] = knobs[axis]
        status = row.get("status")
        sub = {"ok": "points", "failed": "failed"}.get(status)
        row["run_dir"] = os.path.join(directory, sub, row["point"]) if sub and row.get("point") else None
    columns = ["series", *axes, *[c for c in filled if c not in axes], *header[metrics_at:], "run_dir"]
    return _frame(rows, columns)


@public
def load(path):
    """Loads runs into a pandas DataFrame (a steprdu Frame), one row per run, whatever the backend:

    * a run directory (`steprdu run --out DIR`): one row with testbench, backend, hw, one column per knob
      (result.json's params), cycles, off_chip_bytes, on_chip_bytes, flops, wall_seconds,
      compute_utilization, off_chip_bw_utilization, pcu_utilization, status ('ok' or 'failed'), error and
      run_dir;
    * a sweep directory (`steprdu sweep --out DIR`) or its results.csv: one row per point with series, the
      axes, testbench, backend and hw (the effective value where a series did not sweep that axis), the
      same metrics, point, placement (a cycle-level point's shared place and route), status ('ok', 'failed'
      or 'pending'), error and run_dir.

    Integer columns are pandas' nullable Int64 (missing values stay integers), numbers float64, true/false
    boolean. `.stats` of the frame is the long stats frame of its rows (steprdu.load_stats for one directory).
    Anything else (a stats.csv, another CSV, a missing path) is refused with a BadInputError naming the file
    and what was expected.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise BadInputError(f"load: path: expected a directory or file path, found {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise BadInputError(f"load: {path}: no such file or directory; expected a sweep directory (steprdu sweep "
                            "--out), its results.csv or a run directory (steprdu run --out)")
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "results.csv")):
            return _load_sweep(os.path.join(path, "results.csv"))
        if os.path.isfile(os.path.join(path, "manifest.jsonl")):
            raise BadInputError(f"load: {path}: a sweep directory without results.csv; write it with "
                                f"`steprdu collect {path}`")
        if os.path.isfile(os.path.join(path, "result.json")) or os.path.isfile(os.path.join(path, "error.json")):
            return _load_run(path)
        raise BadInputError(f"load: {path}: expected a sweep directory (results.csv) or a run directory "
                            "(result.json or error.json), found neither")
    if os.path.basename(path) in ("result.json", "stats.json", "error.json", "meta.json"):
        raise BadInputError(f"load: {path}: a file of a run directory; load the directory itself: "
                            f"steprdu.load('{os.path.dirname(path) or '.'}')")
    if not path.endswith(".csv"):
        raise BadInputError(f"load: {path}: expected a directory or a sweep's results.csv, found another file")
    return _load_sweep(path)


@public
def load_stats(path):
    """The long stats frame of one run directory (`steprdu run --out DIR` or a sweep's points/<id>): one row per
    stat with columns run_dir, path, stat, value, unit, description (docs/stats.md). A run without stats
    (the interpreter's, a failed one) gives an empty frame with these columns."""
    import pandas as pd

    if not isinstance(path, (str, os.PathLike)) or not os.path.isdir(path):
        raise BadInputError(f"load_stats: {path}: expected a run directory (steprdu run --out)")
    path = os.fspath(path)
    if not any(os.path.isfile(os.path.join(path, f)) for f in ("result.json", "error.json")):
        raise BadInputError(f"load_stats: {path}: expected a run directory (result.json), found none")
    stats_path = os.path.join(path, "stats.json")
    rows = _flatten_stats(_read_json(stats_path)) if os.path.isfile(stats_path) else []
    frame = pd.DataFrame(rows, columns=STATS_COLUMNS)
    frame.insert(0, "run_dir", path)
    return frame
