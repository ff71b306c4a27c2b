"""tests/python.test's program: regions through the pmon package.

    python_regions.py [--mpi] [--no-finalize] [--preload] [--log PREFIX]

Prints what the test checks: "raised: ..." for the region whose block
raised, "read E T", and for each misuse "error NAME CODE | MESSAGE".
With --mpi, mpi4py initialises MPI first (every rank runs it); with
--no-finalize the report is left to the exit; with --preload pmon is
already measuring (pmon-run) and init() joins it.  With --log each rank
prints to its own file, PREFIX.RANK: a launcher that merges the ranks'
output may split a line of one rank with another's (Open MPI reads a
rank's output from a pseudo-terminal, in whatever pieces it comes).
"""
import asyncio
import pickle
import sys
import threading
import time

mpi = "--mpi" in sys.argv
if mpi:
    from mpi4py import MPI
import pmon

if "--log" in sys.argv:
    prefix = sys.argv[sys.argv.index("--log") + 1]
    rank = MPI.COMM_WORLD.Get_rank() if mpi else 0
    sys.stdout = open(f"{prefix}.{rank}", "w", buffering=1)

def misuse(what, f, *args):
    try:
        f(*args)
    except pmon.PmonError as e:
        print(f"error {what} {e.name} {e.code} | {e.message}", flush=True)
    else:
        print(f"error {what} none", flush=True)


if "--preload" not in sys.argv:
    misuse("begin-before-init", pmon.begin, "early")
pmon.init()
print("library", pmon.library_path, flush=True)
misuse("init-twice", pmon.init)
for _ in range(3):
    with pmon.region("ctx"):
        time.sleep(0.2)


@pmon.region
def step():
    time.sleep(0.15)


@pmon.region("named")
def other(x):
    time.sleep(0.1)
    return 2 * x


class Solver:
    @pmon.region
    def method(self, x):
        time.sleep(0.05)
        return x + 1


async def waits():
    await asyncio.sleep(0.05)
    return 7


step()
step()
assert other(21) == 42 and step.__name__ == "step"
assert Solver().method(1) == 2


def worker():
    with pmon.region("thread"):  # each thread's own region
        time.sleep(0.05)


threads = [threading.Thread(target=worker) for _ in range(2)]
for th in threads:
    th.start()
for th in threads:
    th.join()
assert asyncio.run(pmon.region("coro")(waits)()) == 7
try:
    with pmon.region("raises"):
        time.sleep(0.1)
        raise KeyError("from the block")
except KeyError as e:
    print("raised:", e, flush=True)
# a block that raises with its region's end failing too: the block's
# exception goes on
try:
    with pmon.region("outer"):
        pmon.begin("inner")
        raise ValueError("kept")
except ValueError as e:
    print("raised:", e, flush=True)
pmon.end("inner")
pmon.end("outer")
misuse("end-without-begin", pmon.end, "nothing-open")
misuse("name-too-long", pmon.begin, "x" * 300)
misuse("name-not-str", pmon.begin, 3)
misuse("name-with-nul", pmon.begin, "a\0b")
misuse("region-without-name", pmon.region().__enter__)
misuse("name-not-utf8", pmon.begin, "\udc80")
try:
    @pmon.region
    def gen():
        yield 1
except TypeError as e:
    print(f"generator: TypeError: {e}", flush=True)
try:
    pmon.end("nothing-open")
except pmon.PmonError as e:
    back = pickle.loads(pickle.dumps(e))
    print(f"pickled {back.code} {back.name} {back.message == e.message}",
          flush=True)
e, t = pmon.read()
print(f"read {e:.3f} {t:.3f}", flush=True)
if mpi:
    MPI.COMM_WORLD.Barrier()
if "--no-finalize" not in sys.argv:
    pmon.finalize()
    misuse("begin-after-finalize", pmon.begin, "late")
