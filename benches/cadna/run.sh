#!/usr/bin/env bash
# CADNA comparison: builds CADNA 3.1.12 (C/C++ sources shipped inside the PyPI package
# `cadnapromise`) in a work directory, builds kernels.cc plain and with CADNA's stochastic types
# under two flag sets, runs them and prints each kernel's ratio to its own plain build.
#
#   benches/cadna/run.sh [RUNS [--quick]]   # RUNS interleaved runs per kernel (default 7)
#
# Environment: CADNA_WORK (default /tmp/stoch-cadna) keeps the download and the build between
# runs; CXX (default g++). Needs network access for pip the first time. Not part of CI.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
runs="${1:-7}"
work="${CADNA_WORK:-/tmp/stoch-cadna}"
cxx="${CXX:-g++}"
# cadnapromise 0.4.1 ships cadna_c_half-3.1.12.tar.gz under cadnaPromise/cadna/.
pkg_version=0.4.1
cadna=cadna_c_half-3.1.12
mkdir -p "$work"
prefix="$work/install"

if [ ! -f "$prefix/lib/libcadnaC.a" ]; then
  if [ ! -f "$work/$cadna.tar.gz" ]; then
    (cd "$work" && python3 -m pip download --no-deps \
      "cadnapromise==$pkg_version" -d dl)
    sdist="$(ls "$work"/dl/cadnapromise-"$pkg_version".tar.gz)"
    inner="$(tar tzf "$sdist" | grep "/$cadna.tar.gz\$" | head -1)"
    [ -n "$inner" ] || { echo "no $cadna.tar.gz inside $sdist" >&2; exit 1; }
    tar xzf "$sdist" -C "$work" "$inner"
    mv "$work/$inner" "$work/$cadna.tar.gz"
  fi
  rm -rf "$work/src" && mkdir -p "$work/src"
  tar xzf "$work/$cadna.tar.gz" -C "$work/src" --strip-components=1
  (cd "$work/src" && ./configure CXX="$cxx" --prefix="$prefix" --enable-fma \
      --disable-dependency-tracking >"$work/configure.log" 2>&1 \
    && make -C srcC -j2 >"$work/make.log" 2>&1 && make -C srcC install >>"$work/make.log" 2>&1) \
    || { echo "CADNA build failed: see $work/configure.log and $work/make.log" >&2; exit 1; }
fi

echo "CADNA 3.1.12 from $work; $("$cxx" --version | head -1);" \
  "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')"
uptime

# The kernels, with each flag set (CADNA needs -frounding-math: it switches the rounding mode),
# each run with CADNA's checks off and on in its own process.
for flags in "-O3 -frounding-math" "-O3 -march=native -frounding-math"; do
  bin="$work/kernels-$(echo "$flags" | tr -d ' =-')"
  # shellcheck disable=SC2086
  "$cxx" $flags -std=c++17 -I"$prefix/include" "$here/kernels.cc" -L"$prefix/lib" -lcadnaC \
    -o "$bin"
  for mode in off on; do
    echo "== g++ $flags, CADNA checks $mode"
    "$bin" "$mode" "$runs" "${@:2}" | grep -v -e '^---' -e 'detection:' -e 'CADNA.*software' \
      -e '^ *$' || { echo "kernels failed" >&2; exit 1; }
  done
done
