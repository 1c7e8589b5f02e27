"""Seed 001 §5.1-5.2, the host side in Python, run as written under tdist-run (2 PEs): the five
steps of init, a symmetric tensor, its free. Only what the seed leaves to its context is defined
here: rank, world_size, shape, and torch (numpy's dtypes stand in where torch is missing)."""

import os

import numpy as np

import tdist.shmem as ash
from conftest import read, write

try:
    import torch
except ImportError:
    class torch:  # noqa: N801 - the seed's name
        float16 = np.float16


def test_the_seeds_host_code_runs_as_written():
    rank = int(os.environ["TDIST_PE"])
    world_size = int(os.environ["TDIST_N_PES"])
    shape = (64, 32)

    # ---- seed 001 §5.1, verbatim ----
    ash.set_conf_store_tls(False, "")                                  # 1. TLS configuration
    attributes = ash.InitAttr()                                        # 2. Construct initialization attributes
    attributes.my_rank = rank
    attributes.n_ranks = world_size
    attributes.local_mem_size = 1024 * 1024 * 1024                     # 3. Symmetric heap size
    attributes.ip_port = "tcp://127.0.0.1:8666"                        #    Bootstrap address
    attributes.option_attr.data_op_engine_type = ash.OpEngineType.MTE  # 4. Transport engine
    ash.aclshmem_init(attributes)                                      # 5. Initialize

    assert ash.aclshmem_my_pe() == rank and ash.aclshmem_n_pes() == world_size

    # ---- seed 001 §5.2, verbatim ----
    peer_mem = ash.aclshmem_create_tensor(shape, dtype=torch.float16, device_id=rank)
    assert tuple(peer_mem.shape) == shape
    ash.aclshmem_barrier_all()
    ash.aclshmem_free_tensor(peer_mem)

    ash.aclshmem_finalize()


def test_init_again_after_finalize_with_the_kernel_library():
    # aclshmem_finalize closes the kernel library's contexts as tdist.finalize does: after a new
    # init, the calls run on contexts of the new heap.
    import pytest
    import tdist
    import tdist.kernels as tk
    stale = {}
    for round in range(2):
        attributes = ash.InitAttr()
        attributes.my_rank = int(os.environ["TDIST_PE"])
        attributes.n_ranks = int(os.environ["TDIST_N_PES"])
        attributes.local_mem_size = 64 << 20
        attributes.ip_port = "tcp://127.0.0.1:8666"
        ash.aclshmem_init(attributes)
        x = tdist.zeros(1024, "float32")
        write(x, np.full(1024, round + 1, dtype=np.float32))
        tk.all_reduce(x)
        assert (read(x) == (round + 1) * ash.aclshmem_n_pes()).all()
        if round == 0:  # a tensor and a context left to the finalize
            stale["tensor"] = tdist.zeros(4, "int32")
            stale["context"] = tk.Context(scratch_bytes=1 << 20, max_signals=tk.min_signals())
        else:  # of the job before: refused, though the new heap may sit at the same address
            with pytest.raises(tdist.Error, match="belongs to a job this process finalized"):
                stale["tensor"].shape
            with pytest.raises(tdist.Error, match="belongs to a job this process finalized"):
                tk.all_reduce(x, context=stale["context"])
        tdist.barrier_all()
        tdist.free_tensor(x)
        context = tk.default_context()
        ash.aclshmem_finalize()
        assert context.closed


def test_tls_info_that_is_not_one_is_refused_clearly():
    # A whole TLS job runs in the launcher's test (launcher_tls_job): it makes the certificates.
    try:
        ash.set_conf_store_tls(True, "/etc/tdist/tls")
    except ash.Error as error:
        assert error.code == ash.ErrorCode.InvalidParam
        assert "bad tls_info '/etc/tdist/tls'" in str(error) and "ca=FILE;cert=FILE;key=FILE" in str(error)
    else:
        raise AssertionError("set_conf_store_tls(True, '/etc/tdist/tls') was accepted")
    ash.set_conf_store_tls(False, "")  # off again: the default
