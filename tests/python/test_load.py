"""steprdu.load: one schema per kind. A run directory is one row on every backend (its stats in `.stats`), a sweep
one row per point with the effective backend and hardware filled in and integer knobs kept integers, and anything
else is refused naming the file."""

import subprocess

import pandas as pd
import pytest

import steprdu

GEMM = ["gemm", "m=64", "k=64", "n=64", "tile_m=32", "tile_k=32", "tile_n=32"]
RUN_COLUMNS = ["testbench", "backend", "hw", "b_class", "batch", "compute_bw", "elem_bytes", "k", "m", "n",
               "par_dispatch", "regions", "seed", "split", "tile_k", "tile_m", "tile_n", "cycles", "off_chip_bytes", "on_chip_bytes", "flops", "wall_seconds",
               "compute_utilization", "off_chip_bw_utilization", "pcu_utilization", "status", "error", "run_dir"]


@pytest.fixture(scope="module")
def run_dirs(binary, tmp_path_factory):
    """A small GEMM's run directory on each backend."""
    root = tmp_path_factory.mktemp("runs")
    for backend in ("interp", "roofline", "cycle"):
        subprocess.run([binary, "run", *GEMM, "--backend", backend, "--hw", "tiny", "--out", str(root / backend),
                        "--quiet"], check=True, capture_output=True)
    return root


@pytest.mark.parametrize("backend", ["interp", "roofline", "cycle"])
def test_a_run_directory_is_one_row_of_the_same_schema_on_every_backend(run_dirs, backend):
    frame = steprdu.load(run_dirs / backend)
    assert list(frame.columns) == RUN_COLUMNS and len(frame) == 1
    row = frame.iloc[0]
    assert (row.testbench, row.backend, row.hw, row.status, row.error) == ("gemm", backend, "tiny", "ok", "")
    assert str(frame["m"].dtype) == "Int64" and row.m == 64 and row.tile_k == 32
    assert str(frame["cycles"].dtype) == "Int64" and str(frame["off_chip_bytes"].dtype) == "Int64"
    assert frame["wall_seconds"].dtype == "float64"
    assert row.off_chip_bytes == 2 * 8 * 32 * 32 * 4 + 64 * 64 * 4
    if backend == "interp":
        assert row.cycles is pd.NA and len(frame.stats) == 0
    else:
        assert row.cycles > 0
        stats = frame.stats
        assert list(stats.columns) == ["run_dir", "path", "stat", "value", "unit", "description"]
        assert len(stats) > 3 and (stats.run_dir == str(run_dirs / backend)).all()
        assert stats.equals(steprdu.load_stats(run_dirs / backend))


def test_a_failed_run_directory_is_one_row_with_its_error(binary, tmp_path):
    out = tmp_path / "run"
    r = subprocess.run([binary, "run", "moe", "hidden=64", "inter=128", "tile_f=32", "tile_n=8", "regions=2",
                        "elem_bytes=4", "--out", str(out), "--quiet"], capture_output=True)
    assert r.returncode == 3
    frame = steprdu.load(out)
    assert len(frame) == 1
    row = frame.iloc[0]
    assert (row.testbench, row.backend, row.hw, row.status) == ("moe", "roofline", "step_eval", "failed")
    assert "no forward progress" in row.error and row.hidden == 64 and str(frame["hidden"].dtype) == "Int64"
    assert frame["cycles"].isna().all() and str(frame["cycles"].dtype) == "Int64"


SPEC = """description: "swiglu on the tiny chip: one series fits only when shrunk, one sweeps backend and tiles"
testbench: swiglu
backend: cycle
hw: tiny
runs:
  - label: shrink
    knobs: {batch: 32, tile_b: 16}
    sweep: {hw.pnr.on_overflow: [error, shrink]}
  - label: tiles
    knobs: {batch: 32}
    sweep: {tile_b: [16, 32], backend: [roofline, interp]}
"""


def test_a_sweep_fills_unswept_axes_with_their_effective_values(binary, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    out = tmp_path / "sweep"
    r = subprocess.run([binary, "sweep", str(spec), "--out", str(out), "-j", "1", "--quiet"], capture_output=True,
                       text=True)
    assert r.returncode == 1, r.stderr
    frame = steprdu.load(out)
    assert len(frame) == 6
    assert list(frame.columns[:6]) == ["series", "hw.pnr.on_overflow", "tile_b", "backend", "testbench", "hw"]
    # The shrink series did not sweep the backend: its rows carry the spec's default, so a pivot keeps them.
    assert frame.backend.notna().all() and (frame.hw == "tiny").all() and (frame.testbench == "swiglu").all()
    shrink = frame[frame.series == "shrink"].set_index("hw.pnr.on_overflow")
    assert (shrink.backend == "cycle").all()
    # tile_b is fixed in the shrink series and swept in the other: one integer column without gaps.
    assert str(frame["tile_b"].dtype) == "Int64" and frame.tile_b.notna().all()
    assert str(frame["cycles"].dtype) == "Int64"
    assert shrink.loc["error", "status"] == "failed" and "PCU overflow" in shrink.loc["error", "error"]
    assert shrink.loc["shrink", "status"] == "ok" and shrink.loc["shrink", "cycles"] > 0
    assert frame.loc[frame.series == "shrink", "cycles"].isna().sum() == 1
    ran = frame[(frame.backend != "interp") & (frame.status == "ok")]
    timed = ran.pivot(index=["series", "tile_b"], columns="backend", values="cycles")
    assert len(timed) == 3 and set(timed.columns) == {"cycle", "roofline"}
    tiles = frame[frame.series == "tiles"]
    assert tiles[tiles.backend == "interp"].cycles.isna().all()
    assert tiles[tiles.backend == "roofline"].cycles.notna().all()
    # The long stats of the points that have them, by run directory.
    stats = frame.stats
    assert set(stats.run_dir) == set(frame[(frame.status == "ok") & (frame.backend != "interp")].run_dir)
    # The same frame from the results.csv file itself.
    assert steprdu.load(out / "results.csv").equals(frame)


def test_files_that_are_not_runs_are_refused_naming_the_file(run_dirs, tmp_path):
    stats_csv = run_dirs / "cycle" / "stats.csv"
    with pytest.raises(steprdu.BadInputError, match="stats file, not a sweep's results.csv") as e:
        steprdu.load(stats_csv)
    assert str(stats_csv) in str(e.value) and "steprdu.load(" in str(e.value)
    other = tmp_path / "prices.csv"
    other.write_text("item,price\napple,3\n")
    with pytest.raises(steprdu.BadInputError, match="expected a sweep's results.csv") as e:
        steprdu.load(other)
    assert str(other) in str(e.value) and "item, price" in str(e.value)
    with pytest.raises(steprdu.BadInputError, match="load the directory itself"):
        steprdu.load(run_dirs / "cycle" / "result.json")
    with pytest.raises(steprdu.BadInputError, match="expected a sweep directory"):
        steprdu.load(tmp_path)
    with pytest.raises(steprdu.BadInputError, match="no such file"):
        steprdu.load(tmp_path / "missing")
