#!/bin/sh
# Runs one fuzz target for a number of seconds: fuzz/run.sh TARGET SECONDS.
#
# Reads the committed seeds in fuzz/corpus/TARGET and the scratch corpus in
# .build/fuzz/corpus/TARGET, where the new inputs it finds go (never into
# git). A crash, leak, timeout or out-of-memory fails the run; the input that
# caused it is saved as test-output/fuzz/TARGET-crash-… (or -leak-, -timeout-,
# -oom-) and the log as test-output/fuzz/TARGET.log. Replay one with
# `SWIFT_BACKTRACE=enable=no .build/fuzz/TARGET FILE` (FUZZ_TRACE=1 for RoomEngine's steps).
set -u
cd "$(dirname "$0")/.."

target=$1
seconds=$2
case $target in
    # A client frame is at most a few hundred bytes; 4 KB leaves room for deep nesting and long strings.
    MessageDecoder) options="-max_len=4096 -dict=fuzz/json.dict" ;;
    # Room files are larger: several controls with their states.
    SchemaDecoder) options="-max_len=8192 -dict=fuzz/json.dict" ;;
    # About four bytes a step: 2 KB is a session of some 500 messages, joins and frames.
    RoomEngine) options="-max_len=2048" ;;
    # A relay payload: a request is a client frame plus a few ids; 4 KB holds deltas of dozens of changes.
    RelayCodec) options="-max_len=4096" ;;
    # One UDP datagram: OSC from a patch is tens of bytes; 4 KB holds bundles of dozens of messages.
    OSCPacket) options="-max_len=4096 -dict=fuzz/osc.dict" ;;
    *) echo "fuzz/run.sh: unknown target $target" >&2; exit 2 ;;
esac
scratch=.build/fuzz/corpus/$target
out=test-output/fuzz
mkdir -p "$scratch" "$out"
rm -f "$out/$target-"*

echo "fuzz: $target for ${seconds}s"
# shellcheck disable=SC2086 # options are meant to split
SWIFT_BACKTRACE=enable=no nice -n 10 ".build/fuzz/$target" $options \
    -rss_limit_mb=2048 -timeout=10 -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$out/$target-" "$scratch" "fuzz/corpus/$target" >"$out/$target.log" 2>&1
status=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$target.log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$target.log")
echo "fuzz: $target: ${runs:-?} executions (${rate:-?}/s), corpus $(ls "$scratch" | wc -l) inputs"
if [ "$status" -ne 0 ]; then
    grep -E 'Fatal error|ERROR: (libFuzzer|AddressSanitizer)|SUMMARY' "$out/$target.log" | head -n 5
    ls "$out/$target-"* 2>/dev/null | sed 's/^/fuzz: failing input: /'
    echo "fuzz: $target FAILED (log: $out/$target.log)"
fi
exit "$status"
