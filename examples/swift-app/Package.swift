// swift-tools-version:6.0
// A Swift program that uses Gatewire as an application would: the `Gatewire` product, linked
// into the program. Built for deployment with
//   swift build -c release --static-swift-stdlib --package-path examples/swift-app
// it needs no Swift toolchain at run time (docs/deployment.md).
import PackageDescription

// SwiftPM names a path dependency after its directory, whatever the clone is called.
let repository = String(#filePath.split(separator: "/").dropLast(3).last!)

let package = Package(
    name: "GatewireSwiftApp",
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(name: "swift-app", dependencies: [.product(name: "Gatewire", package: repository)]),
    ]
)
