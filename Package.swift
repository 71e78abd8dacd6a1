// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Gatewire",
    products: [
        // Swift programs: the core, linked into the program with the program's own Swift
        // runtime (one runtime per process, also with --static-swift-stdlib).
        .library(name: "Gatewire", targets: ["Gatewire"]),
        // C and Python: the `gw_*` C ABI (include/gatewire.h) as a shared library, built by
        // scripts/build.sh with the Swift runtime inside and gw_* the only exports
        // (installed as libGatewire.so; docs/deployment.md).
        .library(name: "GatewireDynamic", type: .dynamic, targets: ["Gatewire", "GatewireC"]),
        // OpenAPI 3.0/3.1 documents to gateway configs, for Swift programs (docs/openapi.md).
        .library(name: "GatewireOpenAPI", targets: ["GatewireOpenAPI"]),
        .executable(name: "gatewire", targets: ["gatewire-cli"]),
        // What each libFuzzer target does with an input (fuzz/README.md); the fuzz package
        // links it with libFuzzer. Inside this package, the drivers reach the package-only
        // parsers and the response mapper, and every build compiles them.
        .library(name: "GatewireFuzzDrivers", targets: ["GatewireFuzzDrivers"]),
    ],
    targets: [
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CJansson", pkgConfig: "jansson", providers: [.apt(["libjansson-dev"])]),
        // libcrypto: SHA-256 names the HTTP cache's entries (no URL or credential in clear).
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // zlib: the content codings of a streamed body that may pause, decoded by the transport itself.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // hiredis 0.14: the Redis client's protocol and async API, driven by the event loop.
        // No pkgConfig: hiredis.pc's -D_FILE_OFFSET_BITS=64 is a flag SwiftPM refuses (with a
        // warning); its headers are in /usr/include/hiredis, which the shim names.
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        // libyaml 0.2.5: the OpenAPI importer's YAML documents (events only; it builds Jansson trees).
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CGatewireABI"),
        // Arenas for the Jansson trees of large bodies (C: thread-local scopes, atomics; every
        // symbol hidden, so nothing leaks into the .so's exports).
        .target(name: "CGatewireArena", dependencies: ["CJansson"]),
        // The layers, each seeing only those below it (README, Layout).
        .target(name: "GatewireBase"),
        .target(name: "GatewireJSON", dependencies: ["CJansson", "CGatewireArena"]),
        .target(name: "GatewireMapping", dependencies: ["GatewireJSON", "CJansson"]),
        .target(name: "GatewireDescriptors", dependencies: ["GatewireBase", "GatewireJSON", "GatewireMapping"]),
        .target(name: "GatewireTransport", dependencies: ["GatewireBase", "CCurl", "CZlib"]),
        .target(name: "GatewireRedis", dependencies: ["GatewireBase", "GatewireTransport", "CHiredis"]),
        .target(name: "Gatewire", dependencies: ["GatewireBase", "GatewireJSON", "GatewireMapping", "GatewireDescriptors", "GatewireTransport", "GatewireRedis", "CCrypto"]),
        // OpenAPI 3.0/3.1 documents to gateway configs (and the report of what they cannot express).
        .target(name: "GatewireOpenAPI", dependencies: ["GatewireJSON", "GatewireDescriptors", "CJansson", "CYAML"]),
        .target(name: "GatewireC", dependencies: ["Gatewire", "GatewireOpenAPI", "CGatewireABI"]),
        // The CLI has the core linked in; GatewireC's shared-object loader hands plugins its gw_* functions.
        .executableTarget(name: "gatewire-cli", dependencies: ["Gatewire", "GatewireC", "GatewireOpenAPI"]),
        .target(name: "GatewireFuzzDrivers", dependencies: ["Gatewire"], path: "fuzz/Drivers"),
        // One test target per layer, depending on that layer only, so that each is tested alone;
        // GatewireTests covers the pipeline and everything above it (and, through the
        // fixtures and servers it shares, most of the layers' own tests still).
        .testTarget(name: "GatewireBaseTests", dependencies: ["GatewireBase"]),
        .testTarget(name: "GatewireJSONTests", dependencies: ["GatewireJSON"]),
        .testTarget(name: "GatewireMappingTests", dependencies: ["GatewireMapping", "GatewireJSON"]),
        .testTarget(name: "GatewireDescriptorsTests", dependencies: ["GatewireDescriptors"]),
        .testTarget(name: "GatewireTransportTests", dependencies: ["GatewireTransport", "GatewireBase", "CCurl"]),
        .testTarget(name: "GatewireRedisTests", dependencies: ["GatewireRedis", "GatewireTransport", "GatewireBase"]),
        // The importer alone, and its configs through the core's config validation.
        .testTarget(name: "GatewireOpenAPITests", dependencies: ["GatewireOpenAPI", "Gatewire"]),
        .testTarget(name: "GatewireTests", dependencies: ["Gatewire", "GatewireC", "GatewireBase", "GatewireJSON", "GatewireMapping", "GatewireDescriptors", "GatewireTransport", "GatewireRedis", "GatewireOpenAPI", "CJansson", "CCurl", "CGatewireArena"]),
    ]
)
