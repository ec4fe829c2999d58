"""Element and tile types under the artifact's names (step_py.datatype), and its dynamic dimension."""

from steprdu._steprdu import BadInputError, Dim, Expr


class ElementType:
    """An element type; `elem` is the name the C++ core uses (f32, bf16, f16, u64, bool)."""

    elem = "f32"

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __eq__(self, other):
        return isinstance(other, ElementType) and other.elem == self.elem

    def __hash__(self):
        return hash(self.elem)


class Float32(ElementType):
    elem = "f32"


class BFloat16(ElementType):
    elem = "bf16"


class Float16(ElementType):
    elem = "f16"


class Uint64(ElementType):
    elem = "u64"


class Bool(ElementType):
    elem = "bool"


def elem_name(dtype):
    """f32 for Float32(), Float32 or "f32"."""
    if isinstance(dtype, str):
        return dtype
    if isinstance(dtype, ElementType) or (isinstance(dtype, type) and issubclass(dtype, ElementType)):
        return dtype.elem
    raise BadInputError(f"element type: expected Float32(), BFloat16(), Float16(), Uint64(), Bool() or a name "
                        f"such as 'f32', found {type(dtype).__name__}")


class Tile:
    """Tile(tile_dtype, shape=(rows, cols)): the type of a stream element (an Accum's output dtype)."""

    def __init__(self, tile_dtype, shape):
        if not isinstance(shape, (tuple, list)) or len(shape) != 2:
            raise BadInputError(f"Tile: shape: expected (rows, cols), found {shape!r}")
        self.elem = elem_name(tile_dtype)
        self.rows, self.cols = shape

    def to_json(self):
        """rows, cols (ints, symbol names, Dims or Exprs) and elem, as Graph.accum's out_tile takes them."""
        return {"rows": self.rows, "cols": self.cols, "elem": self.elem}

    def __repr__(self):
        return f"Tile({self.elem}, ({self.rows}, {self.cols}))"


class Buffer:
    """Buffer(buff_dtype, shape): a buffer of tiles, as Bufferize makes (informational)."""

    def __init__(self, buff_dtype, shape):
        self.tile = buff_dtype
        self.shape = tuple(shape)

    def __repr__(self):
        return f"Buffer({self.tile!r}, {self.shape})"


def DynDim(name):
    """A data-dependent dimension named `name` (the artifact's DynDim); a Dim passes through."""
    if isinstance(name, Dim):
        return name
    if isinstance(name, Expr):
        return Dim(name)
    if not isinstance(name, str) or not name:
        raise BadInputError(f"DynDim: expected a symbol name, found {name!r}")
    return Dim.dynamic(name)
