#!/usr/bin/env python3
"""IR kernels under tdist-run --trace: the spans of their own steps, per PE, in the merged trace.

  trace_spans_test.py TDIST_RUN EXAMPLES_DIR INPUTS_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TDIST_RUN, EXAMPLES, INPUTS = sys.argv[1:4]
PES = 2

AG_GEMM = ["--entry", "ag_gemm", "--grid", "2", os.path.join(EXAMPLES, "ag_gemm.mlir"), "--",
           "f32[32,24]=random:1", "f32[24,16]=random:2", "f32[npes*32,24]", "i32[npes*4*16]",
           "f32[npes*32,16]", "index=8", "i32=1", "--check", "4=matmul(gather(arg(0)), arg(1))"]
TRACE_SPANS = ["--entry", "trace_spans", "--grid", "2", os.path.join(INPUTS, "trace_spans.mlir"), "--",
               "f32[16,16]", "i32[2*16]", "index=8", "i32=1", "--check", "0=rank+1"]


def run(args, trace=None):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TDIST_")}
    command = [TDIST_RUN, "-n", str(PES), "--timeout", "120", "--wait-timeout", "30"]
    command += (["--trace", trace] if trace else []) + args
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=180)


def slices(trace, **match):
    return [e for e in trace["traceEvents"]
            if e.get("ph") == "X" and all(e.get(k) == v for k, v in match.items())]


def tile(span):
    return (span["args"].get("m"), span["args"].get("n"))


def within(inner, outer):
    """Whether span inner lies in span outer, on the same thread of the same PE."""
    return (outer["pid"] == inner["pid"] and outer["tid"] == inner["tid"] and outer["ts"] <= inner["ts"]
            and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + 1e-3)


class IRKernelSpans(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "job.json")

    def tearDown(self):
        self.dir.cleanup()

    def traced(self, args):
        result = run(args, trace=self.path)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn(f"passed on all {PES} PEs", result.stdout)
        with open(self.path, encoding="utf-8") as f:
            trace = json.load(f)
        self.assertEqual(trace["otherData"]["dropped_events"], 0)
        return trace

    def per_pe(self, spans):
        return {pe: sorted(tile(s) for s in spans if s["pid"] == pe) for pe in range(PES)}

    def assert_within(self, inner, outer):
        for span in inner:
            self.assertTrue(any(within(span, o) for o in outer), span)

    def assert_inside_programs(self, trace, spans):
        """Each span lies within a program of the launch, on that program's thread."""
        self.assert_within(spans, slices(trace, cat="program"))

    def test_summary_reports_the_launch(self):
        # tdist-trace summary of a traced IR kernel: its launch, per PE, with the time its
        # programs computed (the matmul and fill spans) and waited.
        self.traced(AG_GEMM)
        tool = os.path.join(os.path.dirname(TDIST_RUN), "tdist-trace")
        result = subprocess.run([sys.executable, tool, "summary", "--json", self.path], capture_output=True,
                                text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        launches = [c for c in json.loads(result.stdout)["calls"] if c["kind"] == "launch"]
        self.assertEqual(len(launches), 1, result.stdout)
        rows = launches[0]["pes"]
        self.assertEqual([r["pe"] for r in rows], list(range(PES)))
        for row in rows:
            self.assertGreater(row["compute_us"], 0, row)
            self.assertGreater(row["wait_us"], 0, row)
            self.assertLessEqual(row["compute_us"] + row["wait_us"], row["total_us"] + 1e-6, row)

    def test_ag_gemm_tiles(self):
        # Each PE computes all 8 row tiles of C (8 rows each, its own first), split over its 2
        # programs: a fill and a matmul per tile, at the tile's first row, column 0.
        trace = self.traced(AG_GEMM)
        rows = [(8 * t, 0) for t in range(8)]
        for name in ("matmul", "fill"):
            spans = slices(trace, name=name)
            self.assertTrue(all(s["cat"] == "compute" for s in spans), spans)
            self.assertEqual(self.per_pe(spans), {pe: rows for pe in range(PES)}, name)
            self.assert_inside_programs(trace, spans)
            for pe in range(PES):
                self.assertEqual(len({s["tid"] for s in spans if s["pid"] == pe}), 2, name)
        # Swizzled: each program starts on the PE's own rows, PE r's are [32 r, 32 r + 32).
        for pe in range(PES):
            first = min((s for s in slices(trace, name="matmul") if s["pid"] == pe), key=lambda s: s["ts"])
            self.assertIn(first["args"]["m"], range(32 * pe, 32 * pe + 32))
        # The runtime's own events are still there: the consumers' waits for remote tiles.
        self.assertGreater(len(slices(trace, cat="wait")), 0)

    def test_marked_ops_and_library_calls(self):
        trace = self.traced(TRACE_SPANS)
        fills = slices(trace, name="fill_tile")
        self.assertTrue(all(s["cat"] == "compute" for s in fills), fills)
        self.assertEqual(self.per_pe(fills), {pe: [(0, 0), (0, 8), (8, 0), (8, 8)] for pe in range(PES)})
        loops = slices(trace, name="tile_loop")
        self.assertTrue(all(s["cat"] == "user" and s["args"] == {} for s in loops), loops)
        self.assertEqual(self.per_pe(loops), {pe: [(None, None)] * 2 for pe in range(PES)})
        steps = slices(trace, name="step")
        self.assertTrue(all(s["cat"] == "move" for s in steps), steps)
        self.assertEqual(self.per_pe(steps), {pe: [(pe, 0), (pe, 1)] for pe in range(PES)})
        notifies = slices(trace, name="notify_peer")
        self.assertTrue(all(s["cat"] == "move" for s in notifies), notifies)
        self.assertEqual(self.per_pe(notifies), {pe: [(None, None)] * 2 for pe in range(PES)})
        self.assert_inside_programs(trace, fills + loops + steps + notifies)
        # Spans nest per program: every fill in its program's loop, the notify in the step.
        self.assert_within(fills, loops)
        self.assert_within(notifies, steps)
        # The notify under the mark is the runtime's signal event, to the next PE.
        signals = [e for e in trace["traceEvents"] if e.get("name") == "notify" and e.get("cat") == "signal"]
        self.assertEqual(sorted((e["pid"], e["args"]["target_pe"]) for e in signals),
                         sorted((pe, (pe + 1) % PES) for pe in range(PES) for _ in range(2)))

    def test_no_trace_spans_leaves_them_out(self):
        trace = self.traced(AG_GEMM + ["--no-trace-spans"])
        self.assertEqual(slices(trace, name="matmul") + slices(trace, name="fill"), [])
        self.assertGreater(len(slices(trace, cat="wait")), 0)

    def test_untraced_run_with_explicit_span_calls(self):
        result = run(TRACE_SPANS)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn(f"passed on all {PES} PEs", result.stdout)
        self.assertNotIn("trace", result.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
