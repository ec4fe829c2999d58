"""steprdu from Python: write STeP programs, run them on the interpreter, the roofline or the SystemC chip, and
analyse results in pandas. See docs/python.md.

    import numpy as np, steprdu
    g = steprdu.Graph()
    g.tensor("x", np.ones((64, 64), np.float32))
    ...
    r = steprdu.simulate(g, backend="roofline")
    r.cycles, r.off_chip_bytes

Every error the package raises is a steprdu.Error: BadInputError (with ArgumentError, also a TypeError, and
OutOfRangeError, also an IndexError), DeadlockError, LimitError, InternalError.
"""

import os as _os

from steprdu._steprdu import (
    ArgumentError,
    BadInputError,
    DeadlockError,
    Dim,
    Error,
    Expr,
    Function,
    Graph,
    InitFn,
    InternalError,
    LimitError,
    Op,
    OutOfRangeError,
    Shape,
    Stream,
    ceil_div,
)
from steprdu import _api, _steprdu
from steprdu._api import MissingKeyError
from steprdu import accum_fn, init_fn, map_accum_fn, map_fn, ops
from steprdu.config import HBMConfig, SimConfig, depths_by_name as _depths_by_name
from steprdu.datatypes import (
    Bool,
    BFloat16,
    Buffer,
    DynDim,
    DynTile,
    Float16,
    Float32,
    Tile,
    Uint64,
)
from steprdu.results import Result, load, load_stats
from steprdu.program import Program
from steprdu import sweep_plot as _sweep_plot

__all__ = [
    "ArgumentError", "BadInputError", "DeadlockError", "Error", "InternalError", "LimitError", "MissingKeyError",
    "OutOfRangeError", "Dim", "Expr", "Function", "Graph", "InitFn", "Op", "Shape", "Stream", "ceil_div",
    "accum_fn", "init_fn", "map_accum_fn", "map_fn", "ops", "Bool", "BFloat16", "Buffer", "DynDim", "DynTile",
    "Float16", "Float32", "Tile", "Uint64", "HBMConfig", "SimConfig", "Result", "load", "load_stats", "Program", "simulate",
    "run", "testbenches", "plot", "BACKENDS",
]

BACKENDS = ("interp", "roofline", "cycle")

# The extension's classes raise steprdu.ArgumentError for calls that do not bind, and show their parameters'
# names in help().
for _cls in (Expr, Dim, Shape, Function, InitFn, Stream, Op, Graph):
    _api.guard_native_class(_cls)
ceil_div = _api._guard_native(ceil_div, "steprdu.ceil_div", "ceil_div")


def _to_sympy(self):
    """The expression as a sympy expression (needs python3-sympy): symbols become sympy integer symbols
    (non-negative, as the artifact's DynDim), ceil and floor division sympy.ceiling and sympy.floor, max
    sympy.Max and Promote's step a Piecewise."""
    try:
        import sympy
    except ImportError:
        raise BadInputError("Expr.to_sympy: sympy is not installed (apt-get install python3-sympy); "
                            "str(expr) and expr.eval() need nothing") from None

    def convert(j):
        if isinstance(j, int):
            return sympy.Integer(j)
        if "sym" in j:
            return sympy.Symbol(j["sym"], integer=True, nonnegative=True)
        args = [convert(a) for a in j["args"]]
        op = j["op"]
        if op == "add":
            return sympy.Add(*args)
        if op == "mul":
            return sympy.Mul(*args)
        if op == "ceildiv":
            return sympy.ceiling(args[0] / args[1])
        if op == "floordiv":
            return sympy.floor(args[0] / args[1])
        if op == "max":
            return sympy.Max(*args)
        if op == "step":
            return sympy.Piecewise((1, args[0] >= 1), (0, True))
        raise InternalError(f"Expr.to_sympy: unknown operation {op!r} (please report)")

    return convert(self.to_json())


Expr.to_sympy = _api.guard(_to_sympy, "steprdu.Expr.to_sympy")


def _cli_value(value):
    """A knob or hardware value as the command line spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _sets(set):
    """Hardware overrides as the CLI's --set takes them: a dict {key: value} or a list of "key=value"."""
    if set is None:
        return {}
    if isinstance(set, dict):
        for key in set:
            if not isinstance(key, str):
                raise BadInputError(f"set: expected string keys such as 'hbm.channels', found {key!r}")
        return {key: _cli_value(value) for key, value in set.items()}
    if isinstance(set, (list, tuple)) and all(isinstance(s, str) for s in set):
        out = {}
        for s in set:
            key, eq, value = s.partition("=")
            if not eq:
                raise BadInputError(f"set: expected 'key=value' items such as 'hbm.channels=16', found {s!r}")
            out[key] = value
        return out
    raise BadInputError(f"set: expected a dict {{'key': value}} or a list of 'key=value', found {set!r}")


def _check_backend(backend):
    if isinstance(backend, bool):
        raise BadInputError("backend: found a bool; the artifact's simulate(graph, logging, hbm_config, "
                            "sim_config, protobuf_file) is steprdu.simulate(graph, backend='roofline', "
                            "hbm_config=..., sim_config=...)")
    if backend not in BACKENDS:
        raise BadInputError(f"backend: expected interp, roofline or cycle, found {backend!r}")


@_api.public
def simulate(graph, backend="roofline", hw="step_eval", set=None, functional=False, depth=2,
             timing_elem_bytes=0, phases=None, depths=None, max_cycles=0, max_wall_seconds=0.0,
             watchdog_cycles=_steprdu.default_watchdog_cycles, hbm_config=None, sim_config=None):
    """Runs a Graph on one backend and returns a steprdu.Result.

    backend: "interp" (functional, no time), "roofline" (the published simulator's timing) or "cycle" (the
    SystemC chip after place and route). hw: a preset name (step_eval, step_validation, sn40l, tiny) or a YAML
    file. set: hardware overrides, {"hbm.channels": 16} or ["hbm.channels=16"] (docs/config.md).
    functional: on the cycle backend, compute real values (the interpreter always does, the roofline never);
    the result's `tensors` then hold every off-chip tensor. depth: every stream's FIFO depth in elements (0:
    unbounded); depths: per producing operator, {Op, Stream or name: depth}. timing_elem_bytes=2 times f32
    tiles as 2-byte elements, as the paper's runs do. phases: name prefixes of parts of the program that run
    one after another (place and route plans each part's streams over its own time, docs/cycle.md).
    max_cycles, max_wall_seconds (0: no limit) and watchdog_cycles (cycles without progress) stop a timed run
    with a LimitError or a DeadlockError.

    The artifact's settings map onto these: hbm_config (a steprdu.HBMConfig) adds its hbm.* keys to `set`;
    sim_config (a steprdu.SimConfig) gives depth, functional (cycle backend), timing_elem_bytes and depths.
    Either conflicts with the same setting given directly.
    """
    if not isinstance(graph, Graph):
        raise BadInputError(f"simulate: graph: expected a steprdu.Graph, found {type(graph).__name__}")
    _check_backend(backend)
    sets = _sets(set)
    if hbm_config is not None:
        if not isinstance(hbm_config, HBMConfig):
            raise BadInputError(f"simulate: hbm_config: expected a steprdu.HBMConfig, found "
                                f"{type(hbm_config).__name__}")
        for key, value in hbm_config.to_sets().items():
            if key in sets and str(sets[key]) != str(value):
                raise BadInputError(f"simulate: hbm_config and set both give {key} ({value} and {sets[key]}); "
                                    "give it once")
            sets[key] = value
    depths = _depths_by_name(depths or {}, "simulate: depths")
    if sim_config is not None:
        if not isinstance(sim_config, SimConfig):
            raise BadInputError(f"simulate: sim_config: expected a steprdu.SimConfig, found "
                                f"{type(sim_config).__name__}")
        given = {"depth": depth != 2, "timing_elem_bytes": timing_elem_bytes != 0, "functional": functional,
                 "depths": bool(depths)}
        clash = [k for k, v in given.items() if v]
        if clash:
            raise BadInputError(f"simulate: sim_config and {', '.join(clash)} both set the run's options; give "
                                "them in one place")
        depth = 0 if sim_config.channel_depth is None else sim_config.channel_depth
        timing_elem_bytes = 2 if sim_config.mock_bf16 else 0
        functional = sim_config.functional_sim and backend == "cycle"
        depths = sim_config.depths()
    if phases is None:
        phases = []
    elif isinstance(phases, str) or not isinstance(phases, (list, tuple)) or \
            not all(isinstance(p, str) for p in phases):
        raise BadInputError(f"phases: expected a list of operator name prefixes, found {phases!r}")
    out = _steprdu.simulate(graph, backend, str(hw), [f"{k}={v}" for k, v in sets.items()], bool(functional),
                            depth, timing_elem_bytes, list(phases), depths, max_cycles, float(max_wall_seconds),
                            watchdog_cycles)
    return Result(out["result"], out["stats"], out["tensors"])


@_api.public
def run(testbench, backend="roofline", hw="step_eval", set=None, functional=False, max_cycles=0,
        max_wall_seconds=0.0, watchdog_cycles=_steprdu.default_watchdog_cycles, placement=None, **knobs):
    """Runs a built-in testbench as `steprdu run` does and returns a steprdu.Result:
    steprdu.run("moe", backend="cycle", model="qwen", tile_n=8). testbench: a name of
    steprdu.testbenches(); knobs: its knobs as keywords; backend, hw, set, functional and the limits as for
    simulate. placement: with backend="cycle", an earlier place and route to reuse instead of placing anew
    (a pnr.json, a cycle run's result.json or a directory holding either), as `run --placement`."""
    if not isinstance(testbench, str):
        raise BadInputError(f"run: testbench: expected a name such as 'moe', found {type(testbench).__name__}")
    _check_backend(backend)
    if placement is not None and not isinstance(placement, (str, _os.PathLike)):
        raise BadInputError(f"run: placement: expected a path, found {type(placement).__name__}")
    assignments = [f"{key}={_cli_value(value)}" for key, value in knobs.items()]
    sets = [f"{k}={v}" for k, v in _sets(set).items()]
    out = _steprdu.run(testbench, assignments, backend, str(hw), sets, bool(functional), max_cycles,
                       float(max_wall_seconds), watchdog_cycles, _os.fspath(placement) if placement else "")
    return Result(out["result"], out["stats"], out["tensors"])


@_api.public
def testbenches():
    """The built-in testbenches: {name: {"doc": text, "knobs": {knob: {"default": text, "doc": text}}}}."""
    return _steprdu.testbenches()


@_api.public
def plot(sweep_dir, x=None, y="cycles", out=None, logy=False):
    """Draws a sweep directory's results.csv (steprdu sweep --out) as a PNG, as `steprdu plot` does: the swept
    axis `x` (default: the sweep's first) against the column `y`, one series per backend, series label and
    value of the other axes, failed points marked in red at the foot. Writes `out` (default DIR/plot.png) and
    returns what it drew: {"out", "x", "y", "series": {label: points}, "failed", "pending"}. Needs
    python3-matplotlib; raises BadInputError naming the file or option it cannot use."""
    try:
        return _sweep_plot.plot(_os.fspath(sweep_dir), x=x, y=y, out=out, logy=logy)
    except _sweep_plot.PlotError as e:
        raise BadInputError(f"steprdu.plot: {e}") from None
