#!/bin/sh
# librdmarwx keeps each thread's last QP in initial-exec TLS (caps.c: the
# post fast path reads it without a call), which marks the library
# DF_STATIC_TLS.  A library loaded by dlopen() (a Python extension, a
# plugin) then takes its TLS from glibc's static TLS surplus (512 bytes
# optional by default, glibc.rtld.optional_static_tls): dlopen() fails
# with "cannot allocate memory in static TLS block" once it is used up.
# Checked: the library loads through dlopen() and works (Python's ctypes,
# RTLD_NOW), also with the optional surplus set to 0 (glibc 2.32 and
# later still reserve 144 bytes a namespace for such libraries), and its
# TLS stays within TLS_BUDGET bytes.  Output: one "ok"/"FAIL" line per check.  Run from
# userspace/ after make.
set -u
lib=build/librdmarwx.so
TLS_BUDGET=64

# dlopen_works [TUNABLES]: the library loaded by Python's ctypes, and
# rwx_rw_layout(max_sge 4, nents 10, ...) counting its 3 WRs
dlopen_works() {
	GLIBC_TUNABLES=${1:-} python3 - "$lib" 2>&1 <<'PY'
import ctypes, os, sys
lib = ctypes.CDLL(os.path.abspath(sys.argv[1]), mode=os.RTLD_NOW)
print("layout", lib.rwx_rw_layout(4, 10, None, None, 0))
PY
}
for tunables in "" glibc.rtld.optional_static_tls=0; do
	out=$(dlopen_works $tunables)
	if [ "$out" = "layout 3" ]; then
		echo "ok dlopen: $lib loads through dlopen() and works${tunables:+ ($tunables)}"
	else
		echo "FAIL dlopen: $lib through dlopen()${tunables:+ ($tunables)}: $out"
	fi
done

tls=$(readelf -lW "$lib" | awk '$1 == "TLS" { print $6 }')
[ -n "$tls" ] && tls=$((tls))
if [ -n "$tls" ] && [ "$tls" -le $TLS_BUDGET ]; then
	echo "ok dlopen: $lib's initial-exec TLS is $tls bytes (budget $TLS_BUDGET of glibc's 512-byte surplus)"
else
	echo "FAIL dlopen: $lib's TLS is ${tls:-unknown} bytes, over the budget of $TLS_BUDGET"
fi
