"""Where the pmon package finds libpmon, in this order:

1. the process itself, when it already holds pmon (the preload of
   pmon-run, or a program that embeds Python and links libpmon): a
   second copy of the library would be a second, separate pmon;
2. PMON_LIBRARY, a path to the library: only that, when it is set;
3. the library directory recorded when pmon was built (make install,
   or pip install from a configured tree), loaded only when the library
   and every directory above it belong to root, this user or the owner
   of this package's own files, and none is writable by group or others
   (but a sticky directory of root's, as /tmp): a directory that is gone
   may be made again by anyone, and loading runs the library's code;
4. the loader's path (LD_LIBRARY_PATH, the ld.so cache): libpmon.so.0.

When none works, importing pmon fails with one line that names each; a
recorded library that is not to be trusted fails it at once, naming
the path and its owner.
"""
from __future__ import annotations

import ctypes
import os
import stat
from typing import List, Tuple

SONAME = "libpmon.so.0"


def _recorded() -> str:
    try:
        from ._libdir import LIBDIR  # written by make
    except ImportError:
        return ""
    return LIBDIR


def _owner(uid: int) -> str:
    try:
        import pwd
        return f"uid {uid} ({pwd.getpwuid(uid).pw_name})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def _untrusted(path: str) -> str:
    """Why the library at PATH may not be loaded, or "" when it may.

    The file (links resolved) and each directory above it must belong to
    root, this user or the owner of this package's directory (whose code
    runs already), and none may be writable by group or others, but a
    sticky directory of root's (as /tmp).  A path that is not there is
    left to the loader to say so.
    """
    trusted = {0, os.geteuid()}
    try:
        trusted.add(os.stat(os.path.dirname(os.path.abspath(__file__))).st_uid)
    except OSError:
        pass
    p = os.path.realpath(path)
    if not os.path.exists(p):
        return ""
    top = p
    while True:
        try:
            st = os.lstat(p)
        except OSError as e:
            return f"{p}: {e.strerror}"
        if st.st_uid not in trusted:
            return (f"{p}: {_owner(st.st_uid)}'s, not root's, this user's "
                    "or the package's owner's")
        sticky = (stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
                  and st.st_uid == 0 and p != top)
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not sticky:
            return (f"{p}: writable by {'others' if st.st_mode & stat.S_IWOTH else 'its group'} "
                    f"(mode {stat.S_IMODE(st.st_mode):04o}, {_owner(st.st_uid)}'s)")
        parent = os.path.dirname(p)
        if parent == p:
            return ""
        p = parent


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
        why = _untrusted(p)
        if why:
            raise ImportError(f"pmon: python: {p}: not loaded: {why}: "
                              "set PMON_LIBRARY to a library you trust")
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
