"""steprdu.Program: programs of kernels from Python, graphs and testbenches, timed with their launches as
`steprdu program` times a program file (docs/system.md)."""

import json
import subprocess

import numpy as np
import pytest

import steprdu
from steprdu import map_fn


def copy_graph(rows=64):
    g = steprdu.Graph()
    g.tensor("x", np.ones((rows, 64), np.float32))
    g.tensor("y", rows=rows, cols=64)
    g.linear_offchip_store(g.map([g.linear_offchip_load("x", 16, 64, [1], [rows // 16])], map_fn.Exp()), "y")
    return g


def test_a_graph_and_a_testbench_kernel_time_like_the_cli(tmp_path, binary):
    p = steprdu.Program()
    p.kernel("ffn", testbench="swiglu", batch=64).kernel("proj", testbench="gemm", m=64, k=256, n=256)
    p.call("ffn", repeat=3).call("proj")
    t = p.time(backend="roofline", hw="step_eval")
    (tmp_path / "p.yaml").write_text("kernels:\n  - {name: ffn, testbench: swiglu, knobs: {batch: 64}}\n"
                                     "  - {name: proj, testbench: gemm, knobs: {m: 64, k: 256, n: 256}}\n"
                                     "schedule: [{kernel: ffn, repeat: 3}, proj]\n")
    cli = json.loads(subprocess.run([binary, "program", str(tmp_path / "p.yaml"), "--json", "-q"],
                                    check=True, capture_output=True, text=True).stdout)
    assert [o["cycles"] for o in t["orchestrations"]] == [o["cycles"] for o in cli["orchestrations"]]
    assert t["kernel_runs"] == 2 and t["calls"] == 4

    g = steprdu.Program().kernel("copy", copy_graph()).call("copy", repeat=2)
    so, ho, loop = g.time(backend="cycle", hw="tiny")["orchestrations"]
    assert so["calls"] == 2 and so["execute"] == ho["execute"]
    assert so["host"] > ho["host"] and loop["launches"] == 1
    kernel = so["kernels"][0]
    assert kernel["program_load_simulated"] and kernel["program_tier_bytes_read"] > 0


def test_an_unfused_layer_expands_into_its_operator_kernels():
    p = steprdu.Program().kernel("layer", testbench="decoder", model="llama2", fusion="operator", batch=1,
                                 kv_len=256)
    t = p.call("layer", repeat=2).time(orchestration="hardware")
    (ho,) = t["orchestrations"]
    assert ho["calls"] == 26 and t["kernels"] == 13
    assert ho["kernels"][0]["name"] == "layer.q_proj"


@pytest.mark.parametrize("call, message", [
    (lambda p: p.kernel("a", testbench="gemm"), "no other kernel has"),
    (lambda p: p.kernel("b"), "either a graph or a testbench"),
    (lambda p: p.kernel("b", copy_graph(), m=4), "belong to a testbench kernel"),
    (lambda p: p.call("nope"), "expected a kernel of the program (a)"),
    (lambda p: p.call("a", repeat=0), "repeat"),
    (lambda p: p.call("a").time(backend="interp"), "roofline or cycle"),
    (lambda p: p.call("a").time(orchestration="hw"), "software, hardware, looping or all"),
    (lambda p: p.kernel("c", testbench="gemm", mm=3).call("c").time(), "mm"),
])
def test_bad_programs_name_what_is_wrong(call, message):
    p = steprdu.Program().kernel("a", testbench="gemm")
    with pytest.raises(steprdu.BadInputError, match=None) as e:
        call(p)
    assert message in str(e.value)
