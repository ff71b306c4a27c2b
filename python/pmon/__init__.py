"""pmon: mark regions of a Python program for pmon's energy report.

The package calls libpmon through ctypes (no compiled extension), so it
follows the library it finds: see pmon-python(7) for where it looks and
what each call does.

    import pmon
    pmon.init()                      # after MPI_Init, if the program uses MPI
    with pmon.region("solve"):
        ...
    @pmon.region                     # the region is the function's name
    def step(): ...
    energy_j, time_s = pmon.read()
    pmon.finalize()

Every call that fails raises PmonError with pmon's own code and message.
"""
from __future__ import annotations

import atexit
import ctypes
import functools
import inspect
import sys
from typing import Any, Callable, NamedTuple, Optional, TypeVar, Union

from ._load import load as _load

__all__ = ["PmonError", "Reading", "init", "finalize", "begin", "end", "read",
           "region", "strerror", "library_path", "__version__"]

_lib, library_path = _load()

_lib.pmon_init.argtypes = []
_lib.pmon_finalize.argtypes = []
_lib.pmon_region_begin.argtypes = [ctypes.c_char_p]
_lib.pmon_region_end.argtypes = [ctypes.c_char_p]
_lib.pmon_read.argtypes = [ctypes.POINTER(ctypes.c_double),
                           ctypes.POINTER(ctypes.c_double)]
for _f in ("pmon_strerror", "pmon_err_name"):
    getattr(_lib, _f).argtypes = [ctypes.c_int]
for _f in ("pmon_strerror", "pmon_err_name", "pmon_errmsg", "pmon_version"):
    getattr(_lib, _f).restype = ctypes.c_char_p
_lib.pmon_errmsg.argtypes = []
_lib.pmon_version.argtypes = []

#: The version of the libpmon in use ("MAJOR.MINOR.PATCH").
__version__: str = _lib.pmon_version().decode()

# Error codes (pmon.h's list, appended to, never renumbered); PmonError.code
# is one of these.
EINVAL = -1
ENOINIT = -2
EALREADY = -3
EFINALIZED = -4
ENOMEM = -5
ENAMETOOLONG = -6
ENOREGION = -7
ENEST = -8
ECONFIG = -9
ENOMETER = -10
EIO = -11
EFORMAT = -12
EMPI = -13
EAGAIN = -14
ERESET = -15
ENODATA = -16
EOUTPUT = -17
ENOTSUP = -18


def strerror(code: int) -> str:
    """pmon's short description of an error code (pmon_strerror(3))."""
    return _lib.pmon_strerror(code).decode(errors="replace")


class PmonError(Exception):
    """A pmon call failed.

    code: pmon's negative error code (pmon.h), name: its symbol
    ("PMON_ENOREGION"), message: pmon's detailed line (pmon_errmsg(3)), or
    its short description when the library gave none.
    """

    def __init__(self, code: int, message: Optional[str] = None) -> None:
        self.code = code
        self.name = _lib.pmon_err_name(code).decode(errors="replace")
        self.message = message or strerror(code)
        super().__init__(f"{self.message} ({self.name})")

    def __reduce__(self) -> Any:  # pickle, copy: from the code and message
        return (type(self), (self.code, self.message))


def _check(rc: int, what: str) -> None:
    if rc < 0:
        msg = _lib.pmon_errmsg().decode(errors="replace")
        raise PmonError(rc, msg or f"pmon: {what}: {strerror(rc)}")


def _name(name: Any, what: str) -> bytes:
    if not isinstance(name, str):
        raise PmonError(EINVAL, f"pmon: {what}: region name {name!r}: "
                        f"it must be a str, not {type(name).__name__}")
    try:
        b = name.encode()
    except UnicodeEncodeError as e:
        raise PmonError(EINVAL, f"pmon: {what}: region name {name!r}: "
                        f"not UTF-8: {e.reason}") from None
    if b"\0" in b:
        raise PmonError(EINVAL, f"pmon: {what}: region name {name!r}: "
                        "it holds a NUL character")
    return b


_atexit_armed = False


def _mpi_running() -> bool:
    mpi = sys.modules.get("mpi4py.MPI")
    try:
        return bool(mpi is not None and mpi.Is_initialized()
                    and not mpi.Is_finalized())
    except Exception:
        return False


def _at_exit() -> None:
    try:
        _lib.pmon_finalize()
    except Exception:
        pass


def init() -> None:
    """Start measuring (pmon_init(3)).

    In an MPI program call it on every rank after MPI has been initialised
    (importing mpi4py.MPI does that); it is then collective.  Without MPI
    the process is one rank on one node, and the report is written when
    finalize() is called or, failing that, when Python exits.  Under
    pmon-run or the preload pmon is already measuring: the first init()
    joins that measurement, as pmon_init(3) does.
    """
    global _atexit_armed
    _check(_lib.pmon_init(), "init")
    if not _atexit_armed and not _mpi_running():
        # An MPI program's MPI_Finalize() finalises pmon (pmon_init(3)); a
        # script without MPI has nothing that would.
        atexit.register(_at_exit)
        _atexit_armed = True


def finalize() -> None:
    """Stop measuring and write the report (pmon_finalize(3)); collective
    under MPI, before MPI is finalised."""
    _check(_lib.pmon_finalize(), "finalize")


def begin(name: str) -> None:
    """Open region NAME in the calling thread (pmon_region_begin(3))."""
    _check(_lib.pmon_region_begin(_name(name, "region_begin")),
           "region_begin")


def end(name: str) -> None:
    """Close region NAME, the innermost one open in the calling thread
    (pmon_region_end(3))."""
    _check(_lib.pmon_region_end(_name(name, "region_end")), "region_end")


class Reading(NamedTuple):
    """What read() returns: the node's energy since init and the time it
    covers."""
    energy_j: float
    time_s: float


def read() -> Reading:
    """The energy this node has used since init(), as far as its meters
    have measured it, and the time that covers (pmon_read(3)).  Raises
    PmonError (ENODATA) before a meter has reported."""
    e, t = ctypes.c_double(), ctypes.c_double()
    _check(_lib.pmon_read(ctypes.byref(e), ctypes.byref(t)), "read")
    return Reading(e.value, t.value)


F = TypeVar("F", bound=Callable[..., Any])


class region:
    """A region as a context manager or a decorator.

        with pmon.region("io"):
            ...

        @pmon.region("step")      # or @pmon.region: the function's name
        def step(): ...

    The region ends when the block or the function ends, whether it
    returns or raises; an exception from the block is never replaced by
    pmon's.  One object may be entered again, from one thread or several:
    each entry opens the region in the thread that enters.  A decorated
    function stays a function (methods bind as before); a decorated
    coroutine function's region spans each await of it, in the thread
    that runs the event loop: regions are per thread, so coroutines of
    one loop must not interleave their regions (asyncio.gather of two
    decorated coroutines ends one out of order: ENEST).  Generator
    functions cannot be decorated (TypeError): their region would end
    before their first item.
    """

    def __new__(cls, name: Union[str, Callable[..., Any], None] = None):
        if callable(name):  # @pmon.region, without parentheses
            return _wrap(name, _func_name(name))
        return super().__new__(cls)

    def __init__(self, name: Optional[str] = None) -> None:
        if name is not None:
            _name(name, "region")
        self.name = name

    def __enter__(self) -> "region":
        if self.name is None:
            raise PmonError(EINVAL, "pmon: region: no name: give one, or "
                            "use it as a decorator")
        begin(self.name)
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self.name is None:
            return
        try:
            end(self.name)
        except PmonError:
            if exc_type is None:
                raise
            # the block's own exception goes on; pmon's would hide it

    def __call__(self, func: F) -> F:
        if not callable(func):
            raise TypeError("pmon.region(name) decorates a function")
        return _wrap(func, self.name if self.name is not None
                     else _func_name(func))


def _wrap(func: F, name: str) -> F:
    """FUNC inside region NAME, as a function of the same kind."""
    _name(name, "region")
    if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
        raise TypeError(f"pmon.region: {name}: a generator function cannot "
                        "be a region (it would end before the first item): "
                        "put a with pmon.region() block around its work")
    if inspect.iscoroutinefunction(func):
        @functools.wraps(func)
        async def awrapper(*a: Any, **kw: Any) -> Any:
            with region(name):
                return await func(*a, **kw)
        return awrapper  # type: ignore[return-value]

    @functools.wraps(func)
    def wrapper(*a: Any, **kw: Any) -> Any:
        with region(name):
            return func(*a, **kw)
    return wrapper  # type: ignore[return-value]


def _func_name(func: Callable[..., Any]) -> str:
    return getattr(func, "__qualname__", None) or getattr(
        func, "__name__", repr(func))
