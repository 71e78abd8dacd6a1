import GatewireFuzzDrivers

/// libFuzzer's entry point: one input for `fuzzConfig` (fuzz/Drivers/ConfigDriver.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzConfig(data, size)
}
