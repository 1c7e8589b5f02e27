"""The Triton programs as printed, each a job of tdist-run on the cuda backend: the kernel of
docs/TRITON.md and the two examples of examples/triton, at 1 and 2 PEs. Run by ctest directly (it
starts tdist-run itself); skipped without the cuda backend, torch or triton."""

import importlib.util
import os
import re
import subprocess
import sys

import pytest

TDIST_RUN = os.environ["TDIST_RUN"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

if os.environ.get("TDIST_BACKEND", "cpu") != "cuda":
    pytest.skip("Triton kernels run on the cuda backend", allow_module_level=True)
if importlib.util.find_spec("torch") is None or importlib.util.find_spec("triton") is None:
    pytest.skip("no torch or triton", allow_module_level=True)


def run(pes, *program):
    job = subprocess.run([TDIST_RUN, "--backend", "cuda", "-n", str(pes), "--wait-timeout", "30", "--", sys.executable,
                          *program], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    if job.returncode == 77:
        pytest.skip("no GPU for the cuda backend")
    return job.returncode, job.stdout


@pytest.mark.parametrize("pes", [1, 2])
def test_the_program_of_docs_triton(pes, tmp_path):
    page = open(os.path.join(ROOT, "docs", "TRITON.md"), encoding="utf-8").read()
    program = tmp_path / "pass_right.py"
    program.write_text(re.findall(r"^```python\n(.*?)^```", page, flags=re.MULTILINE | re.DOTALL)[0])
    status, output = run(pes, str(program))
    assert status == 0, output


@pytest.mark.parametrize("pes", [1, 2])
@pytest.mark.parametrize("example", ["ring_allreduce", "allgather_gemm"])
def test_the_examples(example, pes):
    status, output = run(pes, os.path.join(ROOT, "examples", "triton", f"{example}.py"))
    assert status == 0 and output.count("correct") == pes, output
