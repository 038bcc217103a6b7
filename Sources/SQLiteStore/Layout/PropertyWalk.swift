import ObjectModel

/// The order in which Core Data's SQL model meets an entity's properties when it pairs many-to-many
/// relationships into join tables: the first of a pair it meets names the table.
///
/// That order is no order of names. Core Data keys each entity's SQL properties (`_ent`, `_pk`,
/// `_opt`, its attributes, then its relationships, each to-one preceded by its key column's key and,
/// when the destination has subentities, its entity column's key) in copies it keeps of two old
/// CoreFoundation dictionaries, and walks the second one's buckets in index order:
/// - a Mac OS X 10.5 dictionary (power-of-two buckets, CFString hash through a Jenkins scramble,
///   linear probing, growing by `3 << flsl(count / 3)`) orders the attributes, the relationships, and
///   then all the keys (``LeopardTable``);
/// - a Mac OS X 10.4 dictionary (prime bucket counts from a fixed table, CFString hash of at most the
///   first 8 and last 16 characters, linear probing, never growing) holds those keys, and its bucket
///   order is the walk (``tigerOrder(_:)``).
/// Both hash in 32 bits. The constants are CoreFoundation's own (Apple's open-source `CFDictionary.c`
/// of 10.4 and 10.5, `CFString.c`'s `__CFStrHashCharacters`); the walk is Core Data's SQL model's
/// (`NSSQLEntity`, read for behaviour). Evidence: it names all 755 join tables of the 84 real stores in
/// `../shared/fixtures/coredata` that have one, 162 of them self-referencing, as Core Data named them
/// (frameworks 640–1333). Wire's `UserClient` shows why names cannot decide: 2.3 → 2.4 adds three
/// attributes, the 28 keys become 31 and overflow the 41-bucket table into a 67-bucket one, and both
/// tables flip to the other name; 2.95 → 2.96 adds one attribute whose home bucket is
/// `trustedByClients`'s, which is pushed past the last bucket to the first, ahead of `trustedClients`.
enum PropertyWalk {
    /// The keys of every entity's SQL properties in walk order, with the relationship each
    /// relationship key stands for (declared on the entity or inherited).
    struct Entity {
        var keys: [String]
        /// Relationship keys → the entity declaring the relationship and the relationship.
        var relationships: [String: (declarer: EntityDescription, relationship: RelationshipDescription)]
    }

    /// Each entity of `model`, subentities included, with its keys in walk order. A subentity's keys
    /// start from its parent's, in the parent's order; `columnKey` gives a to-one's key column and
    /// entity column (`nil` when the destination has no subentities), as the store's table names them.
    static func entities(
        of model: ManagedObjectModel, columnKey: (EntityDescription, RelationshipDescription) -> (String, String?)
    ) -> [String: Entity] {
        var result: [String: Entity] = [:]
        func build(_ entity: EntityDescription, parent: (leopard: [String], entity: Entity)?) {
            var all = LeopardTable()
            var present: Set<String>
            var owners: [String: (declarer: EntityDescription, relationship: RelationshipDescription)]
            if let parent {
                for key in parent.leopard { all.insert(key) }
                present = Set(parent.leopard)
                owners = parent.entity.relationships
            } else {
                for key in ["_ent", "_pk", "_opt"] { all.insert(key) }
                present = ["_ent", "_pk", "_opt"]
                owners = [:]
            }
            // Transient properties take buckets in these two tables, but no key of their own.
            var attributes = LeopardTable(), relationships = LeopardTable()
            for attribute in entity.attributes { attributes.insert(attribute.name) }
            for relationship in entity.relationships { relationships.insert(relationship.name) }
            let attributesByName = Dictionary(entity.attributes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            let relationshipsByName = Dictionary(
                entity.relationships.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            for name in attributes.keys where attributesByName[name]?.isTransient == false && !present.contains(name) {
                all.insert(name)
                present.insert(name)
            }
            for name in relationships.keys {
                guard let relationship = relationshipsByName[name], !relationship.isTransient, !present.contains(name)
                else { continue }
                if !relationship.isToMany {
                    let (key, entityKey) = columnKey(entity, relationship)
                    all.insert("_" + key)
                    if let entityKey { all.insert("_" + entityKey) }
                }
                all.insert(name)
                present.insert(name)
                owners[name] = (entity, relationship)
            }
            let walked = Entity(keys: tigerOrder(all.keys), relationships: owners)
            result[entity.name] = walked
            for child in model.subentities(of: entity) { build(child, parent: (all.keys, walked)) }
        }
        for root in model.entities where root.parentName.flatMap(model.entity(named:)) == nil {
            build(root, parent: nil)
        }
        return result
    }

    // MARK: - The 10.4 dictionary

    /// 10.4's `__CFDictionaryCapacities` and `__CFDictionaryBuckets`: a dictionary created for `n`
    /// entries takes the buckets of the first capacity of at least `n`.
    private static let tigerCapacities = [4, 8, 17, 29, 47, 76, 123, 199, 322, 521, 843, 1364, 2207, 3571, 5778, 9349]
    private static let tigerBuckets = [5, 11, 23, 41, 67, 113, 199, 317, 521, 839, 1361, 2207, 3571, 5779, 9349, 15121]

    /// `keys`, inserted in order into a 10.4 dictionary created for their count, in bucket order.
    static func tigerOrder(_ keys: [String]) -> [String] {
        let count = keys.count
        let buckets =
            zip(tigerCapacities, tigerBuckets).first { $0.0 >= count }?.1 ?? (count * 2 + 1)
        var slots = [String?](repeating: nil, count: buckets)
        for key in keys {
            var slot = Int(tigerHash(key) % UInt32(buckets))
            while slots[slot] != nil { slot = (slot + 1) % buckets }
            slots[slot] = key
        }
        return slots.compactMap { $0 }
    }

    /// 10.4's CFString hash: every UTF-16 unit of a string of at most 23, else the first 8 and the
    /// last 16.
    static func tigerHash(_ key: String) -> UInt32 {
        let units = Array(key.utf16)
        let length = units.count
        var result = UInt32(truncatingIfNeeded: length)
        if length > 23 {
            for start in [0, 4, length - 16, length - 12, length - 8, length - 4] {
                result = fourUnits(result, units, start)
            }
        } else {
            var index = 0
            while index + 4 <= length {
                result = fourUnits(result, units, index)
                index += 4
            }
            while index < length {
                result = result &* 257 &+ UInt32(units[index])
                index += 1
            }
        }
        return result &+ (result << UInt32(length & 31))
    }

    // MARK: - The 10.5 dictionary

    /// A 10.5 dictionary of strings: keys in bucket order as it enumerates them.
    struct LeopardTable {
        private var slots: [String?] = []
        private var capacity = 3
        private var count = 0
        private var members: Set<String> = []

        /// Every key, in bucket order.
        var keys: [String] { slots.compactMap { $0 } }

        /// Adds `key` (once), growing as 10.5 grows: at `count == capacity` to a capacity of
        /// `3 << flsl(count / 3)` and `4 << flsl((capacity - 1) / 3)` buckets, old keys placed again
        /// in their bucket order.
        mutating func insert(_ key: String) {
            guard members.insert(key).inserted else { return }
            if slots.isEmpty || count == capacity {
                capacity = 3 << flsl(count / 3)
                let old = keys
                slots = [String?](repeating: nil, count: 4 << flsl((capacity - 1) / 3))
                for key in old { place(key) }
            }
            place(key)
            count += 1
        }

        private mutating func place(_ key: String) {
            let mask = slots.count - 1
            var slot = Int(PropertyWalk.scramble(PropertyWalk.leopardHash(key))) & mask
            while slots[slot] != nil { slot = (slot + 1) & mask }
            slots[slot] = key
        }

        /// The 1-based index of the highest set bit; 0 for 0.
        private func flsl(_ value: Int) -> Int { value == 0 ? 0 : Int.bitWidth - value.leadingZeroBitCount }
    }

    /// 10.5's CFString hash (`__CFStrHashCharacters`): every UTF-16 unit of a string of at most 96,
    /// else the first, middle and last 32.
    static func leopardHash(_ key: String) -> UInt32 {
        let all = Array(key.utf16)
        let length = all.count
        let units =
            length > 96
            ? Array(all[0..<32] + all[(length / 2 - 16)..<(length / 2 + 16)] + all[(length - 32)...]) : all
        var result = UInt32(truncatingIfNeeded: length)
        var index = 0
        while index + 4 <= units.count {
            result = fourUnits(result, units, index)
            index += 4
        }
        while index < units.count {
            result = result &* 257 &+ UInt32(units[index])
            index += 1
        }
        return result &+ (result << UInt32(length & 31))
    }

    /// 10.5's `__CFDictionaryScrambleHash`, its 32-bit branch: a Jenkins mix.
    static func scramble(_ hash: UInt32) -> UInt32 {
        var a: UInt32 = 0x4B61_6E65 &+ hash, b: UInt32 = 0x4B61_6E65, c: UInt32 = 1
        a = a &- b &- c
        a ^= c >> 13
        b = b &- c &- a
        b ^= a << 8
        c = c &- a &- b
        c ^= b >> 13
        a = a &- b &- c
        a ^= c >> 12
        b = b &- c &- a
        b ^= a << 16
        c = c &- a &- b
        c ^= b >> 5
        a = a &- b &- c
        a ^= c >> 3
        b = b &- c &- a
        b ^= a << 10
        c = c &- a &- b
        c ^= b >> 15
        return c
    }

    /// CFString's step over four UTF-16 units (`67503105` is 257⁴ − 256⁴).
    private static func fourUnits(_ result: UInt32, _ units: [UInt16], _ start: Int) -> UInt32 {
        result &* 67_503_105 &+ UInt32(units[start]) &* 16_974_593 &+ UInt32(units[start + 1]) &* 66049
            &+ UInt32(units[start + 2]) &* 257 &+ UInt32(units[start + 3])
    }
}
