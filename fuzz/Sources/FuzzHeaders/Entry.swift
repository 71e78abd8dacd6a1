import GatewireFuzzDrivers

/// libFuzzer's entry point: one input for `fuzzHeaders` (fuzz/Drivers/HeadersDriver.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzHeaders(data, size)
}
