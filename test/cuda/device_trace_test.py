#!/usr/bin/env python3
"""A cuda job under tdist-run --trace: the kernels' own events are in the merged trace.

  device_trace_test.py TDIST_RUN CUDA_TESTS KERNEL_TESTS

Runs the device suite's put-with-signal ring of blocks (CudaTest.PutmemSignalRingBlock) on 2 PEs
sharing the GPU and checks the trace: tracks of GPU blocks on each PE, with device waits, puts
with signal and notifies, and flows from one PE's device notify to the other PE's device wait.
Then the kernel library's collectives, whose untraced jobs run a build without the hooks: a
traced job runs the build with them, and its trace has their notifies and waits. And the library's
overlap GEMMs: their calls and steps as GPU-timed spans on a track per stream (StreamSpan).
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TDIST_RUN, CUDA_TESTS, KERNEL_TESTS = sys.argv[1:4]


def traced_job(program, gtest_filter):
    """The merged trace of program's tests that match gtest_filter, on 2 cuda PEs."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "job.json")
        environment = {k: v for k, v in os.environ.items() if not k.startswith("TDIST_")}
        result = subprocess.run(
            [TDIST_RUN, "--backend", "cuda", "-n", "2", "--trace", path, "--wait-timeout", "30", "--",
             program, "--gtest_filter=" + gtest_filter],
            env=environment, capture_output=True, text=True, timeout=240)
        if result.returncode != 0:
            raise AssertionError(result.stdout + result.stderr)
        with open(path, encoding="utf-8") as f:
            return json.load(f)


def thread_names(events):
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name"}


def gpu_tracks(events):
    names = thread_names(events)
    return names, {key for key, name in names.items() if name.startswith("GPU block ")}


def stream_tracks(events):
    return {key for key, name in thread_names(events).items() if name.startswith("GPU stream ")}


class DeviceTrace(unittest.TestCase):
    def test_library_calls_and_steps_on_gpu_stream_tracks(self):
        # The decomposed AG+GEMM and GEMM+RS (several chunks, two PEs) and a fused AG+GEMM: a call
        # span per call on a stream track of each PE, its GEMMs, pushes and waits inside it, the
        # pushes on another stream than the GEMMs, nothing dropped.
        trace = traced_job(KERNEL_TESTS, "Bf16Gemms.AllGatherGemmOfSmallIntegersEqualsTheReference:"
                                         "Bf16Gemms.GemmReduceScatterOfSmallIntegersEqualsTheReference:"
                                         "Bf16Gemms.FusedAllGatherGemmOfSmallIntegersEqualsTheReference")
        events = trace["traceEvents"]
        streams = stream_tracks(events)
        self.assertEqual({pid for pid, _ in streams}, {0, 1}, streams)
        on_streams = [e for e in events if e.get("ph") == "X" and (e["pid"], e.get("tid")) in streams]
        for pe in (0, 1):
            mine = [e for e in on_streams if e["pid"] == pe]
            calls = [e for e in mine if e.get("cat") == "call"]
            self.assertEqual({e["name"] for e in calls}, {"all_gather_gemm", "gemm_reduce_scatter"}, calls)
            for name in ("gemm_chunk", "gemm_partial", "reduce_chunk", "gemm_fused"):
                self.assertTrue([e for e in mine if e["name"] == name and e.get("cat") == "compute"],
                                f"PE {pe}: no {name}")
            pushes = [e for e in mine if e["name"] == "push_chunk" and e.get("cat") == "move"]
            self.assertTrue(pushes, f"PE {pe}: no push_chunk")
            self.assertTrue({p["args"]["m"] for p in pushes} <= {1 - pe, pe}, pushes)
            self.assertNotEqual({p["tid"] for p in pushes},
                                {g["tid"] for g in mine if g["name"] == "gemm_partial"}, "pushes beside the GEMMs")
            for step in (e for e in mine if e.get("cat") != "call"):
                self.assertGreaterEqual(step["dur"], 0, step)
                inside = [c for c in calls if c["ts"] - 1 <= step["ts"] and step["ts"] + step["dur"] <= c["ts"] + c["dur"] + 1]
                self.assertTrue(inside, f"PE {pe}: {step['name']} outside every call")
        self.assertEqual(trace["otherData"]["dropped_events"], 0)

    def test_library_collectives_record_in_a_traced_job(self):
        trace = traced_job(KERNEL_TESTS, "Collectives/1.EveryAllReduceAlgorithmGivesThePeOrderSum")
        events = trace["traceEvents"]
        names, gpu = gpu_tracks(events)
        self.assertEqual({pid for pid, _ in gpu}, {0, 1}, names)
        for pe in (0, 1):
            mine = [e for e in events if e.get("ph") == "X" and (e["pid"], e.get("tid")) in gpu and e["pid"] == pe]
            self.assertTrue([e for e in mine if e.get("name") == "notify"], f"PE {pe}: no device notify")
            self.assertTrue([e for e in mine if e.get("cat") == "wait"], f"PE {pe}: no device wait")

    def test_ring_of_blocks_on_two_pes(self):
        trace = traced_job(CUDA_TESTS, "CudaTest.PutmemSignalRingBlock")
        events = trace["traceEvents"]
        names, gpu = gpu_tracks(events)
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
