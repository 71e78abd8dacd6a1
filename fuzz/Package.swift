// swift-tools-version:6.0
// The libFuzzer targets (fuzz/README.md). A package of its own, so that the main package's
// `swift build` never links them: each target's only entry point is
// `LLVMFuzzerTestOneInput`, and libFuzzer brings `main` when built with
// `--sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address` (scripts/fuzz.sh).
import PackageDescription

// SwiftPM names a path dependency after its directory, whatever the clone is called.
let repository = String(#filePath.split(separator: "/").dropLast(2).last!)
// The drivers: what each Swift target does with an input, built inside the Gatewire package
// (fuzz/Drivers) so that they reach its package-only parsers and mapper.
let drivers: Target.Dependency = .product(name: "GatewireFuzzDrivers", package: repository)
// The C ABI (gw_*), as libGatewire exports it, for the target that drives it from C.
let gatewireC: Target.Dependency = .product(name: "GatewireDynamic", package: repository)

let package = Package(
    name: "GatewireFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(name: "fuzz-config", dependencies: [drivers], path: "Sources/FuzzConfig"),
        .executableTarget(name: "fuzz-mapper", dependencies: [drivers], path: "Sources/FuzzMapper"),
        .executableTarget(name: "fuzz-headers", dependencies: [drivers], path: "Sources/FuzzHeaders"),
        .executableTarget(name: "fuzz-network", dependencies: [drivers], path: "Sources/FuzzNetwork"),
        .executableTarget(name: "fuzz-abi", dependencies: [gatewireC], path: "Sources/FuzzABI"),
    ]
)
