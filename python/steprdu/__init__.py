"""steprdu from Python: write STeP programs, run them on the interpreter, the roofline or the SystemC chip, and
analyse results in pandas. See docs/python.md.

    import numpy as np, steprdu
    g = steprdu.Graph()
    g.tensor("x", np.ones((64, 64), np.float32))
    ...
    r = steprdu.simulate(g, backend="roofline")
    r.cycles, r.off_chip_bytes
"""

from steprdu._steprdu import (
    BadInputError,
    DeadlockError,
    Dim,
    Error,
    Expr,
    Function,
    Graph,
    InitFn,
    LimitError,
    Shape,
    Stream,
    ceil_div,
)
from steprdu import _steprdu
from steprdu import accum_fn, init_fn, map_accum_fn, map_fn, ops
from steprdu.datatypes import (
    Bool,
    BFloat16,
    Buffer,
    DynDim,
    Float16,
    Float32,
    Tile,
    Uint64,
)
from steprdu.results import Result, load

__all__ = [
    "BadInputError", "DeadlockError", "Dim", "Error", "Expr", "Function", "Graph", "InitFn", "LimitError",
    "Shape", "Stream", "ceil_div", "accum_fn", "init_fn", "map_accum_fn", "map_fn", "ops", "Bool",
    "BFloat16", "Buffer", "DynDim", "Float16", "Float32", "Tile", "Uint64", "Result", "load", "simulate",
    "run", "testbenches",
]

BACKENDS = ("interp", "roofline", "cycle")


def _cli_value(value):
    """A knob or hardware value as the command line spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _sets(set):
    """Hardware overrides as the CLI's --set takes them: a dict {key: value} or a list of "key=value"."""
    if set is None:
        return []
    if isinstance(set, dict):
        out = []
        for key, value in set.items():
            if not isinstance(key, str):
                raise BadInputError(f"set: expected string keys such as 'hbm.channels', found {key!r}")
            out.append(f"{key}={_cli_value(value)}")
        return out
    if isinstance(set, (list, tuple)) and all(isinstance(s, str) for s in set):
        return list(set)
    raise BadInputError(f"set: expected a dict {{'key': value}} or a list of 'key=value', found {set!r}")


def _check_backend(backend):
    if backend not in BACKENDS:
        raise BadInputError(f"backend: expected interp, roofline or cycle, found {backend!r}")


def simulate(graph, backend="roofline", hw="step_eval", set=None, functional=False, depth=2,
             timing_elem_bytes=0, phases=None, max_cycles=0, max_wall_seconds=0.0,
             watchdog_cycles=_steprdu.default_watchdog_cycles):
    """Runs a Graph on one backend and returns a Result.

    backend: "interp" (functional, no time), "roofline" (the published simulator's timing) or "cycle" (the
    SystemC chip after place and route on `hw`, a preset name or a YAML file). set: hardware overrides,
    {"hbm.channels": 16} or ["hbm.channels=16"]. functional: on the cycle backend, compute real values (the
    interpreter always does); the result's `tensors` then hold every off-chip tensor. depth: stream FIFO
    depth in elements. timing_elem_bytes=2 times f32 tiles as bf16, as the paper's runs do. phases: name
    prefixes of parts of the program that run one after another; place and route plans each part's streams
    over its own time (docs/cycle.md).
    """
    if not isinstance(graph, Graph):
        raise BadInputError(f"simulate: graph: expected a steprdu.Graph, found {type(graph).__name__}")
    _check_backend(backend)
    if phases is None:
        phases = []
    elif isinstance(phases, str) or not all(isinstance(p, str) for p in phases):
        raise BadInputError(f"phases: expected a list of operator name prefixes, found {phases!r}")
    out = _steprdu.simulate(graph, backend, str(hw), _sets(set), bool(functional), depth, timing_elem_bytes,
                            list(phases), max_cycles, float(max_wall_seconds), watchdog_cycles)
    return Result(out["result"], out["stats"], out["tensors"])


def run(testbench, backend="roofline", hw="step_eval", set=None, functional=False, max_cycles=0,
        max_wall_seconds=0.0, watchdog_cycles=_steprdu.default_watchdog_cycles, **knobs):
    """Runs a built-in testbench (`steprdu.testbenches()` lists them and their knobs) as `steprdu run` does:
    steprdu.run("moe", backend="cycle", model="qwen", tile_n=8)."""
    if not isinstance(testbench, str):
        raise BadInputError(f"run: testbench: expected a name such as 'moe', found {type(testbench).__name__}")
    _check_backend(backend)
    assignments = [f"{key}={_cli_value(value)}" for key, value in knobs.items()]
    out = _steprdu.run(testbench, assignments, backend, str(hw), _sets(set), bool(functional), max_cycles,
                       float(max_wall_seconds), watchdog_cycles)
    return Result(out["result"], out["stats"], out["tensors"])


def testbenches():
    """The built-in testbenches: {name: {"doc": ..., "knobs": {knob: {"default": ..., "doc": ...}}}}."""
    return _steprdu.testbenches()
