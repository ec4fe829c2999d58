"""steprdu plot and steprdu.plot(): a two-axis sweep with failed points drawn as a PNG of the promised size, each
series in its colour and the failed points in red; bad directories and columns refused with the file or option
named."""
import json
import subprocess

import matplotlib.colors
import matplotlib.image
import numpy as np
import pytest

import steprdu

# Two series (tile_b 16 and 32) over tile_inter, on a chip of one 6 x 8 tile and of two: one tile does not
# hold the graph, so its three points per series fail.
SPEC = """
description: "plot test: SwiGLU tile_inter on one and two tiles"
testbench: swiglu
backend: cycle
runs:
  - label: b16
    knobs: {tile_b: 16}
    sweep: {tile_inter: [16, 64, 256], hw.chip.die_tile_cols: [1, 2]}
  - label: b32
    knobs: {tile_b: 32}
    sweep: {tile_inter: [16, 64, 256], hw.chip.die_tile_cols: [1, 2]}
"""


@pytest.fixture(scope="module")
def sweep(binary, tmp_path_factory):
    d = tmp_path_factory.mktemp("plot")
    (d / "spec.yaml").write_text(SPEC)
    r = subprocess.run([binary, "sweep", str(d / "spec.yaml"), "--out", str(d / "sweep"), "-q", "-j", "2",
                        "--set", "chip.dies=1", "--set", "chip.die_tile_rows=1", "--set", "chip.rows=6",
                        "--set", "chip.cols=8"], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr  # the failed points
    return d / "sweep"


def pixels_near(png, colour, tol=0.03):
    img = matplotlib.image.imread(png)[:, :, :3]
    return int((np.abs(img - np.array(matplotlib.colors.to_rgb(colour))).max(axis=2) < tol).sum())


def check_drawing(png, info):
    assert matplotlib.image.imread(png).shape[:2] == (600, 1000)
    assert info["series"] == {"b16 / hw.chip.die_tile_cols=2": 3, "b32 / hw.chip.die_tile_cols=2": 3}
    assert info["failed"] == 6 and info["pending"] == 0
    # Matplotlib's colour cycle gives the series C0 and C1; the failed points are red. A line of three points
    # covers thousands of pixels, a marker about a hundred.
    for colour, least in (("C0", 500), ("C1", 500), ("red", 100)):
        assert pixels_near(png, colour) >= least, colour
    assert pixels_near(png, "C2") == 0  # no third series


def test_cli_draws_each_series_and_marks_failed_points(binary, sweep, tmp_path):
    png = tmp_path / "p.png"
    r = subprocess.run([binary, "plot", str(sweep), "--out", str(png), "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["x"] == "tile_inter" and info["y"] == "cycles"
    check_drawing(png, info)


def test_python_plot_draws_the_same(sweep, tmp_path):
    png = tmp_path / "p.png"
    check_drawing(png, steprdu.plot(sweep, out=str(png)))
    info = steprdu.plot(sweep, x="hw.chip.die_tile_cols", y="off_chip_bytes", out=str(tmp_path / "q.png"))
    assert set(info["series"]) == {"b16 / tile_inter=16", "b16 / tile_inter=64", "b16 / tile_inter=256",
                                   "b32 / tile_inter=16", "b32 / tile_inter=64", "b32 / tile_inter=256"}


def test_bad_directories_and_columns_are_named(binary, sweep, tmp_path):
    r = subprocess.run([binary, "plot", str(sweep), "--y", "cycels"], capture_output=True, text=True)
    assert r.returncode == 2
    assert "--y: expected a column of" in r.stderr and "found 'cycels'" in r.stderr
    r = subprocess.run([binary, "plot", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2 and "manifest.jsonl: not found" in r.stderr
    with pytest.raises(steprdu.BadInputError, match="--x: expected one of the sweep's axes"):
        steprdu.plot(sweep, x="tile_b")
