"""torch_peer_common.py - what the PyTorch peer scripts (torch_symm_mem_peer.py, torch_gemm_peers.py)
share: the environment every rank runs in, argument parsers, sizes as tdist-bench prints them, and
the rendezvous port.

Importing it sets FORCED_ENV: import it before torch.
"""
import argparse
import os
import socket
import warnings

# NVLink multicast stays off everywhere, whatever the caller's environment; ranks that share a GPU
# need the overlapping-devices switch to map each other's memory. Inherited by the workers.
FORCED_ENV = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
    "TORCH_SYMM_MEM_ALLOW_OVERLAPPING_DEVICES": "1",
}
os.environ.update(FORCED_ENV)


def int_in(low, high):
    """An argparse type: an integer in low..high."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got '{text}'") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {low}..{high}, got {value}")
        return value
    return parse


def size_in(low, high, multiple=1):
    """An argparse type: a size like 4K, 64M, 1G (KiB, MiB, GiB) in low..high, a multiple of `multiple`."""
    def parse(text):
        t = text.strip().upper().removesuffix("IB").removesuffix("B")
        shift = {"K": 10, "M": 20, "G": 30}.get(t[-1:], 0)
        number = t[:-1] if shift else t
        value = int(number) << shift if number.isdigit() else 0
        if not low <= value <= high or value % multiple:
            what = f"{format_bytes(low)}..{format_bytes(high)}"
            if multiple > 1:
                what += f", a multiple of {multiple}"
            raise argparse.ArgumentTypeError(f"expected a size like 8K, 2M, 1G ({what}), got '{text}'")
        return value
    return parse


def format_bytes(n):
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return f"{n}B"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def enable_symm_mem(symm_mem, group_name):
    """Enables symmetric memory for the group where this torch needs it (before 2.8 the fused ops'
    workspace and rendezvous look for it; 2.8 and later deprecate the call: a FutureWarning, kept
    quiet here). Returns None, or the error's text where the call failed (e.g. already enabled)."""
    if not hasattr(symm_mem, "enable_symm_mem_for_group"):
        return None
    enabled = getattr(symm_mem, "is_symm_mem_enabled_for_group", lambda name: False)
    if enabled(group_name):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            symm_mem.enable_symm_mem_for_group(group_name)
    except Exception as e:  # the caller reports it and goes on
        return f"{type(e).__name__}: {e}"
    return None
