import GatewireFuzzDrivers

/// libFuzzer's entry point: one input for `fuzzMapper` (fuzz/Drivers/MapperDriver.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzMapper(data, size)
}
