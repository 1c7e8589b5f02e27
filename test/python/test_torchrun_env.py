"""A job started the way torchrun starts one (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
MASTER_PORT in every process's environment, no tdist-run): tdist.init() derives its bootstrap
from them, and still requires the job secret. Run by ctest directly; it starts the PEs itself."""

import os
import secrets
import socket
import subprocess
import sys

import pytest

PE_PROGRAM = r"""
import os, sys
import numpy as np
import tdist
tdist.init()
me, n = tdist.my_pe(), tdist.n_pes()
assert me == int(os.environ["RANK"]) and n == int(os.environ["WORLD_SIZE"]), (me, n)
x = tdist.zeros(16, "int64")
np.from_dlpack(x)[...] = me
tdist.barrier_all()
seen = [int(np.from_dlpack(tdist.peer(x, pe))[0]) for pe in range(n)]
assert seen == list(range(n)), seen
tdist.barrier_all()
tdist.free_tensor(x)
tdist.finalize()
print(f"PE {me} of {n}: ok", flush=True)
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(world_size, secret):
    store_port = free_port()
    processes = []
    for rank in range(world_size):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TDIST_") or k == "TDIST_BACKEND"}
        env.update(RANK=str(rank), WORLD_SIZE=str(world_size), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world_size),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(store_port - 1), TDIST_BOOTSTRAP_TIMEOUT="20")
        if secret is not None:
            env["TDIST_JOB_SECRET"] = secret
        processes.append(subprocess.Popen([sys.executable, "-c", PE_PROGRAM], env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True))
    return [(p.wait(timeout=120), p.stdout.read()) for p in processes]


@pytest.mark.parametrize("world_size", [2, 3])
def test_a_torchrun_job_bootstraps_from_its_variables(world_size):
    results = start(world_size, secrets.token_hex(16))
    for rank, (status, output) in enumerate(results):
        assert status == 0, output
        assert f"PE {rank} of {world_size}: ok" in output, output


def test_a_torchrun_job_without_the_secret_fails_clearly():
    for status, output in start(2, None):
        assert status != 0, output
        assert "TDIST_JOB_SECRET" in output, output
