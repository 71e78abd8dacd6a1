/// A small, fast, seedable random number generator (SplitMix64, Steele, Lea and Flood 2014,
/// as used to seed xoshiro), so backoff jitter can be reproduced exactly in tests.
///
/// Not cryptographically secure: it only spreads retry delays. A value type: copies continue
/// independently from the same state.
package struct SeededGenerator: RandomNumberGenerator, Sendable, Equatable {
    /// The generator's whole state; advances by a fixed odd constant on every draw.
    package private(set) var state: UInt64

    /// A generator that yields the same sequence for the same `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    /// A generator seeded from the system's entropy source (`getrandom(2)` through
    /// `SystemRandomNumberGenerator`): a different sequence in every process.
    package init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension RandomNumberGenerator {
    /// A uniform double in [0, 1) from the top 53 bits of one draw: the same value for the
    /// same generator state on every platform (unlike `Double.random(in:using:)`, whose
    /// algorithm the standard library does not promise).
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
