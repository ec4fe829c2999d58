"""How every public call of the package reports a mistake: as a steprdu.Error subclass.

Python raises a builtin TypeError for a call it cannot bind (a missing argument, an unknown keyword) and pybind11
raises one for an argument of a type the C++ method does not take. `guard` (Python functions) and
`guard_native_class` (the extension's classes) turn those into steprdu.ArgumentError, which is also a TypeError,
with a message that shows how to call the function; other builtin errors escaping a call become the steprdu class
of the same meaning. They also give the extension's methods real signatures for help().
"""

import ast
import builtins
import functools
import inspect
import re

from steprdu._steprdu import ArgumentError, BadInputError, Error, OutOfRangeError


class MissingKeyError(BadInputError, KeyError):
    """A key that is not there (e.g. result["nope"]). Also a KeyError and a BadInputError."""

    __module__ = "steprdu"
    __str__ = BaseException.__str__  # KeyError would quote the whole message


def _call_form(name, sig):
    """`name(a, b=1)` without `self`."""
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values() if p.name != "self"]
    return f"{name}{sig.replace(parameters=params, return_annotation=inspect.Signature.empty)}"


def _reraise(qualname, sig, exc):
    """The steprdu error for a builtin exception that escaped the call `qualname`."""
    hint = f"call it as {_call_form(qualname.rsplit('.', 1)[-1], sig)}" if sig else f"see help({qualname})"
    text = str(exc).split("\n", 1)[0]
    if isinstance(exc, (builtins.TypeError, builtins.AttributeError)):
        return ArgumentError(f"{qualname}(): {text}; {hint}")
    if isinstance(exc, builtins.IndexError):
        return OutOfRangeError(f"{qualname}(): {text}")
    if isinstance(exc, builtins.KeyError):
        return MissingKeyError(f"{qualname}(): no {text}")
    return BadInputError(f"{qualname}(): {text}; {hint}")


_CONVERTED = (builtins.TypeError, builtins.AttributeError, builtins.IndexError, builtins.KeyError,
              builtins.ValueError)


# Modules whose public names the package itself re-exports (steprdu.load, steprdu.Tile, ...).
_REEXPORTED = {"steprdu", "steprdu.results", "steprdu.config", "steprdu.datatypes"}


def _public_name(module, name):
    """The name a user calls: steprdu.load, steprdu.ops.OffChipLoad."""
    return f"steprdu.{name}" if module in _REEXPORTED else f"{module}.{name}"


def guard(fn, qualname=None):
    """`fn` raising only steprdu errors: a call that does not bind is an ArgumentError showing the signature;
    a builtin TypeError, IndexError, KeyError or ValueError from inside becomes its steprdu counterpart."""
    qualname = qualname or _public_name(fn.__module__, fn.__qualname__)
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            sig.bind(*args, **kwargs)
        except builtins.TypeError as e:
            raise ArgumentError(f"{qualname}(): {e}; call it as {_call_form(qualname.rsplit('.', 1)[-1], sig)}") \
                from None
        try:
            return fn(*args, **kwargs)
        except Error:
            raise
        except _CONVERTED as e:
            raise _reraise(qualname, sig, e) from None

    call.__signature__ = sig
    return call


def public(fn):
    """Decorator form of `guard` for the package's module-level functions."""
    return guard(fn)


def guard_class(cls, qualname=None):
    """Guards __init__, __getitem__ and every public method a Python class defines itself."""
    qualname = qualname or _public_name(cls.__module__, cls.__qualname__)
    for name, value in list(vars(cls).items()):
        if (name.startswith("_") and name not in ("__init__", "__getitem__")) or not inspect.isfunction(value):
            continue
        setattr(cls, name, guard(value, f"{qualname}.{name}" if name != "__init__" else qualname))
    return cls


# The extension's methods: pybind11 puts the signature in the docstring's first line,
# "name(self: steprdu._steprdu.Graph, tensor: str, stride: handle, ref: handle = None) -> Stream".

class _Shown:
    """A default value help() shows as pybind11 printed it."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _split_top(text):
    """Splits at the commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


_PARAM = re.compile(r"^(\w+)(?:\s*:\s*(.+?))?(?:\s*=\s*(.+))?$")


def _native_signature(doc):
    """(Signature, {parameter: annotation text}, the docstring without its signature line) of a pybind11
    function, or (None, {}, doc) when the first line is not a signature."""
    first, _, rest = (doc or "").partition("\n")
    m = re.match(r"^\w+\((.*)\)(?:\s*->\s*.*)?$", first.strip())
    if not m:
        return None, {}, doc
    params, annotations = [], {}
    for part in _split_top(m.group(1)):
        pm = _PARAM.match(part)
        if not pm:
            return None, {}, doc
        name, ann, default = pm.groups()
        annotations[name] = (ann or "").strip()
        if default is None:
            params.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD))
            continue
        try:
            value = ast.literal_eval(default)
        except (ValueError, SyntaxError):
            value = _Shown(default)
        params.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=value))
    return inspect.Signature(params), annotations, rest.strip()


def _wrong_argument(bound, annotations):
    """'rows: expected int, found str' for the first argument whose Python type cannot match a plain
    annotation; None when none is found."""
    for name, value in bound.arguments.items():
        ann = annotations.get(name, "")
        wrong = ((ann == "int" and (isinstance(value, (float, str)) or not hasattr(value, "__index__")))
                 or (ann == "str" and not isinstance(value, str))
                 or (ann == "float" and not isinstance(value, (int, float)))
                 or (ann == "bool" and not isinstance(value, bool) and type(value).__name__ != "bool_"))
        if wrong:
            return f"{name}: expected {ann}, found {type(value).__name__}"
    return None


def _guard_native(fn, qualname, call_name):
    sig, annotations, doc = _native_signature(fn.__doc__)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Error:
            raise
        except builtins.TypeError as e:
            if sig is None:
                raise ArgumentError(f"{qualname}(): {str(e).splitlines()[0]}; see help({qualname})") from None
            try:
                bound = sig.bind(*args, **kwargs)
            except builtins.TypeError as bind_error:
                why = str(bind_error)
            else:
                why = _wrong_argument(bound, annotations) or "an argument of a type it does not take"
            hint = f"call it as {_call_form(call_name, sig)}" if call_name else f"see help({qualname})"
            raise ArgumentError(f"{qualname}(): {why}; {hint}") from None

    if sig is not None:
        call.__signature__ = sig
        call.__doc__ = doc
    del call.__wrapped__  # help() then shows the signature above, not the builtin's
    return call


def guard_native_class(cls, qualname=None):
    """Guards the methods (and __init__, __getitem__) of a pybind11 class: ArgumentError instead of
    pybind11's TypeError, and signatures with the parameters' names for help()."""
    qualname = qualname or f"steprdu.{cls.__name__}"
    if _native_signature(getattr(cls.__init__, "__doc__", None))[0] is None:
        # A class the extension only hands out (Stream, Op): pybind11 would raise a bare TypeError.
        def no_init(self, *args, **kwargs):
            raise ArgumentError(f"{qualname}: not made directly; Graph methods and steprdu.ops functions return "
                                "them")

        no_init._steprdu = True  # already raises the package's error
        cls.__init__ = no_init
    for name, value in list(vars(cls).items()):
        if (name.startswith("_") and name not in ("__init__", "__getitem__")) or getattr(value, "_steprdu", False):
            continue
        if isinstance(value, (property, type)) or not callable(getattr(cls, name)):
            continue
        static = isinstance(value, staticmethod)
        fn = getattr(cls, name)
        where = qualname if name == "__init__" else f"{qualname}.{name}"
        call_name = {"__init__": qualname, "__getitem__": None}.get(name, name)
        wrapped = _guard_native(fn, where, call_name)
        setattr(cls, name, staticmethod(wrapped) if static else wrapped)
    return cls
