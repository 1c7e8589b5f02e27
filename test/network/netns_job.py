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
                   (delay and loss). Where the kernel has no netem, ARGS of the form
                   `delay D [J] [loss P%]` make the last host's link a pair of TAP devices
                   joined by this process, which holds every frame D (± J, in order) and drops
                   P% of them at random; other ARGS exit 77 there.
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
import collections
import fcntl
import os
import random
import re
import select
import struct
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


def parse_netem(words):
    """`delay D [J] [loss P%]` (netem's spelling, D and J in ms or us) as (delay s, jitter s, loss
    fraction), or None for anything else."""
    def seconds(text):
        match = re.fullmatch(r"([0-9.]+)(ms|us)", text)
        return None if match is None else float(match.group(1)) * (1e-3 if match.group(2) == "ms" else 1e-6)
    if len(words) < 2 or words[0] != "delay" or seconds(words[1]) is None:
        return None
    delay, jitter, loss, rest = seconds(words[1]), 0.0, 0.0, words[2:]
    if rest and seconds(rest[0]) is not None:
        jitter, rest = seconds(rest[0]), rest[1:]
    if rest[:1] == ["loss"] and len(rest) == 2 and re.fullmatch(r"[0-9.]+%", rest[1]):
        loss, rest = float(rest[1][:-1]) / 100, []
    return None if rest else (delay, jitter, loss)


class DelayLink:
    """A host's link to the switch without netem: a TAP device in the host's namespace and one on
    the switch, joined by a thread of this process that holds each frame for the delay (plus a
    random jitter, keeping each direction's order, as netem does with a rate) and drops a share of
    them at random. The devices live as long as this process holds them open."""

    TUNSETIFF = 0x400454CA
    IFF_TAP, IFF_NO_PI = 0x0002, 0x1000

    def __init__(self, delay, jitter, loss):
        self.delay, self.jitter, self.loss = delay, jitter, loss
        self.fds = []
        self.forwarded = self.dropped = 0
        self.running = False
        self.thread = None

    def open(self, name):
        fd = os.open("/dev/net/tun", os.O_RDWR)
        fcntl.ioctl(fd, self.TUNSETIFF, struct.pack("16sH", name.encode(), self.IFF_TAP | self.IFF_NO_PI))
        self.fds.append(fd)
        return fd

    def start(self):
        self.running = True
        self.thread = threading.Thread(target=self.forward, daemon=True)
        self.thread.start()

    def forward(self):
        a, b = self.fds
        held = {a: collections.deque(), b: collections.deque()}  # frames read from fd, due on the other
        last_due = {a: 0.0, b: 0.0}
        while self.running:
            now = time.monotonic()
            heads = [queue[0][0] for queue in held.values() if queue]
            timeout = min(0.05, max(0.0, min(heads) - now)) if heads else 0.05
            readable, _, _ = select.select([a, b], [], [], timeout)
            now = time.monotonic()
            for fd in readable:
                try:
                    frame = os.read(fd, 65536)
                except OSError:
                    continue
                if random.random() < self.loss:
                    self.dropped += 1
                    continue
                due = max(last_due[fd], now + self.delay + random.uniform(-self.jitter, self.jitter))
                last_due[fd] = due
                held[fd].append((due, frame))
            for fd, queue in held.items():
                out = b if fd == a else a
                while queue and queue[0][0] <= now:
                    try:
                        os.write(out, queue.popleft()[1])
                        self.forwarded += 1
                    except OSError:
                        pass

    def close(self):
        self.running = False
        if self.thread is not None:
            self.thread.join(timeout=5)
        for fd in self.fds:
            os.close(fd)
        self.fds = []


class Hosts:
    """The namespaces: a switch (a bridge) and one per host, each linked to the switch (by a veth
    pair, or the last host by a DelayLink)."""

    def __init__(self, count, tag=""):
        self.prefix = "td%d%s" % (os.getpid() % 100000, tag)
        self.switch = self.prefix + "sw"
        self.names = ["%sh%d" % (self.prefix, i) for i in range(count)]
        self.made = []
        self.delay_link = None  # set before make(): the last host's link is a DelayLink

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
            if self.delay_link is not None and i == len(self.names) - 1:
                # Made here, then moved: a TAP device keeps its file descriptor across namespaces.
                for end, where in ((host_end, name), (switch_end, self.switch)):
                    self.delay_link.open(end)
                    sh("ip", "link", "set", end, "netns", where)
                self.delay_link.start()
            else:
                sh("ip", "link", "add", host_end, "netns", name, "type", "veth", "peer", "name", switch_end,
                   "netns", self.switch)
            sh("ip", "-n", self.switch, "link", "set", switch_end, "master", "br0")
            sh("ip", "-n", self.switch, "link", "set", switch_end, "up")
            sh("ip", "-n", name, "addr", "add", "%s.%d/24" % (SUBNET, i + 1), "dev", host_end)
            sh("ip", "-n", name, "link", "set", host_end, "up")

    def remove(self):
        if self.delay_link is not None:
            self.delay_link.close()
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
            words = fault[len("netem="):].split()
            qdisc = sh("ip", "netns", "exec", hosts.ns(args.hosts - 1), "tc", "qdisc", "add", "dev",
                       hosts.link(args.hosts - 1), "root", "netem", *words, check=False)
            if qdisc.returncode != 0:
                emulated = parse_netem(words)
                if emulated is None or not os.path.exists("/dev/net/tun"):
                    print("netns_job: skipped: this kernel has no netem: " + qdisc.stderr.strip())
                    return SKIP
                hosts.remove()
                hosts = Hosts(args.hosts)
                hosts.delay_link = DelayLink(*emulated)
                try:
                    hosts.make()
                except (OSError, subprocess.CalledProcessError) as error:
                    print("netns_job: skipped: no netem, and no TAP devices here: %s" %
                          (getattr(error, "stderr", None) or error))
                    return SKIP
                print("netns_job: no netem here (%s); the last host's link holds every frame %.1f ms (± %.1f ms) "
                      "and drops %.1f%% of them" % (qdisc.stderr.strip(), emulated[0] * 1e3, emulated[1] * 1e3,
                                                    emulated[2] * 100))
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
        link = hosts.delay_link
        if link is not None:
            print("netns_job: the last host's link forwarded %d frames and dropped %d" % (link.forwarded, link.dropped))
            if link.forwarded == 0 or (link.loss > 0 and link.dropped == 0):
                print("netns_job: the delay or the loss was not injected")
                ok = False
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
