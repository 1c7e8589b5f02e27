#!/usr/bin/env python3
"""Jobs under tdist-run --trace, and what their merged trace says.

  trace_test.py TDIST_RUN TRACE_SCENARIO TDIST_TRACE [TDIST_BENCH WITH_UCX]
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TDIST_RUN, SCENARIO, TDIST_TRACE = sys.argv[1:4]
TDIST_BENCH = sys.argv[4] if len(sys.argv) > 4 else None
WITH_UCX = len(sys.argv) > 5 and sys.argv[5].upper() in ("ON", "1", "TRUE", "YES")


def run(args, env=None, trace=None):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TDIST_")}
    environment.update(env or {})
    command = [TDIST_RUN] + (["--trace", trace] if trace else []) + args
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120)


def slices(trace, **match):
    return [e for e in trace["traceEvents"]
            if e.get("ph") == "X" and all(e.get(k) == v for k, v in match.items())]


class Trace(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "job.json")

    def tearDown(self):
        self.dir.cleanup()

    def load(self):
        with open(self.path, encoding="utf-8") as f:
            return json.load(f)

    def ring(self, n):
        result = run(["-n", str(n), "--", SCENARIO, "ring"], trace=self.path)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"trace of {n} PE(s) written to", result.stderr)
        return self.load()

    def check_ring(self, n):
        trace = self.ring(n)
        waits = [w for w in slices(trace, cat="wait") if w["args"].get("call", "").endswith("signal_wait_until")]
        self.assertEqual(len(waits), n)
        for w in waits:
            pe = w["pid"]
            self.assertEqual(w["args"]["owner_pe"], pe)
            self.assertEqual(w["args"]["observed"], 1 + (pe + n - 1) % n)
            self.assertEqual(w["args"]["expected"], w["args"]["observed"])
        puts = slices(trace, name="put_signal")
        self.assertEqual(sorted((p["pid"], p["args"]["pe"], p["args"]["bytes"]) for p in puts),
                         [(p, (p + 1) % n, 256) for p in range(n)])
        # One flow per PE: from PE p's notify to PE p+1's wait of signal_wait_until.
        starts = {e["id"]: e for e in trace["traceEvents"] if e.get("ph") == "s"}
        finishes = [e for e in trace["traceEvents"] if e.get("ph") == "f"]
        wait_ends = {(w["pid"], w["tid"], round(w["ts"] + w["dur"], 3)) for w in waits}
        ring_flows = sorted((starts[f["id"]]["pid"], f["pid"]) for f in finishes
                            if (f["pid"], f["tid"], round(f["ts"], 3)) in wait_ends)
        self.assertEqual(ring_flows, [(p, (p + 1) % n) for p in range(n)])
        for f in finishes:
            self.assertLessEqual(starts[f["id"]]["ts"], f["ts"])
        spans = slices(trace, name="ring_step")
        self.assertEqual(sorted((s["pid"], s["args"]["m"], s["args"]["n"]) for s in spans),
                         [(p, p, 0) for p in range(n)])
        self.assertEqual(len(slices(trace, name="aclshmem_barrier_all")), 2 * n)
        # A long name keeps its first TDIST_TRACE_NAME_MAX (31) bytes.
        long_name = "a_user_span_whose_name_is_longer_than_the_trace_keeps"
        self.assertEqual(len(slices(trace, name=long_name[:31])), n)
        self.assertEqual(trace["otherData"]["dropped_events"], 0)
        self.assertEqual(trace["otherData"]["pes"], n)
        names = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"]
                 if e.get("ph") == "M" and e["name"] == "process_name"}
        self.assertEqual(names, {p: f"PE {p}" for p in range(n)})

    def test_ring_of_one_pe(self):
        self.check_ring(1)

    def test_ring_of_two_pes(self):
        self.check_ring(2)

    def test_ring_of_four_pes(self):
        self.check_ring(4)

    def test_variable_asks_for_the_trace(self):
        result = run(["-n", "2", "--", SCENARIO, "ring"], env={"TDIST_TRACE": self.path})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(len(slices(self.load(), name="put_signal")), 2)

    def test_tiny_buffer_drops_and_counts(self):
        result = run(["-n", "2", "--", SCENARIO, "many"], env={"TDIST_TRACE_EVENTS": "16"}, trace=self.path)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("dropped", result.stderr)
        trace = self.load()
        other = trace["otherData"]
        self.assertGreater(other["dropped_events"], 0)
        self.assertEqual(sum(other["dropped_by_pe"].values()), other["dropped_events"])
        self.assertEqual(set(other["dropped_by_pe"]), {"0", "1"})
        # Every thread kept its first 16 events.
        self.assertLessEqual(other["events"], 16 * 8)
        self.assertGreater(other["events"], 0)
        summary = subprocess.run([sys.executable, TDIST_TRACE, "summary", self.path], capture_output=True, text=True)
        self.assertEqual(summary.returncode, 0, summary.stderr)
        self.assertIn(f"dropped events: {other['dropped_events']}", summary.stdout)

    def test_tracing_off_writes_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = run(["-n", "2", "--", SCENARIO, "ring"], env={"TMPDIR": tmp, "TDIST_TRACE_DIR": tmp})
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(os.listdir(tmp), [])
            self.assertNotIn("trace", result.stderr)

    def test_failed_job_still_writes_its_trace(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = run(["-n", "2", "--", SCENARIO, "fail"], env={"TMPDIR": tmp}, trace=self.path)
            self.assertEqual(result.returncode, 3, result.stderr)
            self.assertEqual(os.listdir(tmp), [])  # the PEs' files are gone with their folder
        spans = slices(self.load(), name="before_failure")
        pe0 = [s for s in spans if s["pid"] == 0]
        self.assertEqual(len(pe0), 1)
        self.assertTrue(pe0[0]["args"].get("unfinished"))

    def kernel_spans(self, pes, nodes, size, case="allreduce"):
        """The names of the slices on each PE of a job of tdist-bench's f32 CASE (all_reduce: Auto)."""
        options = ["--algo", "auto"] if case == "allreduce" else []
        result = run(["-n", str(pes), "--nodes", str(nodes), "--", TDIST_BENCH, case] + options +
                     ["--min-size", size, "--max-size", size, "--repeats", "1", "--iters", "2", "--no-table"],
                     trace=self.path)
        self.assertEqual(result.returncode, 0, result.stderr)
        names = {}
        for e in slices(self.load()):
            names.setdefault(e["pid"], set()).add(e["name"])
        self.assertEqual(sorted(names), list(range(pes)))
        return names

    def test_large_all_reduce_across_nodes_takes_the_team_reduction(self):
        # Every PE alone on its node and more than 128 KiB: the two-shot runs on the runtime's team
        # reduction (kernels/cpu/collectives.cpp); smaller, or where PEs share a node, the puts.
        if TDIST_BENCH is None or not WITH_UCX:
            self.skipTest("needs tdist-bench and UCX (PEs on several nodes)")
        for pe, names in self.kernel_spans(2, 2, "256K").items():
            self.assertIn("team_reduction", names, f"PE {pe}")
            self.assertNotIn("push_chunk", names, f"PE {pe}")
        for pe, names in self.kernel_spans(2, 2, "64K").items():
            self.assertNotIn("team_reduction", names, f"PE {pe}")
            self.assertIn("push_chunk", names, f"PE {pe}")
        for pe, names in self.kernel_spans(4, 2, "256K").items():
            self.assertNotIn("team_reduction", names, f"PE {pe}")

    def test_large_all_gather_across_nodes_takes_the_team_fcollect(self):
        if TDIST_BENCH is None or not WITH_UCX:
            self.skipTest("needs tdist-bench and UCX (PEs on several nodes)")
        for pe, names in self.kernel_spans(2, 2, "256K", "allgather").items():
            self.assertIn("team_fcollect", names, f"PE {pe}")
            self.assertNotIn("push_chunk", names, f"PE {pe}")
        for pe, names in self.kernel_spans(4, 2, "256K", "allgather").items():
            self.assertNotIn("team_fcollect", names, f"PE {pe}")
            self.assertIn("push_chunk", names, f"PE {pe}")

    def test_summary_of_a_kernel_call(self):
        # A synthetic trace with known numbers: PE 0 computes 0-10 while its copy engine moves
        # 5-15; PE 1 waits 0-18 for PE 0's notify at 15.
        trace = {"traceEvents": [
            {"ph": "X", "cat": "call", "name": "all_gather_gemm", "pid": 0, "tid": 0, "ts": 0, "dur": 20},
            {"ph": "X", "cat": "compute", "name": "gemm_tile", "pid": 0, "tid": 1, "ts": 0, "dur": 10},
            {"ph": "X", "cat": "move", "name": "copy", "pid": 0, "tid": 9, "ts": 5, "dur": 10},
            {"ph": "X", "cat": "call", "name": "all_gather_gemm", "pid": 1, "tid": 0, "ts": 0, "dur": 19},
            {"ph": "X", "cat": "wait", "name": "wait", "pid": 1, "tid": 1, "ts": 0, "dur": 18},
            {"ph": "s", "id": 1, "pid": 0, "tid": 9, "ts": 15},
            {"ph": "f", "id": 1, "pid": 1, "tid": 1, "ts": 18},
        ], "otherData": {"events": 7, "flows": 1, "dropped_events": 0}}
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(trace, f)
        result = subprocess.run([sys.executable, TDIST_TRACE, "summary", "--json", self.path],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        call = json.loads(result.stdout)["calls"][0]
        self.assertEqual(call["call"], "all_gather_gemm")
        pe0, pe1 = call["pes"]
        self.assertEqual((pe0["compute_us"], pe0["move_us"], pe0["wait_us"], pe0["idle_us"]), (10, 10, 0, 5))
        self.assertEqual(pe0["overlap"], 0.5)
        self.assertEqual((pe1["compute_us"], pe1["wait_us"], pe1["idle_us"]), (0, 18, 1))
        self.assertIsNone(pe1["overlap"])
        self.assertEqual(call["critical_path_pe"], 0)
        text = subprocess.run([sys.executable, TDIST_TRACE, "summary", self.path], capture_output=True, text=True)
        for field in ("compute_us", "move_us", "wait_us", "idle_us", "overlap", "critical path on PE 0"):
            self.assertIn(field, text.stdout)

    def test_summary_of_kernel_launches_and_user_spans(self):
        # PE 0 and PE 1 launch a kernel of 2 programs twice; PE 0's second launch computes 40-50
        # and waits 45-55. A kernel-library call's own programs are not launches; a user span
        # "step" is reported, the "tile" inside it is not.
        def x(cat, name, pid, ts, dur, tid=0):
            return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
        events = []
        for pid in (0, 1):
            for ts in (0, 40):
                events += [x("program", "program 0", pid, ts, 15, 1), x("program", "program 1", pid, ts + 1, 15, 2)]
        events += [x("compute", "matmul", 0, 40, 10, 1), x("wait", "wait", 0, 45, 10, 2),
                   x("call", "all_reduce", 0, 100, 10), x("program", "program 0", 0, 101, 5, 1),
                   x("call", "all_reduce", 1, 100, 10), x("program", "program 0", 1, 101, 5, 1),
                   x("user", "step", 0, 200, 30), x("user", "tile", 0, 205, 5, 1), x("user", "step", 1, 200, 20)]
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump({"traceEvents": events, "otherData": {"events": len(events), "flows": 0, "dropped_events": 0}}, f)
        result = subprocess.run([sys.executable, TDIST_TRACE, "summary", "--json", self.path],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        reported = [(c["kind"], c["call"], c["index"]) for c in json.loads(result.stdout)["calls"]]
        self.assertEqual(reported, [("launch", "kernel launch", 0), ("launch", "kernel launch", 1),
                                    ("call", "all_reduce", 0), ("span", "step", 0)])
        second = json.loads(result.stdout)["calls"][1]
        pe0 = second["pes"][0]
        self.assertEqual((pe0["total_us"], pe0["compute_us"], pe0["wait_us"], pe0["idle_us"]), (16, 10, 10, 1))
        self.assertEqual(pe0["overlap"], 0.5)
        step = json.loads(result.stdout)["calls"][3]
        self.assertEqual([r["total_us"] for r in step["pes"]], [30, 20])
        text = subprocess.run([sys.executable, TDIST_TRACE, "summary", self.path], capture_output=True, text=True)
        for line in ("kernel launch #1:", "all_reduce #0:", "span step #0:"):
            self.assertIn(line, text.stdout)
        self.assertNotIn("tile", text.stdout)

    def test_plot_draws_one_window_with_empty_tracks_folded(self):
        # 2 PEs, each a GPU stream with two all_reduce calls and 130 GPU block threads, of which
        # two (PE 0) and one (PE 1) hold events in the second call; PE 0's host and another block
        # have events in the first call only, PE 1's host after both.
        if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode != 0:
            self.skipTest("no matplotlib for /usr/bin/python3 (python3-matplotlib)")
        events = []
        def x(cat, name, pid, tid, ts, dur):
            events.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur})
        def thread(pid, tid, name):
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}})
        for pid in (0, 1):
            thread(pid, 0, "host")
            thread(pid, 1, "GPU stream 0")
            for block in range(130):
                thread(pid, 100 + block, f"GPU block {block} thread 0")
            x("call", "all_reduce", pid, 1, 0, 10)
            x("call", "all_reduce", pid, 1, 20, 10)
        x("barrier", "barrier_all", 0, 0, 1, 3)
        x("compute", "reduce", 0, 109, 2, 3)
        x("compute", "reduce", 0, 105, 22, 3)
        x("wait", "wait", 0, 107, 21, 7)
        x("compute", "reduce", 1, 103, 23, 3)
        x("barrier", "barrier_all", 1, 0, 40, 5)
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump({"traceEvents": events, "otherData": {"events": len(events), "flows": 0, "dropped_events": 0}}, f)
        picture = os.path.join(os.path.dirname(self.path), "call.png")
        result = subprocess.run([sys.executable, TDIST_TRACE, "plot", self.path, "-o", picture, "--window",
                                 "all_reduce #1"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        # Rows: each PE's stream and its GPU blocks (one row); folded: both hosts.
        self.assertIn("all_reduce #1, 4 rows, 2 empty tracks folded", result.stdout)
        with open(picture, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        first = subprocess.run([sys.executable, TDIST_TRACE, "plot", self.path, "-o", picture],
                               capture_output=True, text=True)
        # The first call by default: PE 1's host and blocks folded.
        self.assertIn("all_reduce #0, 4 rows, 2 empty tracks folded", first.stdout)
        self.assertIn("window 1 of 2", first.stdout)
        whole = subprocess.run([sys.executable, TDIST_TRACE, "plot", self.path, "-o", picture, "--window", "all"],
                               capture_output=True, text=True)
        self.assertIn("the whole trace, 6 rows, 0 empty tracks folded", whole.stdout)
        wrong = subprocess.run([sys.executable, TDIST_TRACE, "plot", self.path, "-o", picture, "--window", "5"],
                               capture_output=True, text=True)
        self.assertNotEqual(wrong.returncode, 0)
        self.assertIn("the trace has 2 window(s) (0..1)", wrong.stderr)

    def test_summary_of_a_real_kernel_run(self):
        trace = self.ring(2)
        self.assertEqual(trace["otherData"]["flows"] >= 2, True)
        result = subprocess.run([sys.executable, TDIST_TRACE, "summary", self.path], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("dropped events: 0", result.stdout)

    def test_a_kernel_calls_span_holds_its_handshake(self):
        # The entry handshake is the call's first communication (across nodes a small one-shot's
        # data travel with it), so it lies inside the call's span, on every PE.
        bench = os.path.join(os.path.dirname(TDIST_TRACE), "tdist-bench")
        if not os.path.exists(bench):
            self.skipTest("no tdist-bench in this build")
        result = run(["-n", "2", "--", bench, "allreduce", "--algo", "one-shot", "--min-size", "8", "--max-size",
                      "8", "--repeats", "1", "--iters", "3", "--no-table"], trace=self.path)
        self.assertEqual(result.returncode, 0, result.stderr)
        trace = self.load()
        for pe in range(2):
            calls = slices(trace, pid=pe, name="all_reduce", cat="call")
            self.assertGreaterEqual(len(calls), 3)
            for step, cat in (("handshake", "move"), ("wait_handshake", "wait")):
                spans = slices(trace, pid=pe, name=step, cat=cat)
                self.assertGreaterEqual(len(spans), len(calls), step)
                for call in calls:
                    inside = [e for e in spans if e["tid"] == call["tid"] and call["ts"] <= e["ts"]
                              and e["ts"] + e["dur"] <= call["ts"] + call["dur"]]
                    self.assertEqual(len(inside), 1, f"PE {pe}: {step} in the call at {call['ts']}")

    def test_unreadable_trace_is_a_clear_error(self):
        result = subprocess.run([sys.executable, TDIST_TRACE, "summary", self.path], capture_output=True, text=True)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("cannot read", result.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
