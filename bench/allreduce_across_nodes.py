#!/usr/bin/env python3
"""An all-reduce between two nodes of this host (2 PEs, one a node, TCP on loopback), five ways
side by side, round after round:

    bench/allreduce_across_nodes.py BUILD_DIR [--rounds N] [--sizes 256K,1M] [--repeats R]

  tdist sum_to_all   bench/openshmem/shmem_collectives_bench.c (its reduce case: shmem_double_
                     sum_to_all) built by tdist's oshcc, oshrun -np 2 --nodes 2
  tdist all_reduce   the kernel library's f32 all_reduce (Auto), tdist-bench allreduce
  Open MPI           the same C program built by Open MPI's oshcc, its default: the OpenSHMEM
                     layer on UCX (spml ucx, UCX_TLS=tcp), its collectives through MPI's ob1
                     and TCP transport
  Open MPI, UCX      the same with MPI's layer on UCX too (pml ucx)
  UCX floor          bench/ucx/allreduce_floor.cpp: the two arrays exchanged as one active message
                     each way, eager and by rendezvous (the faster), then summed, busy polling,
                     no runtime around it: what UCX allows at best

Each run reports the median of R repeats; the table gives, per size, each way's range over the
rounds (µs) and tdist's ratios to Open MPI's round by round. A way whose tools are missing
(Open MPI, the UCX headers), or a peer's way that fails, is left out with a note. Sizes are bytes
per PE.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RESULT = re.compile(r"^RESULT .*\bsize=(\d+)\b.*\bmedian_us=([0-9.]+)", re.MULTILINE)


def parse_size(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20}
    match = re.fullmatch(r"(\d+)([KM]?)", text.strip().upper())
    if match is None:
        raise argparse.ArgumentTypeError(f"not a size: {text}")
    return int(match.group(1)) * units[match.group(2)]


def note(text):
    print(f"allreduce_across_nodes.py: {text}", file=sys.stderr)


def run(command, env=None):
    """The command's RESULT lines as {size: median µs} (the fastest of a size's lines); raises with
    its output if it fails."""
    result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}")
    found = {}
    for size, median in RESULT.findall(result.stdout):  # several lines of one size: the fastest
        found[int(size)] = min(float(median), found.get(int(size), float("inf")))
    return found


def open_mpi_tools():
    """Open MPI's oshcc and oshrun on PATH, or None: not there, or tdist's own."""
    oshcc, oshrun = shutil.which("oshcc"), shutil.which("oshrun")
    if oshcc is None or oshrun is None:
        return None
    showme = subprocess.run([oshcc, "--showme"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return (oshcc, oshrun) if showme.returncode == 0 else None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", default="256K,1M")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    if any(s < 8 or s % 8 for s in sizes) or args.rounds < 1 or args.repeats < 1:
        parser.error("sizes are multiples of 8 bytes; --rounds and --repeats at least 1")
    size_list = ",".join(str(s) for s in sizes)
    heap = f"{max(64, 16 * max(sizes) >> 20)}M"  # the sources, dests and scratch, with room
    work = tempfile.mkdtemp(prefix="allreduce_across_nodes.")
    try:
        program = os.path.join(HERE, "openshmem", "shmem_collectives_bench.c")
        ours = os.path.join(work, "collectives_tdist")
        subprocess.run([os.path.join(build, "bin", "oshcc"), "-O2", "-o", ours, program], check=True)
        collective_args = ["--repeats", str(args.repeats), "--sizes", size_list, "--cases", "reduce"]

        def per_size(command_of):
            """A way that runs command_of(size) for each size, its results together."""
            return lambda: {size: median for s in sizes for size, median in run(command_of(s)).items()}

        ways = {
            "tdist sum_to_all": lambda: run([os.path.join(build, "bin", "oshrun"), "-np", "2", "--nodes", "2",
                                             "--heap", heap, ours] + collective_args),
            "tdist all_reduce": per_size(lambda s: [
                os.path.join(build, "bin", "tdist-run"), "-n", "2", "--nodes", "2", "--heap", heap, "--",
                os.path.join(build, "bin", "tdist-bench"), "allreduce", "--algo", "auto", "--min-size", str(s),
                "--max-size", str(s), "--repeats", str(args.repeats), "--no-table"]),
        }
        tools = open_mpi_tools()
        if tools is None:
            note("no Open MPI oshcc/oshrun on PATH (Debian: openmpi-bin libopenmpi-dev): its columns are left out")
        else:
            oshcc, oshrun = tools
            theirs = os.path.join(work, "collectives_openmpi")
            subprocess.run([oshcc, "-O2", "-o", theirs, program], check=True)
            env = dict(os.environ, UCX_TLS="tcp", SHMEM_SYMMETRIC_SIZE=heap)
            flags = ["--oversubscribe", "--mca", "memory", "^patcher", "--mca", "spml", "ucx", "--mca", "btl",
                     "self,tcp", "-x", "UCX_TLS"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
            over_ucx = ["--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any", "--mca", "pml_ucx_devices", "any"]
            ways["Open MPI"] = lambda: run([oshrun] + flags + ["-np", "2", theirs] + collective_args, env)
            ways["Open MPI, UCX"] = lambda: run([oshrun] + flags + over_ucx + ["-np", "2", theirs] + collective_args,
                                                env)
        floor = os.path.join(work, "allreduce_floor")
        compiler = os.environ.get("CXX", "c++")
        built = subprocess.run([compiler, "-O2", "-std=c++17", "-o", floor,
                                os.path.join(HERE, "ucx", "allreduce_floor.cpp"), "-lucp", "-lucs"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if built.returncode != 0:
            note("the UCX floor program does not build here (UCX's headers: Debian's libucx-dev): left out\n"
                 + built.stdout)
        else:
            ways["UCX floor"] = per_size(lambda s: [floor, "--bytes", str(s), "--repeats", str(args.repeats)])

        figures = {name: [] for name in ways}
        for round_index in range(args.rounds):
            note(f"round {round_index + 1} of {args.rounds}")
            for name, way in list(ways.items()):
                try:
                    figures[name].append(way())
                except RuntimeError as failure:
                    if name.startswith("tdist"):
                        raise
                    note(f"{name} failed, left out:\n{failure}")  # the peers' setups vary
                    del ways[name], figures[name]
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def span(values):
        return f"{min(values):.0f}" if min(values) == max(values) else f"{min(values):.0f}-{max(values):.0f}"

    names = list(ways)
    print(f"all-reduce of 2 PEs on 2 nodes of this host, {args.rounds} round(s), medians of {args.repeats} "
          "repeats, µs (range over the rounds)")
    header = ["bytes a PE"] + names
    ratios = [(ours, "Open MPI") for ours in ("tdist sum_to_all", "tdist all_reduce") if "Open MPI" in figures]
    header += [f"{ours.split()[1]} / {base}" for ours, base in ratios]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for size in sizes:
        row = [str(size)] + [span([r[size] for r in figures[name]]) for name in names]
        for ours, base in ratios:
            quotients = [o[size] / b[size] for o, b in zip(figures[ours], figures[base])]
            row.append(f"{min(quotients):.2f}-{max(quotients):.2f}")
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
