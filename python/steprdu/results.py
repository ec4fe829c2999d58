"""Run results as Python objects, and run or sweep directories as pandas DataFrames."""

import csv
import json
import os

from steprdu._steprdu import BadInputError


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


class Result:
    """One run: `cycles` (None on the interpreter), `off_chip_bytes`, `stats` (the stats tree, each stat with
    its value, unit and description), `json` (every field of docs/cli.md's result object) and, after a
    functional run, `tensors` (every off-chip tensor as a 2-D numpy array, by name)."""

    def __init__(self, result, stats=None, tensors=None):
        self.json = result
        self.stats = stats or {}
        self.tensors = tensors or {}

    @property
    def cycles(self):
        return self.json.get("cycles")

    @property
    def off_chip_bytes(self):
        """Off-chip bytes the program moves (its metric, as `steprdu run` reports it)."""
        return self.json.get("off_chip_bytes")

    @property
    def simulated_off_chip_bytes(self):
        return self.json.get("simulated_off_chip_bytes")

    def __getitem__(self, key):
        return self.json[key]

    def stats_frame(self):
        """The stats as a DataFrame: path, stat, value, unit, description."""
        import pandas as pd

        return pd.DataFrame(_flatten_stats(self.stats), columns=["path", "stat", "value", "unit", "description"])

    def __repr__(self):
        return (f"<steprdu.Result {self.json.get('backend')} {self.json.get('testbench')}: "
                f"cycles={self.cycles} off_chip_bytes={self.off_chip_bytes}>")


def load(path):
    """A DataFrame of a sweep directory (its results.csv, one row per point with `status` and `error`), a
    results.csv file, or a run directory (`steprdu run --out`: its stats, one row per stat)."""
    import pandas as pd

    if not isinstance(path, (str, os.PathLike)):
        raise BadInputError(f"load: expected a directory or file path, found {type(path).__name__}")
    path = os.fspath(path)
    if os.path.isdir(path) and os.path.exists(os.path.join(path, "results.csv")):
        path = os.path.join(path, "results.csv")
    if os.path.isfile(path) and path.endswith(".csv"):
        with open(path, newline="") as f:
            header = next(csv.reader(f), None)
        if not header:
            raise BadInputError(f"{path}: empty; expected a results.csv with a header row")
        frame = pd.read_csv(path, dtype={"point": str, "series": str}, keep_default_na=False, na_values=[""])
        if "error" in frame.columns:
            frame["error"] = frame["error"].fillna("")
        return frame
    if os.path.isdir(path) and os.path.exists(os.path.join(path, "stats.json")):
        with open(os.path.join(path, "stats.json")) as f:
            stats = json.load(f)
        return pd.DataFrame(_flatten_stats(stats), columns=["path", "stat", "value", "unit", "description"])
    if os.path.isdir(path) and os.path.exists(os.path.join(path, "result.json")):
        with open(os.path.join(path, "result.json")) as f:
            result = json.load(f)
        flat = {k: v for k, v in result.items() if not isinstance(v, (dict, list))}
        return pd.DataFrame([flat])
    raise BadInputError(f"load: {path}: expected a sweep directory (results.csv), a results.csv file or a run "
                        "directory (stats.json or result.json)")
