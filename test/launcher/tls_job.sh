#!/usr/bin/env bash
# tls_job.sh BIN_DIR [PYTHONPATH] - jobs of tdist-run whose PEs reach the bootstrap store over TLS:
# certificates made here with the openssl tool (the job's CA, a PE certificate it signed); a job
# with TDIST_TLS_CA/_CERT/_KEY runs tdist-demo; a job naming a certificate that does not exist
# fails at init naming the file; with PYTHONPATH, the seed's Python init with
# set_conf_store_tls(True, ...). Exit 77 (skipped) without the openssl tool or a tdist without OpenSSL.
set -uo pipefail
bin=$1 pythonpath=${2:-}
command -v openssl >/dev/null || { echo "tls_job: no openssl tool: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "tls_job: $*"; exit 1; }
quiet() { "$@" >/dev/null 2>&1; }
quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=job-ca -keyout "$work/ca.key" -out "$work/ca.pem" &&
  quiet openssl req -newkey rsa:2048 -nodes -subj /CN=pe -keyout "$work/pe.key" -out "$work/pe.csr" &&
  quiet openssl x509 -req -days 2 -in "$work/pe.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
    -out "$work/pe.pem" || fail "openssl could not make the certificates"

export TDIST_TLS_CA=$work/ca.pem TDIST_TLS_CERT=$work/pe.pem TDIST_TLS_KEY=$work/pe.key
out=$("$bin/tdist-run" -n 3 --timeout 120 -- "$bin/tdist-demo" 2>&1)
status=$?
if [ $status -ne 0 ] && grep -q "built without OpenSSL" <<<"$out"; then echo "tls_job: no OpenSSL: skipped"; exit 77; fi
[ $status -eq 0 ] || fail "a job over TLS failed ($status): $out"
grep -q "every PE's result matches the reference" <<<"$out" || fail "tdist-demo over TLS did not check out: $out"
echo "tls_job: 3 PEs over TLS: ok"

out=$(TDIST_TLS_CERT=$work/nowhere.pem "$bin/tdist-run" -n 2 --timeout 120 -- "$bin/tdist-demo" 2>&1)
status=$?
[ $status -ne 0 ] || fail "a job naming a missing certificate ran"
grep -q "cannot use the certificate '$work/nowhere.pem'" <<<"$out" || fail "no message naming the certificate: $out"
echo "tls_job: a missing certificate is named: ok"

if [ -n "$pythonpath" ]; then
  unset TDIST_TLS_CA TDIST_TLS_CERT TDIST_TLS_KEY
  program='
import os, sys
import tdist.shmem as ash
info = sys.argv[1]
ash.set_conf_store_tls(True, info)
attributes = ash.InitAttr()
attributes.my_rank, attributes.n_ranks = int(os.environ["TDIST_PE"]), int(os.environ["TDIST_N_PES"])
attributes.ip_port = sys.argv[2]  # a store of its own, as the seed binds one
ash.aclshmem_init(attributes)
ash.aclshmem_barrier_all()
os.write(1, f"PE {ash.aclshmem_my_pe()} of {ash.aclshmem_n_pes()} joined over TLS\n".encode())
ash.aclshmem_finalize()
'
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  out=$(PYTHONPATH=$pythonpath "$bin/tdist-run" -n 2 --timeout 120 -- python3 -c "$program" \
          "ca=$work/ca.pem;cert=$work/pe.pem;key=$work/pe.key" "tcp://127.0.0.1:$port" 2>&1) ||
    fail "the seed's init over TLS failed: $out"
  [ "$(grep -o "joined over TLS" <<<"$out" | wc -l)" = 2 ] || fail "not every PE joined: $out"
  echo "tls_job: the seed's Python init with set_conf_store_tls(True, ...): ok"
fi
