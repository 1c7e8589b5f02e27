"""A tour of tdist from Python on the cpu backend, run by every PE under tdist-run:

    PYTHONPATH=build/python:.deps/python build/bin/tdist-run -n 4 -- python3 examples/python/host_tour.py

Every PE puts its rank into a tensor on the symmetric heap, then sums every PE's copy of it
through tdist.peer (loads from the peers' heaps, no message passing) and checks the sum.
"""

import os
import sys

import numpy as np
import tdist

tdist.init()
me, n = tdist.my_pe(), tdist.n_pes()

x = tdist.zeros(1024, "float32")              # collective: on every PE's heap, at the same offset
np.from_dlpack(x)[...] = me + 1               # this PE's copy
tdist.barrier_all()

total = sum(np.from_dlpack(tdist.peer(x, pe)) for pe in range(n))
expected = n * (n + 1) / 2
ok = bool((total == expected).all())
line = (f"tdist-python: PE {me} of {n} ({tdist.backend()}): the sum of every PE's copy is {total[0]:g}, "
        f"{'as expected' if ok else f'expected {expected:g}'}\n")
os.write(1, line.encode())                    # one write: the PEs' lines do not interleave

tdist.barrier_all()                           # every PE is done reading before the free
tdist.free_tensor(x)
tdist.finalize()
sys.exit(0 if ok else 1)
