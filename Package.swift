// swift-tools-version: 6.0
// Tandem: a WebSocket live-sync server for shared UI controls.
import PackageDescription

let package = Package(
    name: "Tandem",
    products: [
        .library(name: "TandemCore", targets: ["TandemCore"]),
        .library(name: "TandemWire", targets: ["TandemWire"]),
        .library(name: "TandemStorage", targets: ["TandemStorage"]),
        .executable(name: "tandem", targets: ["tandem"]),
        .executable(name: "tandem-bench", targets: ["tandem-bench"]),
        .library(name: "TandemClient", targets: ["TandemClient"]),
        .executable(name: "tandem-follow", targets: ["tandem-follow"]),
    ],
    targets: [
        // Pure Swift: control types, the math, gestures, the room engine and
        // conflation bookkeeping. No I/O, no clock reads, no Foundation.
        .target(
            name: "TandemCore",
            // Double.rounded() lowers to libm's round/trunc; without Foundation
            // nothing else links libm into an executable that uses the core.
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        // Protocol v1: JSON encode/decode and validation into typed messages.
        .target(name: "TandemWire", dependencies: ["TandemCore"]),
        // libwebsockets from Debian (libwebsockets-dev), found by pkg-config.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // What Swift cannot import from lws: LWS_PRE, container_of timers, signals.
        .target(
            name: "CTandemShim",
            dependencies: ["CLibWebSockets"],
            // The uv event loop is the server's own (Debian's libuv1-dev).
            // io_uring sends a fan-out round's frames in batches (Debian's liburing-dev).
            linkerSettings: [.linkedLibrary("uv"), .linkedLibrary("uring")]
        ),
        // OpenSSL's libcrypto from Debian (libssl-dev), found by pkg-config: HMAC for tokens.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // Tokens and roles: HS256 JWTs verified and minted (docs/security.md, "Tokens and roles").
        .target(name: "TandemAuth", dependencies: ["TandemCore", "TandemWire", "COpenSSL"]),
        // The server: lws event loop, connections, fan-out, HTTP, metrics.
        .target(name: "TandemServer", dependencies: ["TandemCore", "TandemWire", "TandemStorage", "TandemAuth", "TandemRedis", "TandemRelay", "TandemOSC", "TandemOSCLink", "CLibWebSockets", "CTandemShim"]),
        // SQLite from Debian (libsqlite3-dev), found by pkg-config.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Durable rooms, committed states and the commit log in one SQLite file.
        .target(name: "TandemStorage", dependencies: ["TandemCore", "TandemWire", "CSQLite"]),
        .executableTarget(name: "tandem", dependencies: ["TandemServer", "TandemStorage", "TandemAuth", "TandemCore", "TandemOSCLink"]),
        // The load generator's pure parts: latency histogram, open-loop schedule,
        // state checks and the report. Standard library and Glibc only.
        .target(name: "TandemBench", dependencies: ["TandemCore", "TandemWire"]),
        // The load generator: one libwebsockets client loop holding every connection.
        .executableTarget(name: "tandem-bench", dependencies: ["TandemBench", "TandemCore", "TandemWire", "CLibWebSockets", "CTandemShim"]),
        // The Swift client library: a room's state, changes, acked writes, gestures and
        // reconnects over a small transport seam (lws on Linux, URLSession on Apple).
        .target(name: "TandemClient", dependencies: ["TandemCore", "TandemWire", "CLibWebSockets", "CTandemShim"],
                exclude: ["README.md"]),
        // Follows a room and prints its changes (the client's example).
        .executableTarget(name: "tandem-follow", dependencies: ["TandemClient", "TandemCore"]),
        // Helpers shared by the test targets (a seeded generator); never shipped.
        .target(name: "TandemTestSupport", dependencies: ["TandemCore"], path: "Tests/TandemTestSupport"),
        .testTarget(name: "TandemCoreTests", dependencies: ["TandemCore", "TandemTestSupport"]),
        .testTarget(name: "TandemWireTests", dependencies: ["TandemWire", "TandemCore", "TandemTestSupport"]),
        .testTarget(name: "TandemAuthTests", dependencies: ["TandemAuth", "TandemCore", "TandemWire"]),
        .testTarget(name: "TandemServerTests", dependencies: ["TandemServer", "TandemTestSupport"]),
        .testTarget(name: "TandemStorageTests", dependencies: ["TandemStorage", "TandemCore", "TandemWire", "TandemTestSupport"]),
        .testTarget(name: "TandemClientTests", dependencies: ["TandemClient", "TandemCore", "TandemAuth", "TandemTestSupport"]),
        .testTarget(name: "TandemBenchTests", dependencies: ["TandemBench", "TandemCore", "TandemWire", "TandemTestSupport"]),
        // Issue 14: a small async Redis client on the server's libuv loop (cluster mode).
        // hiredis from Debian (libhiredis-dev): headers in /usr/include, linked by the
        // module map. Not found by pkg-config: hiredis.pc's -D_FILE_OFFSET_BITS=64 is a flag
        // SwiftPM refuses with a warning on every build, and its -I is not needed.
        .systemLibrary(
            name: "CHiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),
        // What Swift cannot import from hiredis: the libuv adapter, connect with a
        // timeout and keepalive, argv commands with a C callback, uv timers.
        .target(name: "CTandemRedis", dependencies: ["CHiredis"], linkerSettings: [.linkedLibrary("uv")]),
        // The Redis client: commands, scripts, pub/sub, reconnects. Not the server's.
        .target(name: "TandemRedis", dependencies: ["CHiredis", "CTandemRedis", "COpenSSL"]),
        .testTarget(name: "TandemRedisTests", dependencies: ["TandemRedis", "CTandemRedis"]),
    ]
)

// Issue 14: the messages between cluster nodes and their binary codec (docs/relay-format.md).
package.targets += [
    // Relay requests to a room's owner and the owner's publications, encoded for Redis pub/sub.
    .target(name: "TandemRelay", dependencies: ["TandemCore", "TandemWire"]),
    .testTarget(name: "TandemRelayTests", dependencies: ["TandemRelay", "TandemCore", "TandemWire", "TandemTestSupport"]),
]

// Issue 15: the OSC address scheme of a room (docs/osc.md): messages out, requests in. No sockets.
package.targets += [
    .target(name: "TandemOSC", dependencies: ["TandemCore"]),
    .testTarget(name: "TandemOSCTests", dependencies: ["TandemOSC", "TandemCore", "TandemTestSupport"]),
]

// Issue 15: OSC packets and UDP for the bridge, through liblo (liblo-dev): the codec, a sender, a receiver.
package.targets += [
    // liblo from Debian (liblo-dev), found by pkg-config.
    .systemLibrary(
        name: "CLiblo",
        pkgConfig: "liblo",
        providers: [.apt(["liblo-dev"])]
    ),
    // Packets encoded and decoded by liblo, a sender per target, a receiving socket, address ranges.
    .target(name: "TandemOSCLink", dependencies: ["TandemOSC", "CLiblo"]),
    .testTarget(name: "TandemOSCLinkTests", dependencies: ["TandemOSCLink", "TandemOSC"]),
]
