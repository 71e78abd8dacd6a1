import GatewireFuzzDrivers

/// libFuzzer's entry point: one input for `fuzzNetwork` (fuzz/Drivers/NetworkDriver.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzNetwork(data, size)
}
