#!/usr/bin/env python3
"""Runs tdist jobs across simulated hosts: network namespaces joined by a bridge.

    netns_job.py [options] TDIST_RUN -- PROGRAM [ARG...] [--then PROGRAM [ARG...]]...

Each simulated host is a network namespace with one veth link to a bridge (in a namespace of its
own), addressed 10.77.0.<node + 1>/24, and its share of this machine's cores; nothing else is
reachable from it, so a PE reaches another
host's PEs only through the network: UCX over TCP between hosts, and neither shared memory nor a
Unix socket in the abstract namespace (which stays within its network namespace). Every host runs
its own tdist-run (--nnodes, --node-rank, --rdzv to node 0), all sharing one job secret, as on
real hosts. The jobs after --then run one after another on the same namespaces.

Faults (--fault, one at most), injected once every host's PEs printed a line matching --ready:
  kill-node        SIGKILL every process of the last host (its tdist-run and PEs): the host died.
  link-down        the last host's link goes down.
  netem=ARGS       before the jobs start, `tc qdisc add ... netem ARGS` on the last host's link
                   (delay and loss); exit 77 where the kernel has no netem.
  loss=P           before the jobs start, the last host drops P% of the TCP packets it sends and
                   of those it receives, at random (nftables); exit 77 without nft or its kernel
                   support.
With a fault, --expect-fail REGEX: every surviving host's tdist-run must end non-zero, each within
--deadline, and node 0's output must match REGEX.

Exit status: 0 when every job did what was expected, 1 otherwise, 77 (skipped) where network
namespaces cannot be made here (not root, no `ip`, no veth). The namespaces are removed however
it ends.
"""

import argparse
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time

SKIP = 77
SUBNET = "10.77.0"
RDZV_PORT = 29411


def sh(*args, check=True):
    return subprocess.run(args, check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Hosts:
    """The namespaces: a switch (a bridge) and one per host, each linked to the switch."""

    def __init__(self, count, tag=""):
        self.prefix = "td%d%s" % (os.getpid() % 100000, tag)
        self.switch = self.prefix + "sw"
        self.names = ["%sh%d" % (self.prefix, i) for i in range(count)]
        self.made = []

    def ns(self, i):
        return self.names[i]

    def link(self, i):
        return "%sl%d" % (self.prefix, i)  # the host's end; the switch's end is ...s<i>

    def make(self):
        for name in [self.switch] + self.names:
            sh("ip", "netns", "add", name)
            self.made.append(name)
            sh("ip", "-n", name, "link", "set", "lo", "up")
        sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.switch, "link", "set", "br0", "up")
        for i, name in enumerate(self.names):
            host_end, switch_end = self.link(i), "%ss%d" % (self.prefix, i)
            sh("ip", "link", "add", host_end, "netns", name, "type", "veth", "peer", "name", switch_end,
               "netns", self.switch)
            sh("ip", "-n", self.switch, "link", "set", switch_end, "master", "br0")
            sh("ip", "-n", self.switch, "link", "set", switch_end, "up")
            sh("ip", "-n", name, "addr", "add", "%s.%d/24" % (SUBNET, i + 1), "dev", host_end)
            sh("ip", "-n", name, "link", "set", host_end, "up")

    def remove(self):
        for name in reversed(self.made):
            # Whatever still runs there first (a namespace's processes keep it alive).
            pids = sh("ip", "netns", "pids", name, check=False).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            sh("ip", "netns", "del", name, check=False)
        self.made = []


def drop_packets(ns, percent):
    """In namespace ns, drops percent % of the TCP packets in each direction, at random. The reason
    it cannot, or None."""
    if shutil.which("nft") is None:
        return "no nft (Debian: nftables)"
    rules = ("table inet tdist_loss {\n"
             "  chain in { type filter hook input priority 0; meta l4proto tcp numgen random mod 100 < %d counter drop; }\n"
             "  chain out { type filter hook output priority 0; meta l4proto tcp numgen random mod 100 < %d counter drop; }\n"
             "}\n" % (percent, percent))
    made = subprocess.run(["ip", "netns", "exec", ns, "nft", "-f", "-"], input=rules, capture_output=True, text=True)
    if made.returncode != 0:
        return "nft cannot drop packets here: " + made.stderr.strip()
    return None


def dropped_packets(ns):
    """How many packets drop_packets' rules dropped in namespace ns."""
    listed = sh("ip", "netns", "exec", ns, "nft", "list", "table", "inet", "tdist_loss", check=False).stdout
    return sum(int(n) for n in re.findall(r"counter packets (\d+)", listed))


def can_make_namespaces():
    if os.geteuid() != 0:
        return "not root"
    if shutil.which("ip") is None:
        return "no ip tool (iproute2)"
    probe = Hosts(1, tag="p")
    try:
        probe.make()
    except subprocess.CalledProcessError as error:
        return "cannot make network namespaces joined by veth: " + (error.stderr or "").strip()
    finally:
        probe.remove()
    return None


def host_cpus(i, count):
    """Host i's share of this machine's cores (its PEs see only those, as on a host of its own:
    the runtime sizes its waiting by the cores it has)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < count:
        return {cpus[i % len(cpus)]}
    share = len(cpus) // count
    return set(cpus[i * share:(i + 1) * share])


class Node:
    """One host's tdist-run, its output echoed with the host's name and kept."""

    def __init__(self, hosts, i, command, env, ready):
        self.i = i
        self.lines = []
        self.ready = threading.Event()
        cpus = host_cpus(i, len(hosts.names))
        self.process = subprocess.Popen(["ip", "netns", "exec", hosts.ns(i)] + command, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True, preexec_fn=lambda: os.sched_setaffinity(0, cpus))
        self.reader = threading.Thread(target=self.read, args=(ready,), daemon=True)
        self.reader.start()

    def read(self, ready):
        for line in self.process.stdout:
            self.lines.append(line)
            sys.stdout.write("[host %d] %s" % (self.i, line))
            sys.stdout.flush()
            if ready is not None and ready.search(line):
                self.ready.set()

    def output(self):
        self.reader.join(timeout=5)
        return "".join(self.lines)


def run_job(hosts, args, program, fault):
    secret = secrets.token_hex(16)
    env = dict(os.environ, TDIST_JOB_SECRET=secret)
    env.setdefault("UCX_TLS", "tcp")
    ready = re.compile(args.ready) if args.ready else None
    count = len(hosts.names)
    nodes = []
    for i in range(count):
        command = [args.tdist_run, "-n", str(args.pes_per_host), "--nnodes", str(count), "--node-rank", str(i),
                   "--rdzv", "%s.1:%d" % (SUBNET, RDZV_PORT)] + args.launcher_arg + ["--"] + program
        nodes.append(Node(hosts, i, command, env, ready))
    victim = nodes[-1]
    started = time.monotonic()
    if fault in ("kill-node", "link-down"):
        for node in nodes:
            if not node.ready.wait(timeout=args.deadline):
                print("netns_job: host %d never printed a line matching %r" % (node.i, args.ready))
                return False
        print("netns_job: every host is ready; fault: %s on host %d" % (fault, victim.i))
        if fault == "kill-node":
            for pid in sh("ip", "netns", "pids", hosts.ns(victim.i), check=False).stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
        else:
            sh("ip", "-n", hosts.ns(victim.i), "link", "set", hosts.link(victim.i), "down")
        started = time.monotonic()
    ok = True
    for node in nodes:
        left = max(1.0, args.deadline - (time.monotonic() - started))
        try:
            node.process.wait(timeout=left)
        except subprocess.TimeoutExpired:
            print("netns_job: host %d's tdist-run did not end within %.0f s" % (node.i, args.deadline))
            os.killpg(node.process.pid, signal.SIGKILL)
            node.process.wait()
            ok = False
    elapsed = time.monotonic() - started
    for node in nodes:
        status = node.process.returncode
        survivor = not (fault == "kill-node" and node is victim)
        if args.expect_fail is None:
            if status != 0:
                print("netns_job: host %d's tdist-run exited with %d" % (node.i, status))
                ok = False
        elif survivor and status == 0:
            print("netns_job: host %d's tdist-run exited 0 after the fault" % node.i)
            ok = False
    if args.expect_fail is not None and not re.search(args.expect_fail, nodes[0].output()):
        print("netns_job: host 0's output does not match %r" % args.expect_fail)
        ok = False
    print("netns_job: %s in %.1f s: %s" % (" ".join(os.path.basename(p) for p in program[:1]), elapsed,
                                            "as expected" if ok else "NOT as expected"))
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--pes-per-host", type=int, default=2)
    parser.add_argument("--launcher-arg", action="append", default=[],
                        help="an argument for every host's tdist-run (repeat)")
    parser.add_argument("--fault", default=None)
    parser.add_argument("--ready", default=None, help="a regular expression: the line a host's PEs print when ready")
    parser.add_argument("--expect-fail", default=None)
    parser.add_argument("--deadline", type=float, default=480, help="seconds a job (or its end after a fault) may take")
    parser.add_argument("tdist_run")
    parser.add_argument("jobs", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    jobs = [[]]
    for word in args.jobs[1:] if args.jobs[:1] == ["--"] else args.jobs:
        if word == "--then":
            jobs.append([])
        else:
            jobs[-1].append(word)
    if not jobs[0]:
        parser.error("no program after --")
    fault = args.fault
    if fault in ("kill-node", "link-down") and (args.ready is None or args.expect_fail is None):
        parser.error("--fault %s needs --ready and --expect-fail" % fault)
    why = can_make_namespaces()
    if why is not None:
        print("netns_job: skipped: " + why)
        return SKIP
    hosts = Hosts(args.hosts)
    try:
        hosts.make()
        if fault is not None and fault.startswith("netem="):
            qdisc = sh("ip", "netns", "exec", hosts.ns(args.hosts - 1), "tc", "qdisc", "add", "dev",
                       hosts.link(args.hosts - 1), "root", "netem", *fault[len("netem="):].split(), check=False)
            if qdisc.returncode != 0:
                print("netns_job: skipped: this kernel has no netem: " + qdisc.stderr.strip())
                return SKIP
            fault = None
        lossy = fault is not None and fault.startswith("loss=")
        if lossy:
            why = drop_packets(hosts.ns(args.hosts - 1), int(fault[len("loss="):]))
            if why is not None:
                print("netns_job: skipped: " + why)
                return SKIP
            fault = None
        ok = True
        for program in jobs:
            ok = run_job(hosts, args, program, fault) and ok
        if lossy:
            dropped = dropped_packets(hosts.ns(args.hosts - 1))
            print("netns_job: the last host dropped %d packets" % dropped)
            if dropped == 0:
                print("netns_job: no packet was dropped: the loss was not injected")
                ok = False
        return 0 if ok else 1
    finally:
        hosts.remove()


if __name__ == "__main__":
    sys.exit(main())
