import Foundation

/// A small, fast, seedable random source (SplitMix64): the same seed gives the same store.
package struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    /// A source seeded with `seed`.
    package init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound`.
    package mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }

    /// True with probability `percent`/100.
    package mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// Realistic strings for generated rows, chosen by what an attribute's name suggests: people's
/// names (some without a space, as real data has), book titles, prose, units, colours, ids.
package enum SampleValues {
    static let firstNames = [
        "Ada", "Alan", "Grace", "Linus", "Margaret", "Donald", "Barbara", "Edsger", "Frances", "Ken",
        "Radia", "Tim", "Katherine", "Dennis", "Hedy", "John", "Jane", "Bill", "Jack", "Marie",
    ]
    static let lastNames = [
        "Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Knuth", "Liskov", "Dijkstra", "Allen",
        "Thompson", "Perlman", "Berners-Lee", "Johnson", "Ritchie", "Lamarr", "Doe", "Smith", "Brown", "Curie",
    ]
    static let mononyms = ["Plato", "Voltaire", "Molière", "Homer", "Banksy", "Zeno"]
    static let adjectives = [
        "Silent", "Quiet", "Last", "Hidden", "Burning", "Golden", "Broken", "Distant", "Secret", "Small",
    ]
    static let nouns = [
        "River", "Garden", "Castle", "Engine", "Winter", "Harbour", "Library", "Orchard", "Theorem", "Voyage",
    ]
    static let words = [
        "the", "a", "migration", "store", "model", "version", "entity", "page", "chapter", "book", "quietly",
        "moves", "keeps", "every", "row", "safe", "while", "schema", "changes", "under", "it",
    ]
    static let units = ["kg", "g", "l", "ml", "piece", "loaf", "dozen", "can", "bunch", "jar"]
    static let cuisines = ["Italian", "French", "Japanese", "Mexican", "Indian", "Thai", "Greek", "Ethiopian"]

    package static func person(_ random: inout SeededRandom) -> String {
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

    /// A string of `kind`; the row's `index` makes titles distinct.
    static func string(_ kind: TextKind, index: Int, _ random: inout SeededRandom) -> String {
        switch kind {
        case .firstName: return firstNames[random.below(firstNames.count)]
        case .lastName: return lastNames[random.below(lastNames.count)]
        case .person: return person(&random)
        case .title: return title(&random, index: index)
        case .longProse: return prose(&random, words: 8 + random.below(12))
        case .hexColour: return String(format: "%06X", random.below(0xFFFFFF))
        case .unit: return units[random.below(units.count)]
        case .cuisine: return cuisines[random.below(cuisines.count)]
        case .identifier: return UUID(uuid: uuid(&random)).uuidString
        case .shortProse: return prose(&random, words: 2 + random.below(3))
        }
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

/// What an attribute's name suggests its values look like, worked out once per attribute:
/// matching the name for every row was a tenth of generating a store.
struct SampleRule {
    /// What strings look like.
    let text: TextKind
    /// Whether integers are small counts (sizes, ranks, stars) rather than anything up to 30,000.
    let smallNumber: Bool
    /// Whether doubles are temperatures in kelvin.
    let temperature: Bool
    /// Whether no two rows may share a value (a uniqueness constraint names the attribute).
    var unique = false

    init(attributeName name: String, unique: Bool = false) {
        self.unique = unique
        let key = name.lowercased()
        text = TextKind(key: key)
        smallNumber = ["size", "index", "number", "count", "quantity", "page", "rank", "stars"].contains {
            key.contains($0)
        }
        temperature = key.contains("temperature")
    }
}

/// The kinds of generated string, by the first rule an attribute's lower-cased name matches.
enum TextKind {
    case firstName, lastName, person, title, longProse, hexColour, unit, cuisine, identifier, shortProse

    init(key: String) {
        let prose = ["text", "body", "content", "direction", "synopsis", "comment"]
        if key.contains("first") {
            self = .firstName
        } else if key.contains("last") {
            self = .lastName
        } else if key.contains("author") || key.contains("chef") {
            self = .person
        } else if key.contains("title") {
            self = .title
        } else if key == "name" || key.hasSuffix("name") {
            self = .person
        } else if prose.contains(where: { key.contains($0) }) {
            self = .longProse
        } else if key.contains("hex") || key.contains("color") {
            self = .hexColour
        } else if key == "xyz" || key.contains("unit") {
            self = .unit
        } else if key.contains("cuisine") {
            self = .cuisine
        } else if key.hasSuffix("id") {
            self = .identifier
        } else {
            self = .shortProse
        }
    }
}
