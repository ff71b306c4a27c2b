"""regions.py - pmon's regions from Python: a time step marked with the
decorator, a phase with the context manager, the node's energy so far
with read().  Runs under MPI (mpirun -n 4 python3 regions.py) when mpi4py
is installed, and as a plain script otherwise.  See pmon-python(7)."""
import time

try:
    from mpi4py import MPI  # initialises MPI: before pmon.init()
    comm = MPI.COMM_WORLD
except ImportError:
    comm = None
import pmon


@pmon.region  # a region named "step"
def step(n):
    return sum(1.0 / (i * i) for i in range(1, n))


pmon.init()
for _ in range(5):
    step(500000)
with pmon.region("exchange"):
    part = step(100000)  # a region inside a region: step's time is its own
    total = comm.allreduce(part) if comm is not None else part
    time.sleep(0.1)
energy_j, time_s = pmon.read()
if comm is None or comm.Get_rank() == 0:
    print(f"so far: {energy_j:.1f} J in {time_s:.2f} s")
pmon.finalize()  # rank 0 writes the report
