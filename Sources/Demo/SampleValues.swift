import Foundation

/// A small, fast, seedable random source (SplitMix64): the same seed gives the same store.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    /// A source seeded with `seed`.
    public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound`.
    public mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }

    /// True with probability `percent`/100.
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// Realistic strings for generated rows, chosen by what an attribute's name suggests: people's
/// names (some without a space, as real data has), book titles, prose, units, colours, ids.
enum SampleValues {
    static let firstNames = ["Ada", "Alan", "Grace", "Linus", "Margaret", "Donald", "Barbara", "Edsger", "Frances", "Ken",
                             "Radia", "Tim", "Katherine", "Dennis", "Hedy", "John", "Jane", "Bill", "Jack", "Marie"]
    static let lastNames = ["Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Knuth", "Liskov", "Dijkstra", "Allen",
                            "Thompson", "Perlman", "Berners-Lee", "Johnson", "Ritchie", "Lamarr", "Doe", "Smith", "Brown", "Curie"]
    static let mononyms = ["Plato", "Voltaire", "Molière", "Homer", "Banksy", "Zeno"]
    static let adjectives = ["Silent", "Quiet", "Last", "Hidden", "Burning", "Golden", "Broken", "Distant", "Secret", "Small"]
    static let nouns = ["River", "Garden", "Castle", "Engine", "Winter", "Harbour", "Library", "Orchard", "Theorem", "Voyage"]
    static let words = ["the", "a", "migration", "store", "model", "version", "entity", "page", "chapter", "book", "quietly",
                        "moves", "keeps", "every", "row", "safe", "while", "schema", "changes", "under", "it"]
    static let units = ["kg", "g", "l", "ml", "piece", "loaf", "dozen", "can", "bunch", "jar"]
    static let cuisines = ["Italian", "French", "Japanese", "Mexican", "Indian", "Thai", "Greek", "Ethiopian"]

    static func person(_ random: inout SeededRandom) -> String {
        if random.chance(5) { return mononyms[random.below(mononyms.count)] }
        return "\(firstNames[random.below(firstNames.count)]) \(lastNames[random.below(lastNames.count)])"
    }

    static func title(_ random: inout SeededRandom, index: Int) -> String {
        "The \(adjectives[random.below(adjectives.count)]) \(nouns[random.below(nouns.count)]) \(index)"
    }

    static func prose(_ random: inout SeededRandom, words count: Int) -> String {
        var text = (0..<count).map { _ in words[random.below(words.count)] }.joined(separator: " ")
        text = text.prefix(1).uppercased() + text.dropFirst() + "."
        return text
    }

    /// A string for an attribute called `name`.
    static func string(for name: String, index: Int, _ random: inout SeededRandom) -> String {
        let key = name.lowercased()
        if key.contains("first") { return firstNames[random.below(firstNames.count)] }
        if key.contains("last") { return lastNames[random.below(lastNames.count)] }
        if key.contains("author") || key.contains("chef") { return person(&random) }
        if key.contains("title") { return title(&random, index: index) }
        if key == "name" || key.hasSuffix("name") { return person(&random) }
        if key.contains("text") || key.contains("body") || key.contains("content") || key.contains("direction") || key.contains("synopsis") || key.contains("comment") {
            return prose(&random, words: 8 + random.below(12))
        }
        if key.contains("hex") || key.contains("color") { return String(format: "%06X", random.below(0xFFFFFF)) }
        if key == "xyz" || key.contains("unit") { return units[random.below(units.count)] }
        if key.contains("cuisine") { return cuisines[random.below(cuisines.count)] }
        if key.hasSuffix("id") { return UUID(uuid: uuid(&random)).uuidString }
        return prose(&random, words: 2 + random.below(3))
    }

    static func uuid(_ random: inout SeededRandom) -> uuid_t {
        let a = random.next(), b = random.next()
        return withUnsafeBytes(of: (a, b)) { bytes in
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: bytes) }
            return value
        }
    }
}
