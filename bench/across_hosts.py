#!/usr/bin/env python3
"""tdist between two simulated hosts against UCX's own floor on the same link.

    bench/across_hosts.py BUILD_DIR [ROUNDS]

Two network namespaces joined by a bridge, each with its share of this machine's cores
(test/network/netns_job.py makes them; root only), one PE on each:
  - UCX: ucx_perftest (Debian's ucx-utils) over TCP, ucp_put_lat of 8 B (half round trip) and
    ucp_put_bw of 1 MiB, the server on host 0 and the client on host 1;
  - tdist: one tdist-run per host (--nnodes 2), tdist-bench pingpong (p + wait_until, half round
    trip; and putmem_signal of 8 B + signal_wait_until), put (blocking putmem + quiet) of 1 MiB,
    barrier, and the kernel library's all_reduce.
ROUNDS times each (default 2), side by side; prints a line per measure with each round's figure
and the ratio tdist / UCX where there is one. Exit status 77 where namespaces cannot be made.
"""

import os
import re
import secrets
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "network"))
import netns_job  # noqa: E402  (the namespaces: Hosts, host_cpus)

PORT = 29433


def on_host(hosts, i, command, env=None, background=False):
    cpus = netns_job.host_cpus(i, len(hosts.names))
    full = ["ip", "netns", "exec", hosts.ns(i)] + command
    kwargs = dict(env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                  preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    if background:
        return subprocess.Popen(full, **kwargs)
    return subprocess.run(full, timeout=600, **kwargs).stdout


def perftest(hosts, test, size, iters):
    """ucx_perftest between the hosts: the client's Final line's median (µs) or bandwidth (MB/s)."""
    env = dict(os.environ)
    env.setdefault("UCX_TLS", "tcp")
    server = on_host(hosts, 0, ["ucx_perftest", "-t", test, "-s", str(size), "-n", str(iters), "-p", str(PORT)],
                     env=env, background=True)
    output = ""
    for _ in range(100):  # until the server listens
        output = on_host(hosts, 1, ["ucx_perftest", netns_job.SUBNET + ".1", "-t", test, "-s", str(size), "-n",
                                    str(iters), "-p", str(PORT)], env=env)
        if "Final" in output:
            break
        time.sleep(0.1)
    server.wait(timeout=60)
    final = [line for line in output.splitlines() if line.strip().startswith("Final")]
    if not final:
        raise RuntimeError("ucx_perftest printed no result:\n" + output)
    # Final: iterations, latency typical/avg/overall, bandwidth avg/overall, msgrate avg/overall
    fields = final[0].split()
    return float(fields[2]) if test.endswith("lat") else float(fields[5])


def tdist_bench(hosts, build, cases):
    """tdist-bench CASES on one PE per host; its RESULT lines as dicts."""
    env = dict(os.environ, TDIST_JOB_SECRET=secrets.token_hex(16), TDIST_BACKEND="cpu")
    env.setdefault("UCX_TLS", "tcp")
    run = os.path.join(build, "bin", "tdist-run")
    bench = os.path.join(build, "bin", "tdist-bench")
    processes = []
    for i in range(2):
        command = [run, "-n", "1", "--nnodes", "2", "--node-rank", str(i), "--rdzv",
                   "%s.1:%d" % (netns_job.SUBNET, PORT + 1), "--heap", "256M", "--", bench] + cases
        processes.append(on_host(hosts, i, command, env=env, background=True))
    outputs = [p.communicate(timeout=900)[0] for p in processes]
    if any(p.returncode != 0 for p in processes):
        raise RuntimeError("tdist-bench failed:\n" + "\n".join(outputs))
    results = []
    for line in "\n".join(outputs).splitlines():
        if line.startswith("RESULT "):
            results.append(dict(field.split("=", 1) for field in line.split()[1:] if "=" in field))
    return results


def pick(results, key, **match):
    for result in results:
        if all(result.get(k) == v for k, v in match.items()):
            return float(result[key])
    raise RuntimeError("no RESULT with %s" % match)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    build = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    why = netns_job.can_make_namespaces()
    if why is not None:
        print("across_hosts.py: skipped: " + why)
        return netns_job.SKIP
    rows = {}

    def add(name, value):
        rows.setdefault(name, []).append(value)

    hosts = netns_job.Hosts(2)
    try:
        hosts.make()
        for _ in range(rounds):
            add("ucx 8 B put latency (us)", perftest(hosts, "ucp_put_lat", 8, 20000))
            add("ucx 1 MiB put bandwidth (GB/s)", perftest(hosts, "ucp_put_bw", 1 << 20, 2000) * 1.048576 / 1000)
            results = tdist_bench(hosts, build, ["pingpong", "put", "barrier", "--repeats", "5",
                                                 "--min-size", "1M", "--max-size", "1M"])
            signalled = tdist_bench(hosts, build, ["pingpong", "--op", "put-signal", "--repeats", "5"])
            results += tdist_bench(hosts, build, ["allreduce", "--algo", "auto", "--repeats", "5", "--max-size", "1M"])
            add("tdist 8 B pingpong, half round trip (us)", pick(results, "median_us", case="pingpong", size="8"))
            add("tdist put-with-signal pingpong (us)", pick(signalled, "median_us", case="pingpong", op="put-signal"))
            add("tdist 1 MiB blocking put (GB/s)", pick(results, "median_gbps", case="put", size="1048576"))
            add("tdist barrier (us)", pick(results, "median_us", case="barrier"))
            for result in results:
                if result.get("case") == "allreduce" and result.get("variant") == "auto":
                    add("tdist all_reduce f32 %s B, auto (us)" % result["size"], float(result["median_us"]))
    finally:
        hosts.remove()
    for name, values in rows.items():
        print("%-45s %s" % (name, "  ".join("%.3f" % v for v in values)))
    lat = [t / u for t, u in zip(rows["tdist 8 B pingpong, half round trip (us)"], rows["ucx 8 B put latency (us)"])]
    signal = [t / u for t, u in zip(rows["tdist put-with-signal pingpong (us)"], rows["ucx 8 B put latency (us)"])]
    bw = [t / u for t, u in zip(rows["tdist 1 MiB blocking put (GB/s)"], rows["ucx 1 MiB put bandwidth (GB/s)"])]
    print("%-45s %s" % ("latency tdist / ucx", "  ".join("%.2f" % v for v in lat)))
    print("%-45s %s" % ("put with signal tdist / ucx", "  ".join("%.2f" % v for v in signal)))
    print("%-45s %s" % ("bandwidth tdist / ucx", "  ".join("%.2f" % v for v in bw)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
