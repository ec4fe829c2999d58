"""steprdu.Program: a program of kernels on one socket (docs/system.md), each a steprdu.Graph or a built-in
testbench, called in a schedule and timed with its launches under software orchestration, hardware
orchestration and kernel looping, as `steprdu program` times a program file.

    p = steprdu.Program()
    p.kernel("layer", testbench="decoder", model="llama2", batch=8, kv_len=4096, loop_knob="layers")
    p.kernel("head", g)                      # a steprdu.Graph
    p.call("layer", repeat=32).call("head")
    t = p.time(backend="roofline", hw="sn40l")
    t["orchestrations"][0]["cycles"]
"""

from steprdu import _api, _steprdu
from steprdu._steprdu import BadInputError, Graph

ORCHESTRATIONS = ("software", "hardware", "looping", "all")
BACKENDS = ("roofline", "cycle")


class Program:
    """A schedule of calls to kernels. A kernel is placed and timed once however often it is called (a layer
    called once per layer with that layer's weights); a testbench that is itself a program (the decoder with
    fusion="operator") adds its operator kernels, named <name>.<operator>."""

    def __init__(self):
        self._kernels = []
        self._names = set()
        self._schedule = []

    def kernel(self, name, graph=None, testbench=None, loop_knob=None, depth=2, timing_elem_bytes=0, **knobs):
        """Defines a kernel: a steprdu.Graph (with its stream depth and timing_elem_bytes, as simulate takes
        them), or a testbench of steprdu.testbenches() with its knobs as keywords. loop_knob: a testbench's
        knob that repeats its body inside one graph (the decoder's "layers"), which kernel looping times as
        T(2) - T(1). Returns the program, so that definitions chain."""
        if not isinstance(name, str) or not name:
            raise BadInputError(f"Program.kernel: name: expected a non-empty string, found {name!r}")
        if name in self._names:
            raise BadInputError(f"Program.kernel: name: expected a name no other kernel has, found {name!r} again")
        if (graph is None) == (testbench is None):
            raise BadInputError(f"Program.kernel {name!r}: expected either a graph or a testbench, found "
                                f"{'both' if graph is not None else 'neither'}")
        if graph is not None:
            if not isinstance(graph, Graph):
                raise BadInputError(f"Program.kernel {name!r}: graph: expected a steprdu.Graph, found "
                                    f"{type(graph).__name__}")
            if knobs or loop_knob is not None:
                given = sorted(knobs) + (["loop_knob"] if loop_knob is not None else [])
                raise BadInputError(f"Program.kernel {name!r}: knobs and loop_knob belong to a testbench kernel, "
                                    f"found {', '.join(given)} with a graph")
        elif not isinstance(testbench, str):
            raise BadInputError(f"Program.kernel {name!r}: testbench: expected a name such as 'decoder', found "
                                f"{type(testbench).__name__}")
        for what, value in (("depth", depth), ("timing_elem_bytes", timing_elem_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise BadInputError(f"Program.kernel {name!r}: {what}: expected an integer >= 0, found {value!r}")
        if loop_knob is not None and not isinstance(loop_knob, str):
            raise BadInputError(f"Program.kernel {name!r}: loop_knob: expected a knob's name, found {loop_knob!r}")
        cli = {True: "true", False: "false"}
        self._kernels.append({
            "name": name, "graph": graph, "testbench": testbench or "",
            "knobs": [f"{k}={cli.get(v, v) if isinstance(v, bool) else v}" for k, v in knobs.items()],
            "loop_knob": loop_knob or "", "depth": depth, "timing_elem_bytes": timing_elem_bytes})
        self._names.add(name)
        return self

    def call(self, names, repeat=1):
        """Calls a kernel, or a list of kernels in order, the group `repeat` times (in [1, 1000000]):
        p.call("layer", repeat=32), p.call(["qkv", "attention", "ffn"], repeat=32). Returns the program."""
        group = [names] if isinstance(names, str) else list(names) if isinstance(names, (list, tuple)) else None
        if not group or not all(isinstance(n, str) for n in group):
            raise BadInputError(f"Program.call: names: expected a kernel's name or a list of them, found {names!r}")
        unknown = [n for n in group if n not in self._names]
        if unknown:
            raise BadInputError(f"Program.call: expected a kernel of the program ({', '.join(sorted(self._names))}), "
                                f"found {unknown[0]!r}")
        if isinstance(repeat, bool) or not isinstance(repeat, int) or not 1 <= repeat <= 1_000_000:
            raise BadInputError(f"Program.call: repeat: expected an integer in [1, 1000000], found {repeat!r}")
        self._schedule.append((group, repeat))
        return self

    @property
    def kernels(self):
        """The kernels' names, in definition order."""
        return [k["name"] for k in self._kernels]

    def time(self, backend="roofline", hw="step_eval", set=None, orchestration="all"):
        """Times every distinct kernel once on `backend` (roofline or cycle) and the schedule under
        `orchestration` (software, hardware, looping or all): the dict `steprdu program --json` prints, with
        each orchestration's cycles, seconds and split (host, program_load, argument_load, execute) and its
        kernels' calls and launches."""
        from steprdu import _sets  # the package's --set parsing

        if backend not in BACKENDS:
            raise BadInputError(f"Program.time: backend: expected roofline or cycle, found {backend!r}")
        if orchestration not in ORCHESTRATIONS:
            raise BadInputError(f"Program.time: orchestration: expected software, hardware, looping or all, "
                                f"found {orchestration!r}")
        if not self._schedule:
            raise BadInputError("Program.time: expected at least one call (Program.call), found none")
        sets = [f"{k}={v}" for k, v in _sets(set).items()]
        return _steprdu.time_program(self._kernels, [tuple(s) for s in self._schedule], backend, str(hw), sets,
                                     orchestration)


_api.guard_class(Program)
