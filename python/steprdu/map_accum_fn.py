"""Functions for MapAccum (the artifact's step_py.functions.map_accum_fn)."""

from steprdu.map_fn import DynMatmul, Matmul

__all__ = ["Matmul", "DynMatmul"]
