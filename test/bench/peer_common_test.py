"""Checks of bench/torch_peer_common.py that need no torch and no GPU (run by scripts_test.sh)."""
import os
import sys
import warnings

sys.path.insert(0, os.path.join(sys.argv[1], "bench"))
import torch_peer_common as common  # noqa: E402


class Deprecated:
    """torch 2.8 and later: the call works and warns."""
    def __init__(self):
        self.enabled = []

    def enable_symm_mem_for_group(self, name):
        warnings.warn("`enable_symm_mem_for_group` is deprecated", FutureWarning)
        self.enabled.append(name)


class Failing:
    def enable_symm_mem_for_group(self, name):
        raise RuntimeError("already registered")


class AlreadyOn:
    def is_symm_mem_enabled_for_group(self, name):
        return True

    def enable_symm_mem_for_group(self, name):
        raise AssertionError("called for a group already enabled")


def main():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torch = Deprecated()
        assert common.enable_symm_mem(torch, "g") is None
        assert torch.enabled == ["g"], torch.enabled
        assert not seen, [str(w.message) for w in seen]  # the deprecation stays quiet
    assert common.enable_symm_mem(Failing(), "g") == "RuntimeError: already registered"
    assert common.enable_symm_mem(AlreadyOn(), "g") is None
    assert common.enable_symm_mem(object(), "g") is None  # a torch without the call
    assert common.size_in(1 << 10, 1 << 30)("64M") == 64 << 20
    assert common.format_bytes(3 << 20) == "3MiB"
    print("torch_peer_common: all checks passed")


if __name__ == "__main__":
    main()
