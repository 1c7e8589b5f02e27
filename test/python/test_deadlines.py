"""A wait from Python that nothing satisfies ends the job within its deadline, with the runtime's
diagnostic (exit status 97), on the job's backend; a PE that stops making the collective calls
the others make ends it the same way. Run by ctest directly; it starts tdist-run itself."""

import os
import subprocess
import sys
import tempfile

import pytest

TDIST_RUN = os.environ["TDIST_RUN"]


def run(pes, program, *flags):
    # From a file, not `python -c`: Triton's jit reads a kernel's source from its file.
    with tempfile.TemporaryDirectory() as directory:
        script = os.path.join(directory, "program.py")
        with open(script, "w") as f:
            f.write(program)
        job = subprocess.run([TDIST_RUN, "-n", str(pes), "--wait-timeout", "2", *flags, "--", sys.executable, script],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    return job.returncode, job.stdout


def test_a_signal_wait_nobody_satisfies_ends_at_its_deadline():
    # Without tdist-run's hang check, which would end the job as early (the wait's own deadline).
    status, output = run(1, "import tdist\ntdist.init()\nsig = tdist.zeros(1, 'uint64')\n"
                            "tdist.signal_wait_until(sig, 'eq', 1)\n", "--hang-check", "0")
    if status == 77:
        pytest.skip("no GPU for the cuda backend")
    assert status == 97, output
    assert "tdist::shmem::signal_wait_until: wait passed its deadline of 2.000 s" in output, output
    assert "waiting for EQ 1" in output and "observed 0" in output, output


def test_a_pe_that_skips_a_barrier_ends_the_job_with_a_diagnostic():
    status, output = run(2, "import tdist\ntdist.init()\nif tdist.my_pe() == 0:\n    tdist.barrier_all()\n"
                            "else:\n    import time; time.sleep(30)\n")
    if status == 77:
        pytest.skip("no GPU for the cuda backend")
    assert status == 97, output
    assert "PE 0" in output and "wait passed its deadline" in output, output


TRITON_WAIT = """
import torch, triton, triton.language as tl
import tdist, tdist.language as tdl

@tdl.jit
def stuck(signals):
    tdl.wait(signals, 1, "sys", "acquire", 1)

tdist.init()
signals = torch.from_dlpack(tdist.zeros(8, "uint64"))
stuck[(1,)](signals, num_warps=WARPS)
torch.cuda.synchronize()
"""


# One warp: every lane polls and the first keeps the books (and expires); four: the first thread.
@pytest.mark.parametrize("warps", [1, 4])
def test_a_triton_kernel_waiting_for_nothing_ends_at_its_deadline(warps):
    if os.environ.get("TDIST_BACKEND", "cpu") != "cuda":
        pytest.skip("Triton kernels run on the cuda backend")
    import importlib.util
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("triton") is None:
        pytest.skip("no torch or triton")
    status, output = run(1, TRITON_WAIT.replace("WARPS", str(warps)), "--hang-check", "0")
    if status == 77:
        pytest.skip("no GPU for the cuda backend")
    assert status == 97, output
    assert "tdist::device::wait" in output and "passed its deadline" in output, output
