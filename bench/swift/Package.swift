// swift-tools-version:6.0
// The Swift bench clients: Gatewire through its Swift API (the root package, by path; the
// `Gatewire` product, linked into the client as into any Swift app) and the URLSession peer
// (FoundationNetworking; Foundation is used here only, never in the library).
import PackageDescription

let package = Package(
    name: "GatewireBench",
    dependencies: [.package(name: "Gatewire", path: "../..")],
    targets: [
        .executableTarget(name: "gatewire-swift", dependencies: [.product(name: "Gatewire", package: "Gatewire")]),
        .executableTarget(name: "urlsession"),
    ]
)
