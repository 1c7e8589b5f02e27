#!/usr/bin/env python3
"""A cuda job under tdist-run --trace: the kernels' own events are in the merged trace.

  device_trace_test.py TDIST_RUN CUDA_TESTS

Runs the device suite's put-with-signal ring of blocks (CudaTest.PutmemSignalRingBlock) on 2 PEs
sharing the GPU and checks the trace: tracks of GPU blocks on each PE, with device waits, puts
with signal and notifies, and flows from one PE's device notify to the other PE's device wait.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TDIST_RUN, CUDA_TESTS = sys.argv[1:3]


class DeviceTrace(unittest.TestCase):
    def test_ring_of_blocks_on_two_pes(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "job.json")
            environment = {k: v for k, v in os.environ.items() if not k.startswith("TDIST_")}
            result = subprocess.run(
                [TDIST_RUN, "--backend", "cuda", "-n", "2", "--trace", path, "--wait-timeout", "30", "--",
                 CUDA_TESTS, "--gtest_filter=CudaTest.PutmemSignalRingBlock"],
                env=environment, capture_output=True, text=True, timeout=240)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            with open(path, encoding="utf-8") as f:
                trace = json.load(f)
        events = trace["traceEvents"]
        names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
                 if e.get("ph") == "M" and e.get("name") == "thread_name"}
        gpu = {key for key, name in names.items() if name.startswith("GPU block ")}
        self.assertEqual({pid for pid, _ in gpu}, {0, 1}, names)
        on_gpu = [e for e in events if e.get("ph") == "X" and (e["pid"], e.get("tid")) in gpu]
        for pe in (0, 1):
            mine = [e for e in on_gpu if e["pid"] == pe]
            waits = [e for e in mine if e.get("cat") == "wait" and e["args"].get("call") == "device wait"]
            puts = [e for e in mine if e.get("name") == "put_signal"]
            notifies = [e for e in mine if e.get("name") == "notify"]
            self.assertTrue(waits, f"PE {pe}: no device wait")
            self.assertTrue(puts, f"PE {pe}: no device put_signal")
            self.assertTrue(notifies, f"PE {pe}: no device notify")
            for w in waits:
                self.assertGreaterEqual(w["args"]["observed"], w["args"]["expected"], w)
            for p in puts:
                self.assertEqual(p["args"]["pe"], 1 - pe, p)
        starts = {e["id"]: e for e in events if e.get("ph") == "s"}
        across = [f for f in events if f.get("ph") == "f" and (f["pid"], f["tid"]) in gpu
                  and starts[f["id"]]["pid"] != f["pid"] and (starts[f["id"]]["pid"], starts[f["id"]]["tid"]) in gpu]
        self.assertTrue(across, "no flow from a device notify of one PE to a device wait of the other")
        self.assertEqual(trace["otherData"]["dropped_events"], 0)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
