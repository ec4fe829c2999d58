"""The README's gallery (docs/figures) is the code's as it is: each picture was drawn from the CSV beside it
(the PNG records the CSV's SHA-256, so a CSV edited by hand fails), and the cheapest points of each figure,
recomputed with the current binary on both backends, give the CSV's numbers exactly: runs are deterministic, so
any difference means the figure is stale and `make paper` must redraw it."""
import csv
import hashlib
import os
import struct
import subprocess
import json

import pytest

from conftest import SOURCE

GALLERY = os.path.join(SOURCE, "docs", "figures")
FIGURES = ["fig8", "fig9", "fig14", "fig17"]
POINTS_PER_BACKEND = 2


def png_text(path):
    """The PNG's tEXt chunks as a dict."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    out, at = {}, 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"tEXt":
            key, _, value = data[at + 8:at + 8 + length].partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        at += 12 + length
    return out


def rows_of(figure):
    with open(os.path.join(GALLERY, f"{figure}.csv"), newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("figure", FIGURES)
def test_each_picture_was_drawn_from_the_csv_beside_it(figure):
    with open(os.path.join(GALLERY, f"{figure}.csv"), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    recorded = png_text(os.path.join(GALLERY, f"{figure}.png")).get("Description", "")
    assert recorded == f"csv-sha256 {digest}", (
        f"docs/figures/{figure}.csv is not the CSV docs/figures/{figure}.png was drawn from (edited by hand?); "
        "make paper redraws both")
    assert {r["backend"] for r in rows_of(figure)} == {"roofline", "cycle"}


@pytest.mark.parametrize("figure", FIGURES)
def test_the_cheapest_points_recomputed_give_the_figures_numbers(figure, binary, shared):
    rows = rows_of(figure)
    for backend in ("roofline", "cycle"):
        mine = sorted((r for r in rows if r["backend"] == backend),
                      key=lambda r: float(r["wall_seconds"]) + float(r["pnr_seconds"]))
        for r in mine[:POINTS_PER_BACKEND]:
            knobs = [k.replace("{shared}", shared) for k in r["knobs"].split(";") if k]
            sets = [a for s in r["sets"].split(";") if s for a in ("--set", s)]
            cmd = [binary, "run", r["testbench"], *knobs, "--backend", backend, "--hw", r["hw"], *sets, "--json",
                   "-q"]
            out = subprocess.run(cmd, capture_output=True, text=True)
            assert out.returncode == 0, out.stderr
            got = json.loads(out.stdout)
            for key in ("cycles", "off_chip_bytes"):
                assert got[key] == int(float(r[key])), (
                    f"docs/figures/{figure}.csv is stale: {' '.join(cmd[1:])} gives {key} {got[key]}, the figure "
                    f"{r[key]}; make paper redraws it")
