#!/usr/bin/env bash
# Builds the benchmarks jar, runs the JMH suite with the GC profiler and prints a compact table:
# benchmark, ns/op ± error, bytes allocated per op.
#
# Usage: benchmarks/run.sh quick|full [JMH arguments...]
#   quick  1 fork, 2 x 1s warmup, 3 x 1s measurement: a few minutes on 2 cores, noisy
#   full   the defaults in the benchmark classes (2 forks, AopBenchmark 5; 5 x 1s warmup, 5 x 1s measurement)
#   JMH arguments are passed on, e.g. a regex of benchmarks to run: run.sh quick SuccessfulCall
#   (JMH refuses an option given twice: for other -f/-wi/-i values, use full and give them)
# Environment:
#   SKIP_BUILD=1           use the jar already in benchmarks/target
#   BENCH_MAVEN_ARGS=...   extra Maven arguments for the build
set -euo pipefail

usage() {
	sed -n '2,13s/^# \{0,1\}//p' "$0" >&2
}

mode=${1:-}
case "$mode" in
	quick) jmh_options=(-f 1 -wi 2 -i 3 -w 1s -r 1s) ;;
	full) jmh_options=() ;;
	*) usage; exit 2 ;;
esac
shift

root=$(cd "$(dirname "$0")/.." && pwd)
jar=$root/benchmarks/target/benchmarks.jar
result=$root/benchmarks/target/jmh-result-$mode.json

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
	# shellcheck disable=SC2086 # BENCH_MAVEN_ARGS is a list of arguments
	(cd "$root" && mvn -B -ntp -q -pl benchmarks -am package -DskipTests ${BENCH_MAVEN_ARGS:-})
fi

java -jar "$jar" "${jmh_options[@]}" -prof gc -rf json -rff "$result" "$@"

python3 - "$result" <<'PY'
import json
import math
import sys

with open(sys.argv[1]) as f:
    results = json.load(f)

def allocated_bytes(result):
    for name, metric in result.get("secondaryMetrics", {}).items():
        # JMH before 1.37 prefixed profiler metrics with a middle dot.
        if name.lstrip("\u00b7") == "gc.alloc.rate.norm":
            return metric["score"]
    return None

rows = []
for result in results:
    benchmark = result["benchmark"].rsplit(".", 2)
    group, method = benchmark[-2], benchmark[-1]
    primary = result["primaryMetric"]
    error = primary["scoreError"]
    error = "" if error in ("NaN", None) or math.isnan(float(error)) else "± %.1f" % float(error)
    allocated = allocated_bytes(result)
    rows.append((group, primary["score"], method, primary["scoreUnit"], error,
                 "-" if allocated is None else "%.0f" % allocated))

rows.sort(key=lambda row: (row[0], row[1]))
name_width = max(len("%s.%s" % (row[0], row[2])) for row in rows) if rows else 9
print()
units = sorted({row[3] for row in rows}) or ["ns/op"]
print("%-*s %12s %10s %8s" % (name_width, "Benchmark", "/".join(units), "error", "B/op"))
previous_group = None
for group, score, method, unit, error, allocated in rows:
    if previous_group is not None and group != previous_group:
        print()
    previous_group = group
    print("%-*s %12.1f %10s %8s" % (name_width, "%s.%s" % (group, method), score, error, allocated))
print()
print("Raw results: %s" % sys.argv[1])
PY
