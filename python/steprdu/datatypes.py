"""Element and tile types under the artifact's names (step_py.datatype), and its dynamic dimension."""

from steprdu._api import guard_class, public
from steprdu._steprdu import BadInputError, Dim, Expr


class ElementType:
    """An element type; `elem` is the name the C++ core uses (f32, bf16, f16, u64, bool). Instances compare
    equal by that name; the classes below are the ones a program names."""

    elem = "f32"

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __eq__(self, other):
        return isinstance(other, ElementType) and other.elem == self.elem

    def __hash__(self):
        return hash(self.elem)


class Float32(ElementType):
    """32-bit float elements (4 bytes): every off-chip tensor's values."""

    elem = "f32"


class BFloat16(ElementType):
    """bfloat16 elements (2 bytes), for timing; values are held as float32."""

    elem = "bf16"


class Float16(ElementType):
    """16-bit float elements (2 bytes), for timing; values are held as float32."""

    elem = "f16"


class Uint64(ElementType):
    """Unsigned 64-bit integers (8 bytes): addresses, counts and metadata."""

    elem = "u64"


class Bool(ElementType):
    """Booleans (1 byte): acknowledgements and masks."""

    elem = "bool"


def elem_name(dtype):
    """The core's element name ('f32') of Float32(), the class Float32 or the name itself."""
    if isinstance(dtype, str):
        return dtype
    if isinstance(dtype, ElementType) or (isinstance(dtype, type) and issubclass(dtype, ElementType)):
        return dtype.elem
    raise BadInputError(f"element type: expected Float32(), BFloat16(), Float16(), Uint64(), Bool() or a name "
                        f"such as 'f32', found {type(dtype).__name__}")


class Tile:
    """Tile(tile_dtype, shape=(rows, cols)): the type of a tile stream's elements, e.g. an Accum's output type.

    tile_dtype: an element type (Float32(), ...) or its name; rows and cols: elements, each an int, a symbol
    name, a Dim or an Expr (the artifact's DynTile is the same class here).
    """

    def __init__(self, tile_dtype, shape):
        if not isinstance(shape, (tuple, list)) or len(shape) != 2:
            raise BadInputError(f"Tile: shape: expected (rows, cols), found {shape!r}")
        self.elem = elem_name(tile_dtype)
        self.rows, self.cols = shape

    def to_json(self):
        """{'rows', 'cols', 'elem'}, as Graph.accum's out_tile takes it."""
        return {"rows": self.rows, "cols": self.cols, "elem": self.elem}

    def __repr__(self):
        return f"Tile({self.elem}, ({self.rows}, {self.cols}))"


DynTile = Tile  # symbolic tile sizes are native here


class Buffer:
    """Buffer(buff_dtype, shape): the type of a buffer of tiles, as Bufferize makes (informational: a program
    never needs to state it). buff_dtype: the buffered Tile; shape: the buffer's dimensions in tiles."""

    def __init__(self, buff_dtype, shape):
        if not isinstance(shape, (tuple, list)):
            raise BadInputError(f"Buffer: shape: expected a tuple of dimensions, found {shape!r}")
        self.tile = buff_dtype
        self.shape = tuple(shape)

    def __repr__(self):
        return f"Buffer({self.tile!r}, {self.shape})"


@public
def DynDim(name):
    """A data-dependent dimension named `name` (the artifact's DynDim): a Dim whose size is the symbol `name`,
    bound later with Graph.bind. A Dim passes through; an Expr becomes a dimension derived from it."""
    if isinstance(name, Dim):
        return name
    if isinstance(name, Expr):
        return Dim(name)
    if not isinstance(name, str) or not name:
        raise BadInputError(f"DynDim: expected a symbol name, found {name!r}")
    return Dim.dynamic(name)


for _cls in (Tile, Buffer):
    guard_class(_cls)
