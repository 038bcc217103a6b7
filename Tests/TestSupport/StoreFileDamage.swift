import Foundation

/// Damage below SQL, for ``Mutator/mutateStore(_:other:into:)``: the bytes of a store file and
/// the sidecars SQLite reads beside it.
extension Mutator {
    /// Page sizes worth lying about: 0, 1 (SQLite's code for 65536), not a power of two, too big.
    static let pageSizes: [UInt16] = [0, 1, 256, 512, 1000, 4096, 8192, 32768, 65535]

    /// Changes the 100-byte header (page size, file format bytes 18/19, page count with or
    /// without a matching version-valid-for number, any byte), a page in the middle (bytes,
    /// zeroed, another page copied over it) or the file's length.
    mutating func damageFile(_ store: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: store))
        guard bytes.count >= 100 else { return }
        let raw = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = raw == 1 ? 65536 : max(512, raw)
        let pages = max(1, bytes.count / pageSize)
        func put(_ value: UInt32, at offset: Int) {
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(index))) }
        }
        switch int(0..<9) {
        case 0:
            let size = pick(Self.pageSizes)
            bytes[16] = UInt8(size >> 8)
            bytes[17] = UInt8(size & 0xFF)
            log.append("header page size \(size)")
        case 1:
            let at = pick([18, 19]), value = pick([0, 1, 2, 3, 0xFF] as [UInt8])
            bytes[at] = value
            log.append("header byte \(at) = \(value)")
        case 2:
            let count = pick([0, 1, UInt32(pages - 1), UInt32(pages + 1), UInt32(pages * 100), UInt32.max])
            put(count, at: 28)
            // Make the count count: SQLite trusts it when the change counter matches byte 92's.
            if chance(0.7) { bytes.replaceSubrange(92..<96, with: bytes[24..<28]) }
            log.append("header page count \(count)")
        case 3:
            let at = int(0..<100)
            bytes[at] ^= UInt8(1 << int(0..<8))
            log.append("header flip@\(at)")
        case 4, 5:
            let page = int(0..<pages), count = pick([1, 4, 16])
            for _ in 0..<count where page * pageSize < bytes.count {
                let at = min(bytes.count - 1, page * pageSize + int(0..<pageSize))
                bytes[at] = UInt8.random(in: 0...255, using: &rng)
            }
            log.append("\(count) bytes of page \(page + 1)")
        case 6 where pages > 1:
            let page = int(1..<pages), range = page * pageSize..<min(bytes.count, (page + 1) * pageSize)
            if chance(0.5) {
                bytes.replaceSubrange(range, with: repeatElement(0, count: range.count))
                log.append("page \(page + 1) zeroed")
            } else {
                let from = int(0..<pages) * pageSize
                let source = Array(bytes[from..<min(bytes.count, from + range.count)])
                bytes.replaceSubrange(range.lowerBound..<range.lowerBound + source.count, with: source)
                log.append("page \(from / pageSize + 1) copied over page \(page + 1)")
            }
        case 7:
            let cut = chance(0.5) ? int(1..<pages + 1) * pageSize : int(100..<bytes.count + 1)
            bytes.removeSubrange(min(cut, bytes.count)...)
            log.append("truncated to \(bytes.count) bytes")
        default:
            bytes += (0..<int(1..<5000)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            log.append("garbage appended")
        }
        try Data(bytes).write(to: store)
    }

    /// Replaces or adds the store's sidecars: a `-wal` from another store or cut short, a
    /// `-shm` of garbage, a `-journal` of garbage (sometimes with a real journal's magic number).
    mutating func damageSidecars(_ store: URL, seed: StoreSeed, other: StoreSeed) throws {
        let path = store.path
        func garbage(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        switch int(0..<5) {
        case 0:
            let wal = other.wal ?? other.files["-wal"] ?? garbage(4096)
            try Data(wal).write(to: URL(fileURLWithPath: path + "-wal"))
            log.append(other.wal ?? other.files["-wal"] == nil ? "-wal of garbage" : "-wal of \(other.name)")
        case 1:
            let wal = seed.files["-wal"] ?? seed.wal ?? garbage(4096)
            let cut = int(0..<wal.count + 1)
            try Data(wal.prefix(cut)).write(to: URL(fileURLWithPath: path + "-wal"))
            log.append("-wal cut to \(cut) bytes")
        case 2:
            try Data(garbage(pick([8, 1024, 32768]))).write(to: URL(fileURLWithPath: path + "-shm"))
            log.append("-shm of garbage")
        case 3:
            // A rollback journal's header starts with this magic number; the rest is garbage.
            let magic: [UInt8] = chance(0.5) ? [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7] : []
            try Data(magic + garbage(pick([1, 28, 512, 4096]))).write(to: URL(fileURLWithPath: path + "-journal"))
            log.append("-journal of garbage\(magic.isEmpty ? "" : " after the journal magic")")
        default:
            try Data(garbage(pick([32, 4096]))).write(to: URL(fileURLWithPath: path + "-wal"))
            log.append("-wal of garbage")
        }
    }
}
