#!/usr/bin/env bash
# instructions-per-call.sh: the instructions one iteration of a Go benchmark
# executes, counted by valgrind's callgrind, which counts instructions, not
# time: the figure does not move with other load on the machine (within
# about 1 %), where timings on a shared 2-core machine move by 5 %.
#
#   go test -c -o /tmp/a2av1.test ./a2a/v1/
#   scripts/instructions-per-call.sh /tmp/a2av1.test 'Telemetry$/GRPC/noop$'
#
# It runs the benchmark twice, for N1 and N2 iterations (default 300 and
# 2300), and prints (I(N2) - I(N1)) / (N2 - N1): the per-iteration count,
# without the start-up and set-up. Settings that make the count repeatable:
# GOMAXPROCS=1 (idle processors spin looking for work, a different amount in
# every run), GOGC=off (a collection falls on a different iteration in every
# run; set GOGC to count the collector too), no asynchronous preemption (its
# signals crash callgrind) and no RDTSCP (valgrind 3.19 cannot decode it).
# A pattern matches the sub-benchmarks of what it names too ('Send/GRPC$'
# runs Send/GRPC/parallel as well, and the count is then of both): SKIP, a
# -test.skip pattern, leaves them out (SKIP='Send/GRPC/.').
# Needs valgrind (Debian: apt-get install valgrind).
set -euo pipefail
if [ $# -lt 2 ]; then
	sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
bin=$1 bench=$2 n1=${3:-300} n2=${4:-2300}
count() {
	GOMAXPROCS=1 GOGC=${GOGC:-off} GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off \
		valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$bin" -test.run '^$' -test.bench "$bench" -test.skip "${SKIP:-^$}" -test.benchtime "${1}x" 2>&1 |
		awk '/^Benchmark/ {ran = 1} /Collected :/ {n = $4} END {if (ran) print n}'
}
a=$(count "$n1")
b=$(count "$n2")
[ -n "$a" ] && [ -n "$b" ] || { echo "callgrind gave no count for $bench (no benchmark matched it, or it failed)" >&2; exit 1; }
echo "$bench $(((b - a) / (n2 - n1))) instructions per iteration"
