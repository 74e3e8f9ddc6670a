// swift-tools-version: 6.0
// Tandem: a WebSocket live-sync server for shared UI controls.
//
// The targets by layer, each layer using only those above it
// (docs/architecture.md draws them):
//   1. C libraries from Debian, and the thin C shims Swift cannot do without;
//   2. the pure core and its codecs: no I/O, no clock reads;
//   3. the edges: tokens, SQLite, Redis, OSC over UDP;
//   4. the server;
//   5. the programs, the client library and the load generator;
//   6. the tests.
import PackageDescription

// MARK: 1. C libraries and shims

let cLibraries: [Target] = [
    // libwebsockets from Debian (libwebsockets-dev), found by pkg-config.
    .systemLibrary(name: "CLibWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
    // OpenSSL's libcrypto from Debian (libssl-dev), found by pkg-config: HMAC for tokens.
    .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // SQLite from Debian (libsqlite3-dev), found by pkg-config.
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    // hiredis from Debian (libhiredis-dev): headers in /usr/include, linked by the
    // module map. Not found by pkg-config: hiredis.pc's -D_FILE_OFFSET_BITS=64 is a flag
    // SwiftPM refuses with a warning on every build, and its -I is not needed.
    .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
    // liblo from Debian (liblo-dev), found by pkg-config.
    .systemLibrary(name: "CLiblo", pkgConfig: "liblo", providers: [.apt(["liblo-dev"])]),
    // What Swift cannot import from lws: LWS_PRE, container_of timers, signals, direct sends.
    .target(
        name: "CTandemShim",
        dependencies: ["CLibWebSockets"],
        // The uv event loop is the server's own (Debian's libuv1-dev).
        // io_uring sends a fan-out round's frames in batches (Debian's liburing-dev).
        linkerSettings: [.linkedLibrary("uv"), .linkedLibrary("uring")]
    ),
    // What Swift cannot import from hiredis: the libuv adapter, connect with a
    // timeout and keepalive, argv commands with a C callback, uv timers.
    .target(name: "CTandemRedis", dependencies: ["CHiredis"], linkerSettings: [.linkedLibrary("uv")]),
]

// MARK: 2. The pure core and its codecs

let core: [Target] = [
    // Control types, the math, gestures, the room engine and conflation
    // bookkeeping. No I/O, no clock reads, no Foundation.
    .target(
        name: "TandemCore",
        // Double.rounded() lowers to libm's round/trunc; without Foundation
        // nothing else links libm into an executable that uses the core.
        linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
    ),
    // Protocol v1: JSON encode/decode and validation into typed messages.
    .target(name: "TandemWire", dependencies: ["TandemCore"]),
    // The messages between cluster nodes and their binary codec (docs/relay-format.md).
    .target(name: "TandemRelay", dependencies: ["TandemCore", "TandemWire"]),
    // The OSC address scheme of a room (docs/osc.md): messages out, requests in. No sockets.
    .target(name: "TandemOSC", dependencies: ["TandemCore"]),
]

// MARK: 3. The edges

let edges: [Target] = [
    // Tokens and roles: HS256 JWTs verified and minted (docs/security.md, "Tokens and roles").
    .target(name: "TandemAuth", dependencies: ["TandemCore", "TandemWire", "COpenSSL"]),
    // Durable rooms, committed states, presets and the commit log in one SQLite file.
    .target(name: "TandemStorage", dependencies: ["TandemCore", "TandemWire", "CSQLite"]),
    // A small Redis client on the server's libuv loop: commands, scripts, pub/sub,
    // reconnects, Sentinel. Knows nothing of rooms.
    .target(name: "TandemRedis", dependencies: ["CHiredis", "CTandemRedis", "COpenSSL"]),
    // OSC packets and UDP for the bridge, through liblo: the codec, a sender, a receiver, address ranges.
    .target(name: "TandemOSCLink", dependencies: ["TandemOSC", "CLiblo"]),
]

// MARK: 4. The server

let server: [Target] = [
    // lws transport, HTTP, auth, limits, fan-out, and the rooms behind one seam
    // (RoomService): local rooms (memory or SQLite) or replicated rooms (Redis).
    .target(name: "TandemServer", dependencies: ["TandemCore", "TandemWire", "TandemStorage", "TandemAuth", "TandemRedis",
                                                 "TandemRelay", "TandemOSC", "TandemOSCLink", "CLibWebSockets", "CTandemShim"]),
]

// MARK: 5. Programs, the client library, the load generator

let programs: [Target] = [
    .executableTarget(name: "tandem", dependencies: ["TandemServer", "TandemStorage", "TandemAuth", "TandemCore", "TandemOSCLink"]),
    // The Swift client library: a room's state, changes, acked writes, gestures and
    // reconnects over a small transport seam (lws on Linux, URLSession on Apple).
    .target(name: "TandemClient", dependencies: ["TandemCore", "TandemWire", "CLibWebSockets", "CTandemShim"],
            exclude: ["README.md"]),
    // Follows a room and prints its changes (the client's example).
    .executableTarget(name: "tandem-follow", dependencies: ["TandemClient", "TandemCore"]),
    // The load generator's pure parts: latency histogram, open-loop schedule,
    // state checks and the report. Standard library and Glibc only.
    .target(name: "TandemBench", dependencies: ["TandemCore", "TandemWire"]),
    // The load generator: one libwebsockets client loop holding every connection.
    .executableTarget(name: "tandem-bench", dependencies: ["TandemBench", "TandemCore", "TandemWire", "CLibWebSockets", "CTandemShim"]),
]

// MARK: 6. Tests

let tests: [Target] = [
    // Helpers shared by the test targets (a seeded generator); never shipped.
    .target(name: "TandemTestSupport", dependencies: ["TandemCore"], path: "Tests/TandemTestSupport"),
    .testTarget(name: "TandemCoreTests", dependencies: ["TandemCore", "TandemTestSupport"]),
    .testTarget(name: "TandemWireTests", dependencies: ["TandemWire", "TandemCore", "TandemTestSupport"]),
    .testTarget(name: "TandemRelayTests", dependencies: ["TandemRelay", "TandemCore", "TandemWire", "TandemTestSupport"]),
    .testTarget(name: "TandemOSCTests", dependencies: ["TandemOSC", "TandemCore", "TandemTestSupport"]),
    .testTarget(name: "TandemAuthTests", dependencies: ["TandemAuth", "TandemCore", "TandemWire"]),
    .testTarget(name: "TandemStorageTests", dependencies: ["TandemStorage", "TandemCore", "TandemWire", "TandemTestSupport"]),
    // A real redis-server on a free port and a libuv loop the test drives, for the suites that need Redis.
    .target(name: "TandemRedisTestSupport", dependencies: ["CTandemRedis"], path: "Tests/TandemRedisTestSupport"),
    .testTarget(name: "TandemRedisTests", dependencies: ["TandemRedis", "CTandemRedis", "TandemRedisTestSupport"]),
    .testTarget(name: "TandemOSCLinkTests", dependencies: ["TandemOSCLink", "TandemOSC"]),
    .testTarget(name: "TandemServerTests", dependencies: ["TandemServer", "TandemTestSupport"]),
    // Both kinds of rooms in process, against a recording delivery: no lws, no server process.
    .testTarget(name: "TandemRoomsTests", dependencies: ["TandemServer", "TandemCore", "TandemWire", "TandemTestSupport",
                                                        "TandemRedisTestSupport", "CTandemRedis"]),
    .testTarget(name: "TandemClientTests", dependencies: ["TandemClient", "TandemCore", "TandemAuth", "TandemTestSupport"]),
    .testTarget(name: "TandemBenchTests", dependencies: ["TandemBench", "TandemCore", "TandemWire", "TandemTestSupport"]),
]

let package = Package(
    name: "Tandem",
    products: [
        .library(name: "TandemCore", targets: ["TandemCore"]),
        .library(name: "TandemWire", targets: ["TandemWire"]),
        .library(name: "TandemStorage", targets: ["TandemStorage"]),
        .library(name: "TandemClient", targets: ["TandemClient"]),
        .executable(name: "tandem", targets: ["tandem"]),
        .executable(name: "tandem-bench", targets: ["tandem-bench"]),
        .executable(name: "tandem-follow", targets: ["tandem-follow"]),
    ],
    targets: cLibraries + core + edges + server + programs + tests
)
