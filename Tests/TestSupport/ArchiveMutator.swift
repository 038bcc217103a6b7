import Foundation

/// Keyed-archive and binary-plist mutations: what a byte flipper almost never produces but a
/// hostile file easily can: UIDs pointing nowhere or back at their own object (cycles), many
/// references to one object (a DAG that unfolds exponentially), huge or negative integers where
/// a type code or count is expected, deep nesting, and a plist trailer with lying sizes.
extension Mutator {
    /// One to three structural mutations of the keyed archive `input`, then sometimes damage to
    /// the binary plist itself; falls back to byte mutations when `input` is not a keyed archive.
    public mutating func mutateArchive(_ input: [UInt8], other: [UInt8]) -> [UInt8] {
        guard let tree = BinaryPlist.decode(input) else { return mutate(input, other: other) }
        return mutateArchive(tree, other: BinaryPlist.decode(other), bytes: input, otherBytes: other)
    }

    /// ``mutateArchive(_:other:)`` on archives already decoded (decoding large archives for
    /// every mutant would cost more than reading them); `bytes` are `tree` as read.
    public mutating func mutateArchive(_ tree: PlistNode, other: PlistNode?, bytes: [UInt8], otherBytes: [UInt8])
        -> [UInt8]
    {
        guard case .dict(let keys, var values) = tree,
            let slot = keys.firstIndex(where: { if case .string("$objects") = $0 { true } else { false } }),
            case .array(var objects) = values[slot], !objects.isEmpty
        else {
            return mutatePlist(tree, other: other, bytes: bytes, otherBytes: otherBytes)
        }
        var others: [PlistNode] = []
        if case .dict(let otherKeys, let otherValues)? = other,
            let otherSlot = otherKeys.firstIndex(where: { if case .string("$objects") = $0 { true } else { false } }),
            case .array(let list) = otherValues[otherSlot]
        {
            others = list
        }
        for _ in 0..<int(1..<4) { mutateObjects(&objects, others: others) }
        values[slot] = .array(objects)
        if chance(0.1), let top = keys.firstIndex(where: { if case .string("$top") = $0 { true } else { false } }) {
            values[top] = .dict([.string("root")], [.uid(pick([0, 1, UInt64(objects.count), UInt64.max >> 1]))])
            log.append("top")
        }
        var result = BinaryPlist.encode(.dict(keys, values))
        if chance(0.2) { result = damagePlist(result) }
        if chance(0.1) { result = mutate(result, other: otherBytes) }
        return result
    }

    /// One to three mutations of any node of the binary plist `input` (huge or negative
    /// integers, wrong types, deep nesting, dropped keys), then sometimes container damage.
    public mutating func mutatePlist(_ input: [UInt8], other: [UInt8]) -> [UInt8] {
        guard let tree = BinaryPlist.decode(input) else { return mutate(input, other: other) }
        return mutatePlist(tree, other: BinaryPlist.decode(other), bytes: input, otherBytes: other)
    }

    /// ``mutatePlist(_:other:)`` on plists already decoded; `bytes` are `tree` as read.
    public mutating func mutatePlist(_ tree: PlistNode, other: PlistNode?, bytes: [UInt8], otherBytes: [UInt8])
        -> [UInt8]
    {
        var root = tree
        for _ in 0..<int(1..<4) {
            var objects = [root]
            mutateObjects(&objects, others: other.map { [$0] } ?? [])
            root = objects.first ?? root
        }
        var result = BinaryPlist.encode(root)
        if chance(0.2) { result = damagePlist(result) }
        if chance(0.1) { result = mutate(result, other: otherBytes) }
        return result
    }

    private mutating func mutateObjects(_ objects: inout [PlistNode], others: [PlistNode]) {
        let count = UInt64(objects.count)
        let i = int(0..<objects.count)
        switch int(0..<11) {
        case 0:
            let target = pick([
                0, 1, count - 1, count, count + 1, UInt64(UInt32.max), UInt64.max >> 1, UInt64(i),
                UInt64(int(0..<objects.count)),
            ])
            objects[i] = replacing(objects[i], where: isUID, with: { _ in .uid(target) })
            log.append("uid[\(i)]=\(target)")
        case 1:
            // Every reference in one collection to one object (often the collection's owner).
            let target = chance(0.5) ? UInt64(i) : UInt64(int(0..<objects.count))
            let times = pick([1, 2, 8, 64])
            objects[i] = replacing(
                objects[i],
                where: { if case .array(let items) = $0 { !items.isEmpty && items.allSatisfy(isUID) } else { false } },
                with: { node in
                    guard case .array(let items) = node else { return node }
                    return .array(Array(repeating: PlistNode.uid(target), count: items.count * times))
                })
            log.append("refs[\(i)]->\(target)x\(times)")
        case 2:
            let value = pick([Int64.max, Int64.min, -1, 0, 1, 2, 3, 4, 10, 1 << 31, 1 << 32, Int64(int(0..<20))])
            objects[i] = replacing(
                objects[i], where: { if case .int = $0 { true } else { false } }, with: { _ in .int(value) })
            log.append("int[\(i)]=\(value)")
        case 3:
            let text = pick([
                "", "$null", String(repeating: "A", count: 100_000), "NSManagedObjectModel", "NSEntityDescription",
                "_NSPredicateUtilities", "system:", "valueForKey:", "\u{0}", "é\u{301}",
            ])
            objects[i] = replacing(
                objects[i], where: { if case .string = $0 { true } else { false } }, with: { _ in .string(text) })
            log.append("string[\(i)]")
        case 4:
            if case .dict(var keys, var values) = objects[i], !keys.isEmpty {
                let k = int(0..<keys.count)
                keys.remove(at: k)
                values.remove(at: k)
                objects[i] = .dict(keys, values)
                log.append("dropKey[\(i)]")
            }
        case 5:
            // Type confusion: a value of the wrong kind where another was expected.
            let replacement = others.isEmpty || chance(0.5) ? objects[int(0..<objects.count)] : pick(others)
            objects[i] = replacing(objects[i], where: { _ in true }, skipRoot: true, with: { _ in replacement })
            log.append("confuse[\(i)]")
        case 6:
            let keep = int(1..<objects.count + 1)
            objects.removeSubrange(keep...)
            log.append("truncateObjects\(keep)")
        case 7:
            let depth = pick(Self.repeatCounts)
            objects[i] =
                chance(0.5)
                ? .nested(depth: depth, objects[i])
                : replacing(objects[i], where: { _ in true }, skipRoot: true, with: { .nested(depth: depth, $0) })
            log.append("nest[\(i)]x\(depth)")
        case 8:
            let extra = (0..<int(1..<objects.count + 1)).map { _ in objects[int(0..<objects.count)] }
            objects += extra
            log.append("grow+\(extra.count)")
        case 9:
            let j = int(0..<objects.count)
            objects.swapAt(i, j)
            log.append("swap\(i),\(j)")
        default:
            if !others.isEmpty {
                objects[i] = pick(others)
                log.append("spliceObject[\(i)]")
            }
        }
    }

    /// `node` with one randomly chosen node matching `match` transformed (or `node` itself
    /// when nothing matches).
    private mutating func replacing(
        _ node: PlistNode, where match: (PlistNode) -> Bool, skipRoot: Bool = false,
        with transform: (PlistNode) -> PlistNode
    ) -> PlistNode {
        var total = 0
        Self.visit(node, isRoot: true) { candidate, isRoot in
            if match(candidate) && !(skipRoot && isRoot) { total += 1 }
        }
        guard total > 0 else { return node }
        var remaining = int(0..<total)
        func rebuild(_ current: PlistNode, isRoot: Bool) -> PlistNode {
            if match(current) && !(skipRoot && isRoot) {
                if remaining == 0 { remaining = -1; return transform(current) }
                remaining -= 1
            }
            switch current {
            case .array(let items): return .array(items.map { rebuild($0, isRoot: false) })
            case .dict(let keys, let values): return .dict(keys, values.map { rebuild($0, isRoot: false) })
            default: return current
            }
        }
        return rebuild(node, isRoot: true)
    }

    private static func visit(_ node: PlistNode, isRoot: Bool, _ body: (PlistNode, Bool) -> Void) {
        body(node, isRoot)
        switch node {
        case .array(let items): for item in items { visit(item, isRoot: false, body) }
        case .dict(_, let values): for value in values { visit(value, isRoot: false, body) }
        default: break
        }
    }

    /// Damages the binary plist container: trailer sizes and counts, offset-table entries (which
    /// can make an object its own element) and an object's length header.
    public mutating func damagePlist(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        guard bytes.count >= 40 else { return bytes }
        let trailer = bytes.count - 32
        func put(_ value: UInt64, at offset: Int, size: Int) {
            for k in 0..<size where offset + k < bytes.count {
                bytes[offset + k] = UInt8(truncatingIfNeeded: value >> UInt64(8 * (size - 1 - k)))
            }
        }
        let field = int(0..<6)
        switch field {
        case 0, 1:
            bytes[trailer + 6 + field] = pick([0, 1, 2, 3, 4, 5, 8, 16, 255])
        case 2, 3, 4:
            put(
                pick([0, 1, UInt64.max, UInt64(Int64.max), 1 << 32, UInt64(int(0..<1000))]),
                at: trailer + 8 + 8 * (field - 2), size: 8)
        default:
            let offsetSize = Int(bytes[trailer + 6])
            var table = 0, count = 0
            for k in 0..<4 {
                count = count << 8 | Int(bytes[trailer + 12 + k]); table = table << 8 | Int(bytes[trailer + 28 + k])
            }
            guard (1...8).contains(offsetSize), count > 0, table + count * offsetSize <= trailer else { break }
            let entry = table + int(0..<count) * offsetSize
            if chance(0.5) {
                put(pick([0, 7, UInt64(table), UInt64.max, UInt64(bytes.count)]), at: entry, size: offsetSize)
            } else {
                var offset = 0
                for k in 0..<offsetSize { offset = offset << 8 | Int(bytes[entry + k]) }
                guard offset + 10 < trailer else { break }
                // A length header claiming far more than the file holds.
                bytes[offset] |= 0x0F
                bytes.replaceSubrange(
                    offset + 1..<offset + 10, with: [0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
            }
        }
        log.append("plist\(field)")
        return bytes
    }
}

private func isUID(_ node: PlistNode) -> Bool { if case .uid = node { true } else { false } }
