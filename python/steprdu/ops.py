"""Operators under the STeP artifact's constructor names and keywords (step_py.ops, step_py.utility_ops) and under
the paper's names, each adding to the Graph given first (or as the keyword `graph` for the artifact's sources).

The artifact's constructors return an Op: pass it wherever a stream goes when it has one output, and name an
output of a multi-output operator as (op, i) or op[i]. The paper's names return what the Graph method of the same
operator returns (a Stream). Ranks count from the innermost dimension (rank 0), as in the artifact.

    x = ops.OffChipLoad(x_np, stride=(1, 0), out_shape_tiled=(4, 2), tile_row=16, tile_col=64,
                        par_dispatch=4, graph=g, name="x")
    parts = ops.FlatPartition(g, x, sel, partition_rank=0, switch_cycles=[1, 1], num_consumers=2)
    y = ops.UnaryMap(g, (parts, 0), map_fn.Silu(), write_back_mu=False, compute_bw=1024)
    ops.OffChipStore(g, y, par_dispatch=1, store_file_name="y")
"""

import numpy as _np

from steprdu._api import public as _public
from steprdu._steprdu import BadInputError as _BadInputError, Graph as _Graph
from steprdu.datatypes import Tile as _Tile

__all__ = [
    # The artifact's names.
    "OffChipLoad", "DynOffChipLoad", "RandomOffChipLoad", "RandomOffChipStore", "OffChipStore", "Bufferize",
    "Streamify", "DynStreamify", "ExpandRef", "RepeatStatic", "Promote", "UnaryMap", "BinaryMap",
    "BinaryMapAccum", "Accum", "Broadcast", "Parallelize", "FlatPartition", "EagerMerge", "FlatReassemble",
    "Flatten", "Reshape", "RetileStreamify", "SelectGen", "MetadataGen", "ExpertAddrGen", "CacheReadAddrGen",
    "FilterLastTile", "ConsumerContext", "PrinterContext",
    # The paper's names.
    "LinearOffChipLoad", "LinearOffChipStore", "Partition", "Reassemble", "Map", "MapAccum", "Scan", "FlatMap",
    "Expand", "Zip",
]


def __dir__():
    return sorted(__all__)


def _graph(graph, op):
    if not isinstance(graph, _Graph):
        raise _BadInputError(f"{op}: graph: expected a steprdu.Graph, found {type(graph).__name__}"
                             + ("; the artifact's sources take the graph as the keyword graph=g"
                                if op in ("OffChipLoad", "SelectGen", "MetadataGen") else ""))
    return graph


def _fresh_name(g, base):
    """`base`_k: the first name free among both tensors and operators."""
    taken = set(g.tensors) | set(g.operators)
    k = 0
    while f"{base}_{k}" in taken:
        k += 1
    return f"{base}_{k}"


def _tensor(g, underlying, op, name, cls):
    """(tensor name, operator name, native element bytes) for `underlying`: a declared tensor's name as given,
    or an array declared here under `name` (default: a fresh `<op>_<k>`, which the operator is named too) and
    class `cls`, with steprdu's one dtype rule (Graph.tensor: float32 or float16 arrays, lists of numbers)."""
    if isinstance(underlying, str):
        if underlying not in g.tensors:
            raise _BadInputError(f"{op}: underlying: no tensor '{underlying}' in the graph; declare it with "
                                 "graph.tensor(name, values) or pass a float32 numpy array")
        if cls is not None:
            raise _BadInputError(f"{op}: cls: tensor '{underlying}' is already declared (its class was set by "
                                 "graph.tensor(..., cls=)); pass cls only with an array")
        return underlying, name, 4
    if not isinstance(name, str):
        raise _BadInputError(f"{op}: name: expected a tensor name (str), found {type(name).__name__}")
    tensor = name or _fresh_name(g, op)
    if tensor in g.tensors:
        raise _BadInputError(f"{op}: name: the graph already has a tensor '{tensor}'; pass the name itself as "
                             "`underlying` to read it again, or choose another name")
    g.tensor(tensor, underlying, cls="activations" if cls is None else cls)
    native = 2 if isinstance(underlying, _np.ndarray) and underlying.dtype == _np.float16 else 4
    return tensor, name or tensor, native


def _ints(values, what, op):
    if not isinstance(values, (tuple, list)) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                        for v in values):
        raise _BadInputError(f"{op}: {what}: expected a tuple of integers, found {values!r}")
    return list(values)


def _elem_bytes(mock_bf16, native):
    return 2 if mock_bf16 else (native if native != 4 else 0)


def _op(result):
    """The Op behind what a Graph method returned: a Stream, a list or a tuple of them."""
    return (result[0] if isinstance(result, (list, tuple)) else result).op


# Off-chip memory.

@_public
def OffChipLoad(underlying, stride, out_shape_tiled, tile_row, tile_col, par_dispatch, mock_bf16=False, *,
                graph, name="", cls=None):
    """LinearOffChipLoad: an affine read of `underlying` in tile_row x tile_col tiles (elements).

    underlying: a float32 (or float16) numpy array of 1 or 2 dimensions, or a nested list of numbers, declared
    here as the tensor `name` of class `cls` ('weights', 'activations' (default) or 'kv_cache'); or the name
    of a tensor already declared (then cls must be None). Without `name` the tensor and the operator get a
    fresh name OffChipLoad_<k>; with it, both are called `name` (functional results are r.tensors[name]).
    out_shape_tiled: the read's dimensions, outermost first; stride: per dimension, the step in tiles
    (row-major tile index). par_dispatch: 64-byte requests per cycle. mock_bf16: time and count 2-byte
    elements. The artifact joins the graph through the consumer; here it is the keyword `graph`.
    Returns the Op; its stream is [1, *out_shape_tiled] of f32 tiles.
    """
    g = _graph(graph, "OffChipLoad")
    tensor, op_name, native = _tensor(g, underlying, "OffChipLoad", name, cls)
    return g.linear_offchip_load(tensor, tile_row, tile_col, _ints(stride, "stride", "OffChipLoad"),
                                 _ints(out_shape_tiled, "out_shape_tiled", "OffChipLoad"),
                                 elem_bytes=_elem_bytes(mock_bf16, native), par_dispatch=par_dispatch,
                                 name=op_name).op


@_public
def DynOffChipLoad(graph, ref, underlying, stride, out_shape_tiled, tile_row, tile_col, par_dispatch,
                   mock_bf16=False, name="", cls=None):
    """The paper's LinearOffChipLoad with a reference: the read of OffChipLoad once per element of `ref` (a
    stream, Op or (op, i)). underlying, name and cls as for OffChipLoad. Returns the Op; its stream is
    ref's shape followed by out_shape_tiled."""
    g = _graph(graph, "DynOffChipLoad")
    tensor, op_name, native = _tensor(g, underlying, "DynOffChipLoad", name, cls)
    return g.linear_offchip_load(tensor, tile_row, tile_col, _ints(stride, "stride", "DynOffChipLoad"),
                                 _ints(out_shape_tiled, "out_shape_tiled", "DynOffChipLoad"), ref=ref,
                                 elem_bytes=_elem_bytes(mock_bf16, native), par_dispatch=par_dispatch,
                                 name=op_name).op


@_public
def RandomOffChipLoad(graph, underlying, raddr, tile_row, tile_col, base_addr_byte, par_dispatch, mock_bf16=False,
                      name="", cls=None):
    """One tile_row x tile_col tile of `underlying` per address of `raddr` (u64 tile indices).
    base_addr_byte: the artifact's base address in bytes, a whole number of tiles here. underlying, name and
    cls as for OffChipLoad. Returns the Op; its stream is shaped like raddr."""
    g = _graph(graph, "RandomOffChipLoad")
    tensor, op_name, native = _tensor(g, underlying, "RandomOffChipLoad", name, cls)
    elem = 2 if mock_bf16 else native
    tile_bytes = tile_row * tile_col * elem
    if base_addr_byte % tile_bytes:
        raise _BadInputError(f"RandomOffChipLoad: base_addr_byte: expected a multiple of the tile's {tile_bytes} "
                             f"bytes, found {base_addr_byte}")
    args = {"tensor": tensor, "tile_rows": tile_row, "tile_cols": tile_col,
            "elem_bytes": _elem_bytes(mock_bf16, native), "base_tile": base_addr_byte // tile_bytes,
            "par_dispatch": par_dispatch}
    return _op(g.add("RandomOffChipLoad", args, [raddr], op_name))


@_public
def RandomOffChipStore(graph, underlying, wdata, waddr, tile_row, tile_col, base_addr_byte, par_dispatch,
                       ack_based_on_waddr=True, buffer_depth=1, mock_bf16=False, name="", cls=None):
    """Writes each tile of `wdata` at the tile index of the matching `waddr` element into `underlying` (as for
    OffChipLoad; note the artifact's input order). Only base_addr_byte=0, ack_based_on_waddr=True and
    buffer_depth=1 are modelled. Returns the Op; its stream is the acknowledgements, shaped like waddr."""
    g = _graph(graph, "RandomOffChipStore")
    if base_addr_byte or not ack_based_on_waddr or buffer_depth != 1:
        raise _BadInputError("RandomOffChipStore: only base_addr_byte=0, ack_based_on_waddr=True and "
                             f"buffer_depth=1 are modelled, found {base_addr_byte}, {ack_based_on_waddr}, "
                             f"{buffer_depth}")
    tensor, op_name, native = _tensor(g, underlying, "RandomOffChipStore", name, cls)
    return g.random_offchip_store(waddr, wdata, tensor, elem_bytes=_elem_bytes(mock_bf16, native),
                                  name=op_name).op


@_public
def OffChipStore(graph, input, par_dispatch, store_file_name="output", name=""):
    """LinearOffChipStore: writes the tiles of `input` (a stream, Op or (op, i)) in row-major tile order into
    the tensor `store_file_name`. When the graph has no tensor of that name it is declared here from the
    stream's static shape [1, ..., rows of tiles, columns of tiles]: the last dimension counts tile columns,
    the others stack tile rows (the artifact's tensor_shape_tiled = shape[1:], its leading dimensions
    flattened into rows). par_dispatch: 64-byte requests per cycle. Returns the store's Op
    (op.off_chip_traffic() gives its bytes)."""
    g = _graph(graph, "OffChipStore")
    stream = g.stream(input)
    if store_file_name not in g.tensors:
        dims = [d.size.eval() for d in stream.shape.dims]
        tile = stream.tile and [stream.tile[0].eval(), stream.tile[1].eval()]
        if len(dims) < 2 or None in dims or not tile or None in tile:
            raise _BadInputError(f"OffChipStore: cannot size tensor '{store_file_name}' from {stream.type} (a "
                                 "static shape [1, rows of tiles, columns of tiles] is needed); state the shape "
                                 "with stream.set_shape([...]) or declare the tensor first with "
                                 "graph.tensor(name, rows=..., cols=...)")
        rows = 1
        for d in dims[:-1]:
            rows *= d
        g.tensor(store_file_name, rows=rows * tile[0], cols=dims[-1] * tile[1])
    return g.linear_offchip_store(stream, store_file_name, par_dispatch=par_dispatch, name=name)


# On-chip memory.

@_public
def Bufferize(graph, input, rank, off_chip=False, name=""):
    """Holds the innermost `rank` dimensions of `input` in on-chip memory; off_chip=True is not modelled.
    Returns the Op; its stream carries one buffer per outer element."""
    if off_chip:
        raise _BadInputError("Bufferize: off_chip=True (a buffer spilled to off-chip memory) is not modelled")
    return _graph(graph, "Bufferize").bufferize(input, rank, name=name).op


@_public
def Streamify(graph, input, repeat_factor, rank=None, off_chip=False, name=""):
    """Streams each buffer's tiles out, repeated over `repeat_factor` (a list of counts); the buffer's rank
    comes from its type, so `rank` is not needed. Returns the Op."""
    if off_chip:
        raise _BadInputError("Streamify: off_chip=True is not modelled")
    return _graph(graph, "Streamify").streamify(input, repeat=_ints(repeat_factor, "repeat_factor", "Streamify"),
                                                name=name).op


@_public
def DynStreamify(graph, input, ref, repeat_rank=None, bufferized_rank=None, off_chip=False, name=""):
    """Streams each buffer's tiles out once per element of `ref` (the ranks follow from the types). Returns
    the Op; its stream is ref's shape followed by the buffer's."""
    if off_chip:
        raise _BadInputError("DynStreamify: off_chip=True is not modelled")
    return _graph(graph, "DynStreamify").streamify(input, ref=ref, name=name).op


@_public
def ExpandRef(graph, input, ref, expand_rank, name=""):
    """The paper's Expand: repeats each element of `input` over the innermost `expand_rank` dimensions of
    `ref`. Returns the Op; its stream is shaped like ref."""
    return _graph(graph, "ExpandRef").expand(input, ref, expand_rank, name=name).op


@_public
def RepeatStatic(graph, input, repeat_factor, name=""):
    """Emits each element `repeat_factor` times (a new innermost dimension). Returns the Op."""
    return _graph(graph, "RepeatStatic").repeat_static(input, repeat_factor, name=name).op


@_public
def Promote(graph, input, promote_rank, name=""):
    """Inserts a dimension of size 1 at rank `promote_rank`. Returns the Op."""
    return _graph(graph, "Promote").promote(input, promote_rank, name=name).op


# Higher-order operators.

@_public
def UnaryMap(graph, input, fn, write_back_mu=False, compute_bw=0, name=""):
    """Map of one input: `fn` (a map_fn Function) per element; compute_bw in FLOPs/cycle; write_back_mu
    writes results to an on-chip memory unit. Returns the Op."""
    return _graph(graph, "UnaryMap").map([input], fn, compute_bw=compute_bw, write_back_mu=write_back_mu,
                                         name=name).op


@_public
def BinaryMap(graph, in1, in2, fn, write_back_mu=False, compute_bw=0, name=""):
    """Map of two inputs of the same shape: `fn` per element pair; compute_bw in FLOPs/cycle. Returns the
    Op."""
    return _graph(graph, "BinaryMap").map([in1, in2], fn, compute_bw=compute_bw, write_back_mu=write_back_mu,
                                          name=name).op


@_public
def BinaryMapAccum(graph, in1, in2, fn, init_fn, rank, write_back_mu=False, compute_bw=0, name=""):
    """MapAccum: `fn` (map_accum_fn.Matmul()) per element pair, summed over the innermost `rank` dimensions
    from `init_fn` (whose tile must be the product's). compute_bw in FLOPs/cycle. Returns the Op."""
    return _graph(graph, "BinaryMapAccum").map_accum(in1, in2, fn, init_fn, rank, compute_bw=compute_bw,
                                                     write_back_mu=write_back_mu, name=name).op


@_public
def Accum(graph, input, output_stream_dtype, fn, init_fn, accum_rank, write_back_mu=False, compute_bw=0, name=""):
    """Folds the innermost `accum_rank` dimensions with `fn` (an accum_fn Function) from `init_fn`.
    output_stream_dtype: the accumulator's Tile (or None to infer it from the function). compute_bw in
    FLOPs/cycle. Returns the Op."""
    if output_stream_dtype is not None and not isinstance(output_stream_dtype, _Tile):
        raise _BadInputError(f"Accum: output_stream_dtype: expected a Tile or None, found "
                             f"{type(output_stream_dtype).__name__}")
    out = output_stream_dtype.to_json() if output_stream_dtype is not None else None
    return _graph(graph, "Accum").accum(input, fn, init_fn, accum_rank, compute_bw=compute_bw,
                                        write_back_mu=write_back_mu, out_tile=out, name=name).op


# Routing and merging.

@_public
def Broadcast(graph, input, num_consumers, name=""):
    """Explicit fan-out to num_consumers identical outputs (the graph inserts Broadcasts itself where a
    stream has several consumers, as the artifact's infer_broadcast does). Returns the Op."""
    return _op(_graph(graph, "Broadcast").add("Broadcast", {"num_consumers": num_consumers}, [input], name))


@_public
def Parallelize(graph, input, parallelize_rank, num_consumers, switch_cycles=None, write_back_mu=False, name=""):
    """Deals the outermost dimension's elements round robin to num_consumers outputs; parallelize_rank must be
    the input's rank (the outermost). switch_cycles: per output, cycles to switch to it. Returns the Op;
    its outputs are (op, i)."""
    g = _graph(graph, "Parallelize")
    rank = g.stream(input).rank
    if parallelize_rank != rank:
        raise _BadInputError(f"Parallelize: parallelize_rank: expected the input's rank {rank}, found "
                             f"{parallelize_rank}")
    if switch_cycles is not None or write_back_mu:
        args = {"num_consumers": num_consumers, "write_back_mu": bool(write_back_mu)}
        if switch_cycles is not None:
            args["switch_cycles"] = _ints(switch_cycles, "switch_cycles", "Parallelize")
        return _op(g.add("Parallelize", args, [input], name))
    return _op(g.parallelize(input, num_consumers, name=name))


@_public
def FlatPartition(graph, input, control, partition_rank, switch_cycles=None, write_back_mu=False,
                  num_consumers=None, name=""):
    """The paper's Partition: sends each rank-`partition_rank` element of `input` to the consumers its
    `control` selector names. num_consumers is required. Returns the Op; output i is (op, i), with a new
    data-dependent outer dimension to bind with graph.bind."""
    g = _graph(graph, "FlatPartition")
    if num_consumers is None:
        raise _BadInputError("FlatPartition: num_consumers is required")
    return _op(g.partition(input, control, partition_rank, num_consumers, name=name))


@_public
def EagerMerge(graph, inputs, input_rank, name=""):
    """Forwards whole rank-`input_rank` elements from whichever input has one first. Returns the Op: (op, 0)
    is the merged data, (op, 1) the selector naming each element's input (data, sel = op also works)."""
    return _op(_graph(graph, "EagerMerge").eager_merge(list(inputs), input_rank, name=name))


@_public
def FlatReassemble(graph, inputs, control, reassemble_rank, switch_cycles=None, write_back_mu=False, name=""):
    """The paper's Reassemble: gathers rank-`reassemble_rank` elements from the `inputs` the `control`
    selector names. Returns the Op."""
    return _graph(graph, "FlatReassemble").reassemble(list(inputs), control, reassemble_rank, name=name).op


# Shape operators.

@_public
def Flatten(graph, input, min_rank, max_rank, name=""):
    """Merges the dimensions at ranks min_rank..max_rank into one; min_rank == max_rank changes nothing and
    returns `input` itself. Returns the Op."""
    g = _graph(graph, "Flatten")
    if min_rank == max_rank:
        return input
    return g.flatten(input, min_rank, max_rank, name=name).op


@_public
def Reshape(graph, input, chunk_size, reshape_rank, write_back_mu=False, add_outer_dim=False, pad_fn=None,
            name=""):
    """Splits the dimension at `reshape_rank` into chunks of chunk_size; pad_fn (any init function) pads the
    last chunk; add_outer_dim (a rank-0 input) adds an outer dimension of 1 (0 when empty), the paper's
    dynamic Promote. write_back_mu=True is not modelled. Returns the Op."""
    g = _graph(graph, "Reshape")
    if write_back_mu:
        raise _BadInputError("Reshape: write_back_mu=True is not modelled")
    if add_outer_dim:
        return g.reshape_add_outer(input, chunk_size, pad=pad_fn is not None, name=name).op
    return g.reshape(input, chunk_size, reshape_rank, pad=pad_fn is not None, name=name).op


@_public
def RetileStreamify(graph, input, split_row, filter_mask=False, name=""):
    """Splits each tile into its rows (split_row=True) or columns, flattened into the innermost dimension;
    filter_mask drops padding rows. Returns the Op."""
    return _graph(graph, "RetileStreamify").retile_streamify(input, split_rows=split_row,
                                                             filter_padding=filter_mask, name=name).op


# Sources, sinks and address generators (step_py.utility_ops).

@_public
def SelectGen(is_multihot, tensor, n, *, graph, name="SelectGen"):
    """Multi-hot selectors from a 0/1 array [..., n]: each row's ones are the targets chosen. Returns the Op;
    its stream is [1, *tensor.shape[:-1]]. is_multihot=False (index selectors) is not modelled."""
    g = _graph(graph, "SelectGen")
    if not is_multihot:
        raise _BadInputError("SelectGen: is_multihot=False (index selectors) is not modelled")
    array = _np.asarray(tensor)
    if array.ndim < 1 or array.shape[-1] != n:
        raise _BadInputError(f"SelectGen: tensor: expected an array [..., {n}], found shape {array.shape}")
    rows = array.reshape(-1, n)
    selected = [[int(i) for i in _np.flatnonzero(row)] for row in rows]
    return g.select_gen(selected, n, [1, *array.shape[:-1]], name=name).op


@_public
def MetadataGen(tensor, *, graph, name="MetadataGen"):
    """A stream [1, *tensor.shape] of the non-negative integers of `tensor` (an int array) as u64 scalars.
    Returns the Op."""
    g = _graph(graph, "MetadataGen")
    array = _np.asarray(tensor)
    if array.dtype.kind not in "iu" or (array < 0).any():
        raise _BadInputError(f"MetadataGen: tensor: expected non-negative integers, found {array.dtype}")
    return g.metadata_gen([int(v) for v in array.reshape(-1)], [1, *array.shape], name=name).op


@_public
def ExpertAddrGen(graph, input, num_tile_per_expert, expert_addr_base=0, name=""):
    """For each one-hot selector, the tile indices expert_addr_base + e * num_tile_per_expert + i of the
    selected expert e (expert_addr_base in tiles). Returns the Op."""
    return _graph(graph, "ExpertAddrGen").expert_addr_gen(input, num_tile_per_expert, expert_addr_base,
                                                          name=name).op


@_public
def CacheReadAddrGen(graph, idx, seq_len, row_offset, name=""):
    """For each request, the tile addresses idx * row_offset + j for j below its seq_len (tiles). Returns the
    Op."""
    return _graph(graph, "CacheReadAddrGen").cache_read_addr_gen(idx, seq_len, row_offset, name=name).op


@_public
def FilterLastTile(graph, input, name=""):
    """For each tile count, a selector sending the last tile one way and the others the other. Returns the
    Op."""
    return _graph(graph, "FilterLastTile").filter_last_tile(input, name=name).op


@_public
def ConsumerContext(graph, input, name="Sink"):
    """A sink that consumes `input`. Returns the sink's Op."""
    return _graph(graph, "ConsumerContext").sink(input, name=name)


@_public
def PrinterContext(graph, input, name="Sink"):
    """The artifact's printing sink: consumes `input` as ConsumerContext does (nothing is printed). Returns
    the sink's Op."""
    return _graph(graph, "PrinterContext").sink(input, name=name)


# The paper's names (STeP, Table 1): the Graph method of the same operator, with the graph first.

@_public
def LinearOffChipLoad(graph, tensor, tile_rows, tile_cols, stride, out_shape, ref=None, elem_bytes=0,
                      par_dispatch=1, name=""):
    """Graph.linear_offchip_load: an affine tiled read of the declared `tensor`. Returns the Stream."""
    return _graph(graph, "LinearOffChipLoad").linear_offchip_load(
        tensor, tile_rows, tile_cols, stride, out_shape, ref=ref, elem_bytes=elem_bytes,
        par_dispatch=par_dispatch, name=name)


@_public
def LinearOffChipStore(graph, input, tensor, par_dispatch=1, name=""):
    """Graph.linear_offchip_store: writes `input`'s tiles into `tensor`. Returns the store's Op."""
    return _graph(graph, "LinearOffChipStore").linear_offchip_store(input, tensor, par_dispatch=par_dispatch,
                                                                     name=name)


@_public
def Partition(graph, input, control, rank, num_consumers, name=""):
    """Graph.partition: routes rank-`rank` elements by `control`. Returns a list of num_consumers Streams."""
    return _graph(graph, "Partition").partition(input, control, rank, num_consumers, name=name)


@_public
def Reassemble(graph, inputs, control, rank, name=""):
    """Graph.reassemble: gathers rank-`rank` elements by `control`. Returns the Stream."""
    return _graph(graph, "Reassemble").reassemble(inputs, control, rank, name=name)


@_public
def Map(graph, inputs, fn, compute_bw=0, write_back_mu=False, name=""):
    """Graph.map: `fn` per element of `inputs` (one stream or a list). Returns the Stream."""
    return _graph(graph, "Map").map(inputs, fn, compute_bw=compute_bw, write_back_mu=write_back_mu, name=name)


@_public
def MapAccum(graph, in1, in2, fn, init, rank, compute_bw=0, write_back_mu=False, name=""):
    """Graph.map_accum: `fn` per element pair, summed over the innermost `rank` dimensions. Returns the
    Stream."""
    return _graph(graph, "MapAccum").map_accum(in1, in2, fn, init, rank, compute_bw=compute_bw,
                                               write_back_mu=write_back_mu, name=name)


@_public
def Scan(graph, input, fn, init, rank, compute_bw=0, write_back_mu=False, name=""):
    """Graph.scan: the running fold over the innermost `rank` dimensions. Returns the Stream."""
    return _graph(graph, "Scan").scan(input, fn, init, rank, compute_bw=compute_bw, write_back_mu=write_back_mu,
                                      name=name)


@_public
def FlatMap(graph, input, fn_args, name=""):
    """Graph.flat_map: each element replaced by a stream as fn_args describes. Returns the Stream."""
    return _graph(graph, "FlatMap").flat_map(input, fn_args, name=name)


@_public
def Expand(graph, input, ref, rank, name=""):
    """Graph.expand: repeats each element over the innermost `rank` dimensions of `ref`. Returns the
    Stream."""
    return _graph(graph, "Expand").expand(input, ref, rank, name=name)


@_public
def Zip(graph, in1, in2, name=""):
    """Graph.zip: pairs the elements of two streams of the same shape. Returns the Stream."""
    return _graph(graph, "Zip").zip(in1, in2, name=name)
