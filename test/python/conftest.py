"""What the Python tests share: the views of heap tensors on each backend, and the rule that a run
whose every test was skipped ends with status 77 (ctest: skipped), never 0 (passed)."""

import numpy as np
import pytest

import tdist


def _torch():
    return pytest.importorskip("torch", reason="the cuda backend's tensors are read through torch")


def read(tensor):
    """A numpy copy of a heap tensor (or of a peer view): a zero-copy view on cpu."""
    if tdist.backend() == "cpu":
        return np.from_dlpack(tensor)
    torch = _torch()
    view = torch.from_dlpack(tensor)
    torch.cuda.synchronize()
    return view.float().cpu().numpy() if view.dtype == torch.bfloat16 else view.cpu().numpy()


def write(tensor, values):
    """Stores values (array-like) into a heap tensor or a peer view."""
    values = np.asarray(values)
    if tdist.backend() == "cpu":
        np.from_dlpack(tensor)[...] = values
        return
    torch = _torch()
    torch.from_dlpack(tensor).copy_(torch.from_numpy(values))
    torch.cuda.synchronize()


def example(name):
    """A module of examples/triton (its kernels and helpers), imported from its file."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "triton", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"tdist_example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pytest_runtest_logreport(report):
    # At once, not in the summary: a PE that fails a test leaves the others in a collective call,
    # and tdist-run ends the job (with its diagnostic) before any summary is printed.
    if report.failed:
        import sys
        pe = tdist.my_pe() if tdist.is_initialized() else "?"
        sys.stderr.write(f"PE {pe}: FAILED {report.nodeid} ({report.when})\n{report.longreprtext}\n")
        sys.stderr.flush()


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    # 5: nothing collected, as when a module skips itself (pytest.importorskip at its top).
    if reporter is None or exitstatus not in (0, 5):
        return
    passed = len(reporter.stats.get("passed", []))
    skipped = len(reporter.stats.get("skipped", []))
    if passed == 0 and skipped > 0:
        session.exitstatus = 77
