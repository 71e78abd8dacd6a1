import Glibc

/// Seconds since the Unix epoch on `CLOCK_REALTIME`: for times compared with the dates a
/// server sends (`Date`, `Expires`, `Last-Modified`, a `Retry-After` date) and stamped on
/// stored entries. It may jump when the system clock is set; delays and deadlines use
/// ``MonotonicClock``.
package enum WallClock {
    package static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }
}
