// swift-tools-version: 6.0
// Tandem: a WebSocket live-sync server for shared UI controls.
import PackageDescription

let package = Package(
    name: "Tandem",
    products: [
        .library(name: "TandemCore", targets: ["TandemCore"]),
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
        .testTarget(
            name: "TandemCoreTests",
            dependencies: ["TandemCore"],
            exclude: []
        ),
    ]
)
