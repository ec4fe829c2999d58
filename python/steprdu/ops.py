"""Operators under the artifact's constructor names and keywords (step_py.ops, step_py.utility_ops) and the
paper's names, each adding to the Graph given first. They call the Graph's own methods (docs/python.md lists
both spellings); where the artifact's semantics differ, the difference is stated and checked here.

    x = ops.OffChipLoad(x_np, stride=(1, 0), out_shape_tiled=(4, 2), tile_row=16, tile_col=64,
                        par_dispatch=4, graph=g)
    y = ops.UnaryMap(g, x, map_fn.Silu(), write_back_mu=False, compute_bw=1024)
"""

import numpy as np

from steprdu._steprdu import BadInputError, Graph, Stream
from steprdu.datatypes import Tile

_ELEM_BYTES = {np.dtype(np.float32): 4, np.dtype(np.float16): 2}


def _graph(graph, op):
    if not isinstance(graph, Graph):
        raise BadInputError(f"{op}: graph: expected a steprdu.Graph, found {type(graph).__name__}")
    return graph


def _tensor(graph, underlying, op, cls="activations"):
    """A tensor name: a declared one as given, a numpy array declared under a fresh name."""
    if isinstance(underlying, str):
        if underlying not in graph.tensors:
            raise BadInputError(f"{op}: underlying: no tensor '{underlying}' in the graph; declare it with "
                                "graph.tensor(name, values) or pass a numpy array")
        return underlying, 4
    array = np.asarray(underlying)
    if array.dtype not in _ELEM_BYTES:
        raise BadInputError(f"{op}: underlying: expected a float32 or float16 array, found {array.dtype}")
    if array.ndim != 2:
        raise BadInputError(f"{op}: underlying: expected a 2-D array, found {array.ndim} dimensions")
    name = f"t{len(graph.tensors)}"
    while name in graph.tensors:
        name += "_"
    graph.tensor(name, array.astype(np.float32), cls=cls)
    return name, _ELEM_BYTES[array.dtype]


def _ints(values, what, op):
    if not isinstance(values, (tuple, list)) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                        for v in values):
        raise BadInputError(f"{op}: {what}: expected a tuple of integers, found {values!r}")
    return list(values)


def _elem_bytes(mock_bf16, native):
    return 2 if mock_bf16 else (native if native != 4 else 0)


# Off-chip memory.

def OffChipLoad(underlying, stride, out_shape_tiled, tile_row, tile_col, par_dispatch, mock_bf16=False, *,
                graph, name=""):
    """An affine tiled read (the paper's LinearOffChipLoad); `underlying` is a numpy array or a tensor name.
    The artifact's OffChipLoad joins a graph through its consumer; here the graph is the keyword `graph`."""
    g = _graph(graph, "OffChipLoad")
    tensor, native = _tensor(g, underlying, "OffChipLoad", cls="weights")
    return g.linear_offchip_load(tensor, tile_row, tile_col, _ints(stride, "stride", "OffChipLoad"),
                                 _ints(out_shape_tiled, "out_shape_tiled", "OffChipLoad"),
                                 elem_bytes=_elem_bytes(mock_bf16, native), par_dispatch=par_dispatch, name=name)


def DynOffChipLoad(graph, ref, underlying, stride, out_shape_tiled, tile_row, tile_col, par_dispatch,
                   mock_bf16=False, name=""):
    """The same read once per element of `ref`."""
    g = _graph(graph, "DynOffChipLoad")
    tensor, native = _tensor(g, underlying, "DynOffChipLoad", cls="weights")
    return g.linear_offchip_load(tensor, tile_row, tile_col, _ints(stride, "stride", "DynOffChipLoad"),
                                 _ints(out_shape_tiled, "out_shape_tiled", "DynOffChipLoad"), ref=ref,
                                 elem_bytes=_elem_bytes(mock_bf16, native), par_dispatch=par_dispatch, name=name)


def RandomOffChipLoad(graph, underlying, raddr, tile_row, tile_col, base_addr_byte, par_dispatch, mock_bf16=False,
                      name=""):
    """One tile per address; the artifact's base is in bytes, a whole number of tiles here."""
    g = _graph(graph, "RandomOffChipLoad")
    tensor, native = _tensor(g, underlying, "RandomOffChipLoad")
    elem = 2 if mock_bf16 else native
    tile_bytes = tile_row * tile_col * elem
    if base_addr_byte % tile_bytes:
        raise BadInputError(f"RandomOffChipLoad: base_addr_byte: expected a multiple of the tile's {tile_bytes} "
                            f"bytes, found {base_addr_byte}")
    args = {"tensor": tensor, "tile_rows": tile_row, "tile_cols": tile_col, "elem_bytes": _elem_bytes(mock_bf16, native),
            "base_tile": base_addr_byte // tile_bytes, "par_dispatch": par_dispatch}
    return g.add("RandomOffChipLoad", args, [raddr], name)[0]


def RandomOffChipStore(graph, underlying, wdata, waddr, tile_row, tile_col, base_addr_byte, par_dispatch,
                       ack_based_on_waddr=True, buffer_depth=1, mock_bf16=False, name=""):
    """Writes tiles at addresses; returns the acknowledgement stream (shaped like waddr)."""
    g = _graph(graph, "RandomOffChipStore")
    if base_addr_byte or not ack_based_on_waddr or buffer_depth != 1:
        raise BadInputError("RandomOffChipStore: only base_addr_byte=0, ack_based_on_waddr=True and "
                            f"buffer_depth=1 are modelled, found {base_addr_byte}, {ack_based_on_waddr}, "
                            f"{buffer_depth}")
    tensor, native = _tensor(g, underlying, "RandomOffChipStore")
    return g.random_offchip_store(waddr, wdata, tensor, elem_bytes=_elem_bytes(mock_bf16, native), name=name)


def OffChipStore(graph, input, par_dispatch, store_file_name="output", name=""):
    """Stores a stream of tiles in row-major tile order into the tensor `store_file_name`, declared here from
    the stream's shape [1, rows of tiles, columns of tiles] if the graph has none of that name."""
    g = _graph(graph, "OffChipStore")
    if not isinstance(input, Stream):
        raise BadInputError(f"OffChipStore: input: expected a Stream, found {type(input).__name__}")
    if store_file_name not in g.tensors:
        dims = [d.size.eval() for d in input.shape.dims]
        tile = input.tile and [input.tile[0].eval(), input.tile[1].eval()]
        if len(dims) != 3 or None in dims or not tile or None in tile:
            raise BadInputError(f"OffChipStore: cannot size tensor '{store_file_name}' from {input.type}; declare "
                                "it first with graph.tensor(name, rows=..., cols=...)")
        g.tensor(store_file_name, rows=dims[1] * tile[0], cols=dims[2] * tile[1])
    g.linear_offchip_store(input, store_file_name, par_dispatch=par_dispatch, name=name)


# On-chip memory.

def Bufferize(graph, input, rank, off_chip=False, name=""):
    if off_chip:
        raise BadInputError("Bufferize: off_chip=True (a buffer spilled to off-chip memory) is not modelled")
    return _graph(graph, "Bufferize").bufferize(input, rank, name=name)


def Streamify(graph, input, repeat_factor, rank=None, off_chip=False, name=""):
    """Streams each buffer out, repeated over `repeat_factor`; the buffer's rank comes from its type."""
    if off_chip:
        raise BadInputError("Streamify: off_chip=True is not modelled")
    return _graph(graph, "Streamify").streamify(input, repeat=_ints(repeat_factor, "repeat_factor", "Streamify"),
                                               name=name)


def ExpandRef(graph, input, ref, expand_rank, name=""):
    return _graph(graph, "ExpandRef").expand(input, ref, expand_rank, name=name)


def RepeatStatic(graph, input, repeat_factor, name=""):
    return _graph(graph, "RepeatStatic").repeat_static(input, repeat_factor, name=name)


def Promote(graph, input, promote_rank, name=""):
    return _graph(graph, "Promote").promote(input, promote_rank, name=name)


# Higher-order operators.

def UnaryMap(graph, input, fn, write_back_mu=False, compute_bw=0, name=""):
    return _graph(graph, "UnaryMap").map([input], fn, compute_bw=compute_bw, write_back_mu=write_back_mu, name=name)


def BinaryMap(graph, in1, in2, fn, write_back_mu=False, compute_bw=0, name=""):
    return _graph(graph, "BinaryMap").map([in1, in2], fn, compute_bw=compute_bw, write_back_mu=write_back_mu,
                                          name=name)


def BinaryMapAccum(graph, in1, in2, fn, init_fn, rank, write_back_mu=False, compute_bw=0, name=""):
    return _graph(graph, "BinaryMapAccum").map_accum(in1, in2, fn, init_fn, rank, compute_bw=compute_bw,
                                                     write_back_mu=write_back_mu, name=name)


def Accum(graph, input, output_stream_dtype, fn, init_fn, accum_rank, write_back_mu=False, compute_bw=0, name=""):
    """`output_stream_dtype` is a Tile (or None to infer it from the function)."""
    if output_stream_dtype is not None and not isinstance(output_stream_dtype, Tile):
        raise BadInputError(f"Accum: output_stream_dtype: expected a Tile or None, found "
                            f"{type(output_stream_dtype).__name__}")
    out = output_stream_dtype.to_json() if output_stream_dtype is not None else None
    return _graph(graph, "Accum").accum(input, fn, init_fn, accum_rank, compute_bw=compute_bw,
                                        write_back_mu=write_back_mu, out_tile=out, name=name)


# Routing and merging.

def Broadcast(graph, input, num_consumers, name=""):
    """Explicit fan-out (the graph inserts Broadcasts itself where a stream has several consumers)."""
    return _graph(graph, "Broadcast").add("Broadcast", {"num_consumers": num_consumers}, [input], name)


def Parallelize(graph, input, parallelize_rank, num_consumers, switch_cycles=None, write_back_mu=False, name=""):
    """Round robin over the outermost dimension, which the artifact names by the input's rank."""
    g = _graph(graph, "Parallelize")
    if parallelize_rank != input.rank:
        raise BadInputError(f"Parallelize: parallelize_rank: expected the input's rank {input.rank}, found "
                            f"{parallelize_rank}")
    if switch_cycles is not None or write_back_mu:
        args = {"num_consumers": num_consumers, "write_back_mu": bool(write_back_mu)}
        if switch_cycles is not None:
            args["switch_cycles"] = _ints(switch_cycles, "switch_cycles", "Parallelize")
        return g.add("Parallelize", args, [input], name)
    return g.parallelize(input, num_consumers, name=name)


def FlatPartition(graph, input, control, partition_rank, switch_cycles=None, write_back_mu=False,
                  num_consumers=None, name=""):
    g = _graph(graph, "FlatPartition")
    if num_consumers is None:
        raise BadInputError("FlatPartition: num_consumers is required")
    return g.partition(input, control, partition_rank, num_consumers, name=name)


def EagerMerge(graph, inputs, input_rank, name=""):
    """Returns (data, selector)."""
    return _graph(graph, "EagerMerge").eager_merge(list(inputs), input_rank, name=name)


def FlatReassemble(graph, inputs, control, reassemble_rank, switch_cycles=None, write_back_mu=False, name=""):
    return _graph(graph, "FlatReassemble").reassemble(list(inputs), control, reassemble_rank, name=name)


# Shape operators.

def Flatten(graph, input, min_rank, max_rank, name=""):
    """Merges the dimensions at ranks min_rank..max_rank; min_rank == max_rank changes nothing."""
    g = _graph(graph, "Flatten")
    if min_rank == max_rank:
        return input
    return g.flatten(input, min_rank, max_rank, name=name)


def Reshape(graph, input, chunk_size, reshape_rank, write_back_mu=False, add_outer_dim=False, pad_fn=None,
            name=""):
    """Splits the dimension at `reshape_rank` into chunks; pad_fn (any init function) pads the last chunk."""
    g = _graph(graph, "Reshape")
    if write_back_mu:
        raise BadInputError("Reshape: write_back_mu=True is not modelled")
    if add_outer_dim:
        return g.reshape_add_outer(input, chunk_size, pad=pad_fn is not None, name=name)
    return g.reshape(input, chunk_size, reshape_rank, pad=pad_fn is not None, name=name)


def RetileStreamify(graph, input, split_row, filter_mask=False, name=""):
    return _graph(graph, "RetileStreamify").retile_streamify(input, split_rows=split_row,
                                                             filter_padding=filter_mask, name=name)


# Sources, sinks and address generators (step_py.utility_ops).

def SelectGen(is_multihot, tensor, n, *, graph, name="SelectGen"):
    """Selectors from a 0/1 array [..., n]: each row's ones are the targets chosen."""
    g = _graph(graph, "SelectGen")
    if not is_multihot:
        raise BadInputError("SelectGen: is_multihot=False (index selectors) is not modelled")
    array = np.asarray(tensor)
    if array.ndim < 1 or array.shape[-1] != n:
        raise BadInputError(f"SelectGen: tensor: expected an array [..., {n}], found shape {array.shape}")
    rows = array.reshape(-1, n)
    selected = [[int(i) for i in np.flatnonzero(row)] for row in rows]
    return g.select_gen(selected, n, [1, *array.shape[:-1]], name=name)


def MetadataGen(tensor, *, graph, name="MetadataGen"):
    g = _graph(graph, "MetadataGen")
    array = np.asarray(tensor)
    if array.dtype.kind not in "iu" or (array < 0).any():
        raise BadInputError(f"MetadataGen: tensor: expected non-negative integers, found {array.dtype}")
    return g.metadata_gen([int(v) for v in array.reshape(-1)], [1, *array.shape], name=name)


def ExpertAddrGen(graph, input, num_tile_per_expert, expert_addr_base=0, name=""):
    """`expert_addr_base` in tiles."""
    return _graph(graph, "ExpertAddrGen").expert_addr_gen(input, num_tile_per_expert, expert_addr_base, name=name)


def CacheReadAddrGen(graph, idx, seq_len, row_offset, name=""):
    return _graph(graph, "CacheReadAddrGen").cache_read_addr_gen(idx, seq_len, row_offset, name=name)


def FilterLastTile(graph, input, name=""):
    return _graph(graph, "FilterLastTile").filter_last_tile(input, name=name)


def ConsumerContext(graph, input, name="Sink"):
    _graph(graph, "ConsumerContext").sink(input, name=name)


PrinterContext = ConsumerContext


# The paper's names (STeP, Table 1): the Graph method of the same operator, with the graph first.

def _paper_name(paper, method):
    def op(graph, *args, **kwargs):
        return getattr(_graph(graph, paper), method)(*args, **kwargs)

    op.__name__ = op.__qualname__ = paper
    op.__doc__ = f"{paper}(graph, ...): Graph.{method}(...)."
    return op


for _paper, _method in [("LinearOffChipLoad", "linear_offchip_load"), ("LinearOffChipStore", "linear_offchip_store"),
                        ("Partition", "partition"), ("Reassemble", "reassemble"), ("Map", "map"),
                        ("MapAccum", "map_accum"), ("Scan", "scan"), ("FlatMap", "flat_map"), ("Expand", "expand"),
                        ("Zip", "zip")]:
    globals()[_paper] = _paper_name(_paper, _method)
