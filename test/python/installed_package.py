#!/usr/bin/env python3
"""The python component as installed (what `pip install .` puts in a wheel, through the same
install rules): `cmake --install BUILD --component python` into a fresh prefix, then a 2-PE job
imports tdist from there, with the runtime libraries beside it, not the build tree's.

Usage: installed_package.py CMAKE BUILD PREFIX INSTALL_DIR TDIST_RUN
"""
import os
import shutil
import subprocess
import sys

PROGRAM = r"""
import sys
import tdist
prefix = sys.argv[1]
assert tdist.__file__.startswith(prefix), tdist.__file__
maps = open("/proc/self/maps").read()
libs = {line.split()[-1] for line in maps.splitlines() if "libtdist_" in line}
assert libs and all(path.startswith(prefix) for path in libs), libs
tdist.init()
x = tdist.zeros(4, "int32")
tdist.barrier_all()
tdist.free_tensor(x)
tdist.finalize()
print('imported from the prefix', flush=True)
"""


def main():
    cmake, build, prefix, install_dir, tdist_run = sys.argv[1:6]
    shutil.rmtree(prefix, ignore_errors=True)
    subprocess.run([cmake, "--install", build, "--component", "python", "--prefix", prefix], check=True,
                   stdout=subprocess.DEVNULL)
    package = os.path.join(prefix, install_dir)
    for name in ("__init__.py", "kernels.py", "shmem.py"):
        assert os.path.isfile(os.path.join(package, name)), name
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(package)] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p and not p.startswith(os.path.abspath(build))])
    job = subprocess.run([tdist_run, "-n", "2", "--", sys.executable, "-c", PROGRAM, prefix], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    print(job.stdout)
    if job.returncode != 0 or job.stdout.count("imported from the prefix") != 2:
        sys.exit(f"installed_package.py: the job ended with status {job.returncode}")
    shutil.rmtree(prefix, ignore_errors=True)


if __name__ == "__main__":
    main()
