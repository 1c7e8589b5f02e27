"""The seeds' host API in their names (seed 001 §5.1-5.2), so that their code runs as written
after ``import tdist.shmem as ash``: set_conf_store_tls, InitAttr (my_rank, n_ranks,
local_mem_size, ip_port, option_attr.data_op_engine_type), OpEngineType, aclshmem_init,
aclshmem_create_tensor, aclshmem_free_tensor, aclshmem_my_pe, aclshmem_n_pes,
aclshmem_barrier_all, aclshmem_finalize. docs/PYTHON.md shows the seed's code running.

Every call is the runtime's: aclshmem_init is the C API's aclshmemx_init_attr (the job secret and
the wait deadline come from the environment, as tdist-run sets them), a tensor is tdist.empty's.
aclshmem_create_tensor returns a torch tensor when torch can be imported (as the seed says), else
the heap tensor itself (which numpy and cupy take through DLPack).
"""

import enum

from . import _C
from . import empty as _empty
from . import free_tensor as _free_tensor
from ._C import Error, ErrorCode
from ._dtypes import invalid


class OpEngineType(enum.IntEnum):
    """The data paths of option_attr.data_op_engine_type (a bit-OR of them)."""

    MTE = _C.ENGINE_MTE    # the calling core loads and stores peer memory
    SDMA = _C.ENGINE_SDMA  # a copy engine carries non-blocking transfers
    ROCE = _C.ENGINE_ROCE
    UDMA = _C.ENGINE_UDMA


class OptionAttr:
    """aclshmem_init_optional_attr_t: the engines and the deadlines (seconds) of init."""

    def __init__(self):
        self.data_op_engine_type = OpEngineType.MTE
        self.shm_init_timeout = 120
        self.shm_create_timeout = 120
        self.control_operation_timeout = 120


class InitAttr:
    """aclshmemx_init_attr_t, with the seed's field names."""

    def __init__(self):
        self.my_rank = 0
        self.n_ranks = 1
        self.local_mem_size = 64 << 20
        self.ip_port = ""
        self.option_attr = OptionAttr()


def set_conf_store_tls(enable, tls_info):
    """TLS between the PEs and the bootstrap store, for the aclshmem_init calls that follow: with
    enable, tls_info is "ca=FILE;cert=FILE;key=FILE" (PEM files: the job's CA, this PE's
    certificate signed by it, its key); set_conf_store_tls(False, "") turns it off (the default,
    unless TDIST_TLS_CA/_CERT/_KEY are set). The job secret is still required."""
    _C.set_conf_store_tls(bool(enable), str(tls_info))


def aclshmem_init(attributes):
    """Joins the job with the seed's attributes (collective over n_ranks PEs)."""
    if not isinstance(attributes, InitAttr):
        raise invalid(f"aclshmem_init: expected a tdist.shmem.InitAttr, not {type(attributes).__name__}")
    option = attributes.option_attr
    _C.aclshmem_init_attributes(int(attributes.my_rank), int(attributes.n_ranks), int(attributes.local_mem_size),
                                str(attributes.ip_port), int(option.data_op_engine_type),
                                int(option.shm_init_timeout), int(option.shm_create_timeout),
                                int(option.control_operation_timeout))


# Heap tensors handed out as torch tensors, by data pointer: the free needs the heap tensor.
_torch_views = {}


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def aclshmem_create_tensor(shape, dtype, device_id=None):
    """A tensor on the symmetric heap (collective: the same shape and dtype on every PE). A torch
    tensor when torch can be imported, else the heap tensor. device_id is the seed's: on cuda it
    must name the PE's GPU (modulo the GPUs there are, as tdist-run maps PEs to GPUs); on cpu it
    is not used."""
    tensor = _empty(shape, dtype)
    if device_id is not None and _C.backend() == "cuda":
        device = tensor.__dlpack_device__()[1]
        count = _C.cuda_device_count()
        if int(device_id) % count != device:
            _free_tensor(tensor)
            raise invalid(f"aclshmem_create_tensor: device_id {device_id} is not this PE's GPU ({device} of {count})")
    torch = _torch()
    if torch is None:
        return tensor
    view = torch.from_dlpack(tensor)
    _torch_views[view.data_ptr()] = tensor
    return view


def aclshmem_free_tensor(tensor):
    """Frees a tensor from aclshmem_create_tensor (collective)."""
    torch = _torch()
    if torch is not None and isinstance(tensor, torch.Tensor):
        heap = _torch_views.pop(tensor.data_ptr(), None)
        if heap is None:
            raise invalid("aclshmem_free_tensor: this torch tensor is not one aclshmem_create_tensor returned "
                          "(or it was freed)")
        _free_tensor(heap)
        return
    _free_tensor(tensor)


def aclshmem_my_pe():
    return _C.my_pe()


def aclshmem_n_pes():
    return _C.n_pes()


def aclshmem_barrier_all():
    _C.barrier_all()


def aclshmem_finalize():
    """Leaves the job (collective), as tdist.finalize: the kernel library's contexts first."""
    from . import finalize
    _torch_views.clear()
    finalize()
