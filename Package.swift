// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Gatewire",
    products: [
        // One shared library: the Swift module `Gatewire` for Swift callers and the
        // `gw_*` C ABI (include/gatewire.h) for C and Python callers.
        .library(name: "Gatewire", type: .dynamic, targets: ["Gatewire", "GatewireC"]),
        .executable(name: "gatewire", targets: ["gatewire-cli"]),
    ],
    targets: [
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CJansson", pkgConfig: "jansson", providers: [.apt(["libjansson-dev"])]),
        .systemLibrary(name: "CGatewireABI"),
        // Arenas for the Jansson trees of large bodies (C: thread-local scopes, atomics; every
        // symbol hidden, so nothing leaks into the .so's exports).
        .target(name: "CGatewireArena", dependencies: ["CJansson"]),
        .target(name: "Gatewire", dependencies: ["CCurl", "CJansson", "CGatewireABI", "CGatewireArena"]),
        .target(name: "GatewireC", dependencies: ["Gatewire", "CGatewireABI"]),
        .executableTarget(name: "gatewire-cli", dependencies: ["Gatewire"]),
        .testTarget(name: "GatewireTests", dependencies: ["Gatewire", "CJansson", "CCurl", "CGatewireArena"]),
    ]
)
