import Glibc

/// Seconds on `CLOCK_MONOTONIC`: for delays, deadlines and elapsed times (never jumps
/// with the wall clock).
package enum MonotonicClock {
    package static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }
}
