#!/bin/sh
# Builds the libFuzzer targets into .build/fuzz/, outside the SwiftPM build.
#
# TandemCore, TandemWire, TandemRelay, TandemOSC and TandemOSCLink are compiled
# straight from Sources/ (never copied) as static libraries instrumented for libFuzzer and AddressSanitizer,
# in dependency order; each target in fuzz/<Target>/ is then linked against
# them with the shared checks in fuzz/Support/. Only public API is used, as a
# server would use it. OSCPacket also links Debian's liblo (-llo, found through
# Sources/CLiblo's module map), which is not instrumented. Something is rebuilt only when a source is newer.
#
#   fuzz/build.sh                  every target
#   fuzz/build.sh RoomEngine       one target
#
# Runs as: SWIFT_BACKTRACE=enable=no .build/fuzz/<target> fuzz/corpus/<target> (see docs/security.md).
set -eu
cd "$(dirname "$0")/.."

SWIFTC=${SWIFTC:-swiftc}
OUT=.build/fuzz
MODULES=$OUT/modules
# -O keeps Swift's own traps (overflow, bounds, force-unwrap); -g names the line in a report.
FLAGS="-swift-version 6 -parse-as-library -sanitize=fuzzer,address -O -g -use-ld=lld"
# Where modules are found: ours, and CLiblo's module map (liblo's headers).
INCLUDES="-I $MODULES -I Sources/CLiblo"
mkdir -p "$MODULES"

# stale OUTPUT INPUT...: whether OUTPUT is missing or older than an input file.
stale() {
    out=$1
    shift
    [ ! -e "$out" ] && return 0
    [ -n "$(find "$@" \( -name '*.swift' -o -name '*.a' \) -newer "$out" | head -n 1)" ]
}

# library NAME: Sources/NAME as libNAME.a and its module, once its sources changed.
library() {
    name=$1
    shift
    if stale "$OUT/lib$name.a" "Sources/$name" "$@"; then
        echo "fuzz: building $name"
        # shellcheck disable=SC2046,SC2086 # the sources and flags are meant to split
        "$SWIFTC" $FLAGS -wmo -module-name "$name" $INCLUDES \
            -emit-library -static -o "$OUT/lib$name.a" \
            -emit-module -emit-module-path "$MODULES/$name.swiftmodule" \
            $(find "Sources/$name" -name '*.swift' | sort)
    fi
}

library TandemCore
library TandemWire "$OUT/libTandemCore.a"
library TandemRelay "$OUT/libTandemWire.a"
library TandemOSC "$OUT/libTandemCore.a"
library TandemOSCLink "$OUT/libTandemOSC.a"

# The tests' room of every kind, one definition for the tests and the fuzz targets.
SHARED=Tests/TandemTestSupport/EveryKindRoom.swift

TARGETS=${*:-MessageDecoder SchemaDecoder RoomEngine RelayCodec OSCPacket}
for target in $TARGETS; do
    # The OSC libraries and liblo for the OSC target only.
    case $target in
        OSCPacket) libs="-lTandemOSCLink -lTandemOSC -llo" ;;
        *) libs="" ;;
    esac
    if stale "$OUT/$target" "fuzz/$target" fuzz/Support "$SHARED" "$OUT/libTandemCore.a" "$OUT/libTandemWire.a" "$OUT/libTandemRelay.a" \
        "$OUT/libTandemOSC.a" "$OUT/libTandemOSCLink.a"; then
        echo "fuzz: building $target"
        # shellcheck disable=SC2046,SC2086
        "$SWIFTC" $FLAGS -module-name "${target}Fuzz" $INCLUDES \
            $(find "fuzz/$target" fuzz/Support -name '*.swift' | sort) "$SHARED" \
            -L "$OUT" $libs -lTandemRelay -lTandemWire -lTandemCore -lm -o "$OUT/$target"
    fi
done
