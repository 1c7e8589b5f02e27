// tdist-cuda-pipeline refuses an unknown format and a device library that is not there, naming them.
// RUN: not tdist-opt %s --tdist-cuda-pipeline="format=cubin" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tdist-opt %s --tdist-cuda-pipeline="device-library=%t.missing.bc" 2>&1 | FileCheck %s --check-prefix=LIBRARY

// FORMAT: tdist-cuda-pipeline: format=cubin is none of bin, fatbin, isa and nvvm
// LIBRARY: tdist-cuda-pipeline: no device library at {{.*}}.missing.bc (build the target tdist_device_bitcode
module {
}
