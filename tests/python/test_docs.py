"""help() on every public name of the package shows a real docstring and the parameters' real names."""

import inspect
import pydoc

import pytest

import steprdu
from steprdu import accum_fn, init_fn, map_accum_fn, map_fn, ops

MODULES = [steprdu, ops, map_fn, init_fn, accum_fn, map_accum_fn]
CLASSES = [steprdu.Graph, steprdu.Stream, steprdu.Op, steprdu.Expr, steprdu.Dim, steprdu.Shape, steprdu.Function,
           steprdu.InitFn, steprdu.Result, steprdu.Tile, steprdu.Buffer, steprdu.HBMConfig, steprdu.SimConfig,
           steprdu.Program]


def public_names():
    """(where, object) for every public name of the modules and every public member of the classes."""
    seen = []
    for module in MODULES:
        for name in module.__all__:
            seen.append((f"{module.__name__}.{name}", getattr(module, name)))
    for cls in CLASSES:
        for name, value in vars(cls).items():
            if name.startswith("_") or not (callable(value) or isinstance(value, (property, staticmethod))):
                continue  # data attributes (a dataclass's defaults) document themselves in the class
            seen.append((f"{cls.__name__}.{name}", value))
    return seen


def doc_of(obj):
    if isinstance(obj, (property, staticmethod)):
        return (obj.__func__ if isinstance(obj, staticmethod) else obj).__doc__ or ""
    return inspect.getdoc(obj) or ""


@pytest.mark.parametrize("where,obj", public_names(), ids=[w for w, _ in public_names()])
def test_every_public_name_has_a_docstring(where, obj):
    doc = doc_of(obj).strip()
    assert len(doc) >= 20, f"{where}: docstring {doc!r}"
    # pybind11's own first line is a typed signature ("name(self: steprdu._steprdu.Graph, ..."), not
    # documentation; the package moves it into the signature.
    assert "self:" not in doc and "_steprdu." not in doc, f"{where}: pybind11's signature line: {doc[:80]!r}"


@pytest.mark.parametrize("module", [ops, map_fn, init_fn, accum_fn, map_accum_fn], ids=lambda m: m.__name__)
def test_function_modules_list_only_what_they_offer(module):
    assert dir(module) == sorted(module.__all__)
    for name in ("np", "Graph", "BadInputError", "Function", "public"):
        assert name not in dir(module)


def test_signatures_show_the_real_parameters():
    for where, obj in public_names():
        if not callable(obj) or inspect.isclass(obj) or isinstance(obj, (property, staticmethod)):
            continue
        sig = inspect.signature(obj)
        kinds = {p.kind for p in sig.parameters.values()}
        if where not in ("steprdu.run", "Program.kernel"):  # the knobs of a testbench are keywords
            assert inspect.Parameter.VAR_KEYWORD not in kinds, f"{where}{sig}"
        assert inspect.Parameter.VAR_POSITIONAL not in kinds, f"{where}{sig}"
    assert str(inspect.signature(ops.LinearOffChipLoad)).startswith("(graph, tensor, tile_rows, tile_cols, stride")
    assert str(inspect.signature(steprdu.Graph.map)) == \
        "(self, inputs, fn, compute_bw=0, write_back_mu=False, name='')"
    # What pybind11's base class adds (__new__(*args, **kwargs)) aside, no method shows untyped or
    # "handle" parameters.
    text = "\n".join(line for line in pydoc.plain(pydoc.render_doc(steprdu.Graph)).splitlines()
                     if "pybind11_builtins" not in line)
    assert "handle" not in text and "*args" not in text
    assert "linear_offchip_load(self, tensor, tile_rows, tile_cols, stride, out_shape, ref=None" in text


def test_the_rank_convention_is_stated_where_ranks_are_taken():
    for doc in (steprdu.Shape.__doc__, steprdu.Graph.__doc__, ops.__doc__, steprdu.Stream.rank.__doc__):
        assert "rank 0" in doc and "innermost" in doc
