/// Values looked up by a property name, once per row of a migration: a few names are scanned,
/// many are hashed.
///
/// An insert binds each value a policy gives by its name, once per value of every row. Hashing
/// a name costs more than comparing it with a few short names (a short string compares as two
/// machine words, a literal as its address), so a typical entity's names are scanned and only
/// an entity with more than `scanLimit` names is hashed (`chrysalis-bench --scenario
/// custom-policy` runs this path).
struct NameIndex<Value> {
    /// The names in order, and their values.
    let names: [String]
    private let values: [Value]
    /// Set for more names than are worth scanning.
    private let hashed: [String: Value]?

    /// Entities with up to this many names are scanned.
    static var scanLimit: Int { 16 }

    /// `pairs` by name; the first of a repeated name wins.
    init(_ pairs: [(String, Value)]) {
        var names: [String] = [], values: [Value] = [], seen: Set<String> = []
        for (name, value) in pairs where seen.insert(name).inserted {
            names.append(name)
            values.append(value)
        }
        (self.names, self.values) = (names, values)
        hashed = names.count > Self.scanLimit ? Dictionary(uniqueKeysWithValues: zip(names, values)) : nil
    }

    subscript(name: String) -> Value? {
        if let hashed { return hashed[name] }
        guard let index = names.firstIndex(of: name) else { return nil }
        return values[index]
    }
}
