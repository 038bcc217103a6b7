import Foundation

/// A property-list value as the fuzzer sees it, UIDs included.
///
/// Foundation on Linux cannot build keyed-archive UIDs from Swift, so the fuzzer reads real
/// archives into this tree, damages them (bogus UIDs, cycles, huge integers, deep nesting) and
/// writes them back with ``BinaryPlist/encode(_:)``.
public indirect enum PlistNode: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case real(Double)
    case date(Double)
    case data([UInt8])
    case string(String)
    case uid(UInt64)
    case array([PlistNode])
    /// Keys and values, pairwise.
    case dict([PlistNode], [PlistNode])
    /// `depth` arrays, each holding the next, around `node`: deep nesting without deep recursion.
    case nested(depth: Int, PlistNode)
}

/// A minimal `bplist00` reader and writer: enough to round-trip the archives in the fixtures and
/// to write the hostile variants the mutator makes.
public enum BinaryPlist {
    /// Reads a binary plist; `nil` when `bytes` is not one this reader understands (only the
    /// fixtures' seeds are read with it, never a mutant).
    public static func decode(_ bytes: [UInt8]) -> PlistNode? {
        guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else { return nil }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6]), refSize = Int(bytes[trailer + 7])
        guard let count = number(bytes, trailer + 8, 8), let top = number(bytes, trailer + 16, 8),
            let table = number(bytes, trailer + 24, 8), [1, 2, 4, 8].contains(offsetSize),
            [1, 2, 4, 8].contains(refSize)
        else { return nil }

        func object(_ index: Int, depth: Int) -> PlistNode? {
            guard depth < 512, index < count, var p = number(bytes, table + index * offsetSize, offsetSize),
                p < bytes.count
            else { return nil }
            let marker = bytes[p]
            p += 1
            let low = Int(marker & 0xF)
            func length() -> Int? {
                guard low == 0xF else { return low }
                guard p < bytes.count else { return nil }
                let size = 1 << Int(bytes[p] & 0xF)
                defer { p += 1 + size }
                return number(bytes, p + 1, size)
            }
            func refs(_ n: Int, from start: Int) -> [PlistNode]? {
                var items: [PlistNode] = []
                for k in 0..<n {
                    guard let ref = number(bytes, start + k * refSize, refSize),
                        let item = object(ref, depth: depth + 1)
                    else { return nil }
                    items.append(item)
                }
                return items
            }
            switch marker >> 4 {
            case 0x0: return low == 8 ? .bool(false) : low == 9 ? .bool(true) : .null
            case 0x1:
                let size = 1 << low
                guard let raw = unsigned(bytes, p + max(0, size - 8), min(size, 8)) else { return nil }
                return .int(Int64(bitPattern: raw))
            case 0x2:
                guard let raw = unsigned(bytes, p, 1 << low) else { return nil }
                return .real(low == 2 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw))
            case 0x3:
                guard let raw = unsigned(bytes, p, 8) else { return nil }
                return .date(Double(bitPattern: raw))
            case 0x4:
                guard let n = length(), p + n <= bytes.count else { return nil }
                return .data(Array(bytes[p..<p + n]))
            case 0x5:
                guard let n = length(), p + n <= bytes.count else { return nil }
                return .string(String(decoding: bytes[p..<p + n], as: UTF8.self))
            case 0x6:
                guard let n = length(), p + 2 * n <= bytes.count else { return nil }
                let units = (0..<n).map { UInt16(bytes[p + 2 * $0]) << 8 | UInt16(bytes[p + 2 * $0 + 1]) }
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                return unsigned(bytes, p, low + 1).map { .uid($0) }
            case 0xA, 0xC:
                guard let n = length(), let items = refs(n, from: p) else { return nil }
                return .array(items)
            case 0xD:
                guard let n = length(), let keys = refs(n, from: p), let values = refs(n, from: p + n * refSize) else {
                    return nil
                }
                return .dict(keys, values)
            default: return nil
            }
        }
        return object(top, depth: 0)
    }

    /// Writes `root` as `bplist00`, every node its own object (no uniquing).
    public static func encode(_ root: PlistNode) -> [UInt8] {
        enum Flat { case scalar(PlistNode), array([Int]), dict([Int], [Int]) }
        var flat: [Flat] = []
        func add(_ node: PlistNode) -> Int {
            let index = flat.count
            switch node {
            case .array(let items):
                flat.append(.array([]))
                flat[index] = .array(items.map(add))
            case .dict(let keys, let values):
                flat.append(.dict([], []))
                let keyRefs = keys.map(add)
                flat[index] = .dict(keyRefs, values.map(add))
            case .nested(let depth, let inner):
                for level in 0..<depth { flat.append(.array([index + level + 1])) }
                _ = add(inner)
            default:
                flat.append(.scalar(node))
            }
            return index
        }
        _ = add(root)
        let refSize = flat.count < 256 ? 1 : flat.count < 65536 ? 2 : 4
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        func header(_ marker: UInt8, _ count: Int) {
            if count < 15 { out.append(marker | UInt8(count)) } else { out.append(marker | 0xF); integer(Int64(count)) }
        }
        func integer(_ value: Int64) {
            let size = value < 0 ? 8 : value < 1 << 8 ? 1 : value < 1 << 16 ? 2 : value < 1 << 32 ? 4 : 8
            out.append(0x10 | UInt8(size.trailingZeroBitCount))
            append(UInt64(bitPattern: value), size)
        }
        func append(_ value: UInt64, _ size: Int) {
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
        for object in flat {
            offsets.append(out.count)
            switch object {
            case .array(let refs):
                header(0xA0, refs.count)
                for ref in refs { append(UInt64(ref), refSize) }
            case .dict(let keys, let values):
                header(0xD0, keys.count)
                for ref in keys + values { append(UInt64(ref), refSize) }
            case .scalar(let node):
                switch node {
                case .null: out.append(0x00)
                case .bool(let flag): out.append(flag ? 0x09 : 0x08)
                case .int(let value): integer(value)
                case .real(let value): out.append(0x23); append(value.bitPattern, 8)
                case .date(let value): out.append(0x33); append(value.bitPattern, 8)
                case .data(let bytes): header(0x40, bytes.count); out += bytes
                case .string(let text) where text.utf8.allSatisfy({ $0 < 0x80 }):
                    header(0x50, text.utf8.count); out += text.utf8
                case .string(let text):
                    let units = Array(text.utf16)
                    header(0x60, units.count)
                    for unit in units { append(UInt64(unit), 2) }
                case .uid(let value):
                    let size = value < 1 << 8 ? 1 : value < 1 << 16 ? 2 : value < 1 << 32 ? 4 : 8
                    out.append(0x80 | UInt8(size - 1))
                    append(value, size)
                default: out.append(0x00)
                }
            }
        }
        let table = out.count
        for offset in offsets { append(UInt64(offset), 8) }
        out += [0, 0, 0, 0, 0, 0, 8, UInt8(refSize)]
        append(UInt64(flat.count), 8)
        append(0, 8)
        append(UInt64(table), 8)
        return out
    }

    private static func unsigned(_ bytes: [UInt8], _ at: Int, _ size: Int) -> UInt64? {
        guard at >= 0, size <= 8, at + size <= bytes.count else { return nil }
        return bytes[at..<at + size].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func number(_ bytes: [UInt8], _ at: Int, _ size: Int) -> Int? {
        unsigned(bytes, at, size).flatMap { $0 <= UInt64(Int.max) ? Int($0) : nil }
    }
}
