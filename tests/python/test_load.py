"""steprdu.load: a sweep directory with a failing point as one DataFrame with every point and its status; a run
directory's stats."""

import subprocess

import steprdu

SPEC = """description: "swiglu on the tiny chip: the graph fits only when shrunk"
testbench: swiglu
backend: cycle
hw: tiny
runs:
  - label: tiny
    knobs: {batch: 32, tile_b: 16}
    sweep: {hw.pnr.on_overflow: [error, shrink]}
"""


def test_a_sweep_with_a_failing_point_loads_with_every_point_and_its_status(binary, tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    out = tmp_path / "sweep"
    r = subprocess.run([binary, "sweep", str(spec), "--out", str(out), "-j", "1", "--quiet"], capture_output=True,
                       text=True)
    assert r.returncode == 1, r.stderr
    assert "fails again" in r.stderr
    frame = steprdu.load(out)
    assert len(frame) == 2
    by = frame.set_index("hw.pnr.on_overflow")
    assert by.loc["shrink", "status"] == "ok" and by.loc["shrink", "cycles"] > 0
    assert by.loc["error", "status"] == "failed"
    assert "PCU overflow" in by.loc["error", "error"]


def test_a_run_directory_loads_its_stats(binary, tmp_path):
    subprocess.run([binary, "run", "swiglu", "batch=32", "--backend", "cycle", "--out", str(tmp_path), "--quiet"],
                   check=True, capture_output=True)
    frame = steprdu.load(tmp_path)
    assert {"path", "stat", "value", "unit", "description"} <= set(frame.columns)
    assert (frame["stat"] == "busy_cycles").any()
