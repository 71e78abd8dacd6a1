import Gatewire

/// A Swift string from an optional C string.
func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }

/// Retains `object` and returns it as an opaque C handle.
func box<T: AnyObject>(_ object: T) -> OpaquePointer { OpaquePointer(Unmanaged.passRetained(object).toOpaque()) }

/// The object behind a handle made by ``box(_:)`` or borrowed with `passUnretained`.
func unbox<T: AnyObject>(_ pointer: OpaquePointer, as type: T.Type = T.self) -> T {
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
}

/// Releases a handle made by ``box(_:)``.
func release<T: AnyObject>(_ pointer: OpaquePointer, as type: T.Type) {
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(pointer)).release()
}
