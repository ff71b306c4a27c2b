"""Where the pmon package finds libpmon, in this order:

1. the process itself, when it already holds pmon (the preload of
   pmon-run, or a program that embeds Python and links libpmon): a
   second copy of the library would be a second, separate pmon;
2. PMON_LIBRARY, a path to the library: only that, when it is set;
3. the library directory recorded when pmon was built (make install,
   or pip install from a configured tree);
4. the loader's path (LD_LIBRARY_PATH, the ld.so cache): libpmon.so.0.

When none works, importing pmon fails with one line that names each.
"""
from __future__ import annotations

import ctypes
import os
from typing import List, Tuple

SONAME = "libpmon.so.0"


def _recorded() -> str:
    try:
        from ._libdir import LIBDIR  # written by make
    except ImportError:
        return ""
    return LIBDIR


def _open(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)
    lib.pmon_version  # not pmon at all: AttributeError
    return lib


def load() -> Tuple[ctypes.CDLL, str]:
    """The library and where it came from; ImportError when none."""
    tried: List[str] = []
    try:
        return _open(None), "(this process)"  # type: ignore[arg-type]
    except (OSError, AttributeError):
        tried.append("this process: no pmon in it")
    env = os.environ.get("PMON_LIBRARY", "")
    if env:
        try:
            return _open(env), env
        except (OSError, AttributeError) as e:
            raise ImportError(f"pmon: python: PMON_LIBRARY={env}: cannot "
                              f"load it: {_why(e, env)}") from None
    d = _recorded()
    if d:
        p = os.path.join(d, SONAME)
        try:
            return _open(p), p
        except (OSError, AttributeError) as e:
            tried.append(f"{p}: {_why(e, p)}")
    else:
        tried.append("no library directory recorded at install")
    try:
        return _open(SONAME), SONAME
    except (OSError, AttributeError) as e:
        tried.append(f"the loader's path: {SONAME}: {_why(e, SONAME)}")
    raise ImportError("pmon: python: cannot load libpmon: tried " +
                      "; ".join(tried) + "; PMON_LIBRARY (unset)" +
                      ": set PMON_LIBRARY to the library's path")


def _why(e: BaseException, path: str = "") -> str:
    if isinstance(e, AttributeError):
        return "not libpmon (no pmon_version)"
    text = str(e)
    for p in (path, os.path.basename(path)) if path else ():
        if text.startswith(p + ": "):  # the loader names it first
            return text[len(p) + 2:]
    return text
