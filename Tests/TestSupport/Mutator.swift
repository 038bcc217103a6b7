import Foundation

/// SplitMix64 (Steele, Lea and Flood's constants, as `SeededRandom` in the engine has them): a
/// tiny seeded generator, so input N of a fuzz run or kill N of the crash harness is the same on
/// every machine and a failure can be replayed from its seed alone. The tests' one copy.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator starting at `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Makes hostile variants of real inputs: byte flips, truncations, splices of two inputs,
/// inserted or repeated tokens (deep nesting), invalid UTF-8, NUL bytes and huge numbers.
///
/// Deterministic: the same seed gives the same mutants. `log` says what was done to the last
/// input, so a slow or failing input can be described without dumping it.
public struct Mutator {
    /// The generator every choice comes from.
    public var rng: SplitMix64
    /// Format-specific fragments worth inserting (`<`, `$source.`, `FUNCTION(` …).
    public let tokens: [[UInt8]]
    /// The operations applied to the last input, in order.
    public var log: [String] = []
    /// Mutants are cut to this size, like libFuzzer's `-max_len`: a reader's time on a large
    /// input grows with its size, which is not a hang.
    public static let maximumSize = 1 << 20
    /// A repeated token stops at this many bytes: enough for 100,000 levels of one-character
    /// nesting, without making every repeat a megabyte-sized file.
    public static let maximumRepeatBytes = 256 << 10

    /// Repeat counts for nesting: enough to overflow any recursive reader's stack.
    public static let repeatCounts = [2, 10, 100, 1_000, 5_000, 20_000, 100_000]
    /// Numbers that break naive integer handling.
    public static let hugeNumbers = [
        "99999999999999999999999999", "-1", "-9223372036854775808", "9223372036854775807",
        "18446744073709551616", "4294967296", "0", "-0", "1e308", "1e999", "NaN", "0x7fffffff",
    ]
    /// Byte sequences that are not valid UTF-8 (overlong, surrogate, truncated, stray continuation).
    public static let invalidUTF8: [[UInt8]] = [
        [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFF], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0],
    ]

    /// A mutator seeded with `seed` that inserts `tokens`.
    public init(seed: UInt64, tokens: [String]) {
        rng = SplitMix64(seed: seed)
        self.tokens = tokens.map { Array($0.utf8) }
    }

    /// A random integer in `range`.
    public mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &rng) }

    /// `true` with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

    /// One of `items`.
    public mutating func pick<T>(_ items: [T]) -> T { items[int(0..<items.count)] }

    /// One to four byte-level mutations of `input`; `other` is a second real input to splice from.
    public mutating func mutate(_ input: [UInt8], other: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<int(1..<5) { bytes = mutateOnce(bytes, other: other) }
        return bytes.count > Self.maximumSize ? Array(bytes.prefix(Self.maximumSize)) : bytes
    }

    private mutating func position(in bytes: [UInt8]) -> Int { int(0..<bytes.count + 1) }

    private mutating func mutateOnce(_ input: [UInt8], other: [UInt8]) -> [UInt8] {
        var bytes = input
        switch int(0..<13) {
        case 0 where !bytes.isEmpty:
            let at = int(0..<bytes.count)
            bytes[at] ^= 1 << UInt8(int(0..<8))
            log.append("flip@\(at)")
        case 1 where !bytes.isEmpty:
            let at = int(0..<bytes.count)
            bytes[at] = pick([0, 1, 0x7F, 0x80, 0xFF, 0x3C, 0x22, 0x28, 0x24, 0x26, 0x20, 0x0A])
            log.append("byte@\(at)")
        case 2:
            let at = position(in: bytes)
            bytes.removeSubrange(at..<min(bytes.count, at + int(1..<256)))
            log.append("delete@\(at)")
        case 3:
            let at = position(in: bytes)
            bytes.removeSubrange(at...)
            log.append("truncate@\(at)")
        case 4 where !bytes.isEmpty:
            let start = int(0..<bytes.count), end = min(bytes.count, start + int(1..<200))
            let times = pick([2, 3, 10, 100, 1_000])
            bytes.insert(contentsOf: Self.repeated(Array(bytes[start..<end]), times), at: end)
            log.append("duplicate\(start)..<\(end)x\(times)")
        case 5 where !tokens.isEmpty:
            let at = position(in: bytes), token = pick(tokens)
            bytes.insert(contentsOf: token, at: at)
            log.append("token '\(String(decoding: token, as: UTF8.self))'@\(at)")
        case 6 where !tokens.isEmpty:
            let at = position(in: bytes), token = pick(tokens)
            let times = min(pick(Self.repeatCounts), max(1, Self.maximumRepeatBytes / max(1, token.count)))
            bytes.insert(contentsOf: Self.repeated(token, times), at: at)
            log.append("repeat '\(String(decoding: token, as: UTF8.self))'x\(times)@\(at)")
        case 7:
            let cut = position(in: bytes), from = int(0..<other.count + 1)
            bytes = Array(bytes[..<cut]) + other[from...]
            log.append("splice@\(cut)+other@\(from)")
        case 8:
            let at = position(in: bytes)
            bytes.insert(contentsOf: pick(Self.invalidUTF8), at: at)
            log.append("badUTF8@\(at)")
        case 9:
            bytes = replaceNumber(bytes)
        case 10:
            let at = position(in: bytes)
            bytes.insert(contentsOf: (0..<int(1..<16)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: at)
            log.append("random@\(at)")
        case 11 where !bytes.isEmpty:
            // Move a chunk: the same elements in the wrong place.
            let start = int(0..<bytes.count), end = min(bytes.count, start + int(1..<500))
            let chunk = Array(bytes[start..<end])
            bytes.removeSubrange(start..<end)
            let at = position(in: bytes)
            bytes.insert(contentsOf: chunk, at: at)
            log.append("move\(start)..<\(end)@\(at)")
        default:
            let at = position(in: bytes)
            bytes.insert(0, at: at)
            log.append("nul@\(at)")
        }
        return bytes
    }

    /// `bytes` `times` times over, built without a closure per copy (debug builds are slow).
    static func repeated(_ bytes: [UInt8], _ times: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count * times)
        for _ in 0..<times { result.append(contentsOf: bytes) }
        return result
    }

    /// Replaces a run of ASCII digits (or inserts at random, when there is none) with a huge,
    /// negative or non-finite number.
    private mutating func replaceNumber(_ bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        let number = Array(pick(Self.hugeNumbers).utf8)
        let isDigit: (UInt8) -> Bool = { $0 >= 0x30 && $0 <= 0x39 }
        let from = int(0..<bytes.count + 1)
        guard let start = bytes[from...].firstIndex(where: isDigit) ?? bytes.firstIndex(where: isDigit) else {
            result.insert(contentsOf: number, at: from)
            log.append("number@\(from)")
            return result
        }
        let end = bytes[start...].firstIndex { !isDigit($0) } ?? bytes.count
        result.replaceSubrange(start..<end, with: number)
        log.append("number@\(start)")
        return result
    }
}
