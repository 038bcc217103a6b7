import Foundation
import GRDB

/// A real store to mutate: its files' bytes (store and sidecars) and its tables, read once from
/// a private copy (a fixture is never opened in place).
public struct StoreSeed: Sendable {
    /// A name for logs: the store's file name.
    public var name: String
    /// The file's bytes by suffix: `""` for the store, `"-wal"`, `"-shm"`.
    public var files: [String: [UInt8]]
    /// Every table but SQLite's own, with its columns.
    public var tables: [String: [String]]
    /// A `-wal` of this store that holds one committed write, made while reading the seed (WAL
    /// stores only): the source of truncated and foreign `-wal` files.
    public var wal: [UInt8]?
    /// `Z_METADATA.Z_PLIST` as the seed holds it.
    public var plist: [UInt8]?

    /// Reads `store` (with its sidecars) through a copy in `scratch`.
    public init(copying store: URL, scratch: URL) throws {
        name = store.lastPathComponent
        let folder = scratch.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = try Fixtures.copyStore(store, into: folder)
        files = [:]
        for suffix in ["", "-wal", "-shm"] {
            if let data = FileManager.default.contents(atPath: store.path + suffix) { files[suffix] = Array(data) }
        }
        let queue = try DatabaseQueue(path: copy.path, configuration: StoreSeed.configuration)
        tables = try queue.read { db in
            var tables: [String: [String]] = [:]
            for table in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            {
                tables[table] = try String.fetchAll(
                    db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
            }
            return tables
        }
        plist = try queue.read { db in try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA").map(Array.init) }
        // One write kept in the -wal (copied before the connection checkpoints it away on close).
        wal = try queue.writeWithoutTransaction { db -> [UInt8]? in
            guard try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" else { return nil }
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX")
            return FileManager.default.contents(atPath: copy.path + "-wal").map(Array.init)
        }
        try queue.close()
    }

    /// A plain connection that can write a Core Data store: the two functions its
    /// derived-attribute triggers call exist (and do nothing).
    static var configuration: Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            for name in [
                "NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
            ] {
                db.add(function: DatabaseFunction(name, argumentCount: 5, pure: false) { _ in nil })
            }
        }
        return configuration
    }

    /// The seed's files written into `directory`; returns the store's path.
    func write(into directory: URL) throws -> URL {
        let store = directory.appendingPathComponent(name)
        for (suffix, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: store.path + suffix)) }
        return store
    }
}

/// Values of every storage class and edge: what a damaged store or a hostile file can hold in
/// any column.
private let hostileValues: [(String, DatabaseValue)] = [
    ("text", "abc".databaseValue), ("digits", "12".databaseValue), ("empty text", "".databaseValue),
    ("blob", Data([0, 0xFF, 0x10]).databaseValue), ("empty blob", Data().databaseValue), ("NULL", .null),
    ("1.5", 1.5.databaseValue), ("inf", Double.infinity.databaseValue), ("-inf", (-Double.infinity).databaseValue),
    ("1e308", 1e308.databaseValue), ("Int64.min", Int64.min.databaseValue), ("Int64.max", Int64.max.databaseValue),
    ("-1", (-1).databaseValue), ("0", 0.databaseValue), ("2^62+1", ((Int64(1) << 62) + 1).databaseValue),
]

extension Mutator {
    /// Writes a mutant of `seed` into the empty `directory` and returns the store's path: one to
    /// three changes through SQL (the metadata plist, `Z_PRIMARYKEY`, `Z_MODELCACHE`, values of
    /// the wrong storage class in entity tables, missing rows or tables), then sometimes damage
    /// to the file itself (the 100-byte header, pages in the middle, its length) and to its
    /// sidecars (a `-wal` from `other`, a truncated `-wal`, garbage `-shm` and `-journal`).
    public mutating func mutateStore(_ seed: StoreSeed, other: StoreSeed, into directory: URL) throws -> URL {
        let store = try seed.write(into: directory)
        if chance(0.75) {
            let queue = try DatabaseQueue(path: store.path, configuration: StoreSeed.configuration)
            for _ in 0..<int(1..<4) {
                let (description, sql, arguments) = sqlMutation(seed)
                do {
                    try queue.writeWithoutTransaction { try $0.execute(sql: sql, arguments: arguments) }
                    log.append(description)
                } catch {
                    log.append(description + " (refused by SQLite)")
                }
            }
            try queue.close()
        }
        if log.isEmpty || chance(0.4) { try damageFile(store) }
        if chance(0.3) { try damageSidecars(store, seed: seed, other: other) }
        return store
    }

    private mutating func sqlMutation(_ seed: StoreSeed) -> (String, String, StatementArguments) {
        let (valueName, value) = pick(hostileValues)
        switch int(0..<100) {
        case 0..<18:
            let plist = metadataPlist(seed)
            return ("Z_PLIST = \(plist.0)", "UPDATE Z_METADATA SET Z_PLIST = ?", [plist.1])
        case 18..<22:
            return ("Z_UUID = \(valueName)", "UPDATE Z_METADATA SET Z_UUID = ?", [value])
        case 22..<24:
            return chance(0.5)
                ? ("no Z_METADATA rows", "DELETE FROM Z_METADATA", [])
                : (
                    "a second Z_METADATA row",
                    "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (2, 'x', x'00')", []
                )
        case 24..<44:
            return primaryKeyMutation(value: (valueName, value))
        case 44..<52:
            return modelCacheMutation(seed, value: (valueName, value))
        default:
            return entityTableMutation(seed, value: (valueName, value))
        }
    }

    /// A new `Z_PLIST`: another storage class, empty, damaged bytes or a damaged plist.
    private mutating func metadataPlist(_ seed: StoreSeed) -> (String, DatabaseValue) {
        switch int(0..<6) {
        case 0: return ("an integer", 42.databaseValue)
        case 1: return ("text", "bplist00".databaseValue)
        case 2: return ("NULL", .null)
        case 3: return ("an empty blob", Data().databaseValue)
        default:
            guard let plist = seed.plist else { return ("an integer", 7.databaseValue) }
            return ("a damaged plist", Data(mutatePlist(plist, other: plist)).databaseValue)
        }
    }

    private mutating func primaryKeyMutation(value: (String, DatabaseValue)) -> (String, String, StatementArguments) {
        let row = "Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY ORDER BY Z_ENT LIMIT 1 OFFSET \(int(0..<4)))"
        switch int(0..<9) {
        case 0, 1, 2: return ("Z_MAX = \(value.0)", "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE \(row)", [value.1])
        case 3: return ("Z_NAME = \(value.0)", "UPDATE Z_PRIMARYKEY SET Z_NAME = ? WHERE \(row)", [value.1])
        case 4:
            return (
                "duplicate Z_NAME",
                "UPDATE Z_PRIMARYKEY SET Z_NAME = (SELECT Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT DESC LIMIT 1) WHERE \(row)",
                []
            )
        case 5: return ("Z_SUPER = \(value.0)", "UPDATE Z_PRIMARYKEY SET Z_SUPER = ? WHERE \(row)", [value.1])
        case 6: return ("Z_SUPER = own Z_ENT", "UPDATE Z_PRIMARYKEY SET Z_SUPER = Z_ENT WHERE \(row)", [])
        case 7: return ("Z_ENT = \(value.0)", "UPDATE Z_PRIMARYKEY SET Z_ENT = ? WHERE \(row)", [value.1])
        default: return ("a Z_PRIMARYKEY row missing", "DELETE FROM Z_PRIMARYKEY WHERE \(row)", [])
        }
    }

    private mutating func modelCacheMutation(_ seed: StoreSeed, value: (String, DatabaseValue)) -> (
        String, String, StatementArguments
    ) {
        guard seed.tables["Z_MODELCACHE"] != nil else { return primaryKeyMutation(value: value) }
        switch int(0..<5) {
        case 0: return ("no Z_MODELCACHE row", "DELETE FROM Z_MODELCACHE", [])
        case 1: return ("no Z_MODELCACHE table", "DROP TABLE Z_MODELCACHE", [])
        case 2:
            return (
                "Z_CONTENT cut in half",
                "UPDATE Z_MODELCACHE SET Z_CONTENT = substr(Z_CONTENT, 1, length(Z_CONTENT) / 2)", []
            )
        default: return ("Z_CONTENT = \(value.0)", "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", [value.1])
        }
    }

    /// A value of the wrong storage class in some rows of one column of an entity (or join)
    /// table; sometimes rows, a column or the table go missing.
    private mutating func entityTableMutation(_ seed: StoreSeed, value: (String, DatabaseValue)) -> (
        String, String, StatementArguments
    ) {
        let candidates = seed.tables.filter {
            !["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains($0.key) && $0.key.hasPrefix("Z")
        }
        .sorted { $0.key < $1.key }
        guard !candidates.isEmpty else { return primaryKeyMutation(value: value) }
        let (table, columns) = pick(candidates)
        let quoted = "\"\(table)\""
        let modulus = pick([1, 2, 3, 7]), remainder = int(0..<modulus)
        let rows = "abs(rowid) % \(modulus) = \(remainder)"
        switch int(0..<20) {
        case 0: return ("rows of \(table) missing", "DELETE FROM \(quoted) WHERE \(rows)", [])
        case 1 where columns.count > 1:
            let column = pick(columns)
            return ("\(table).\(column) dropped", "ALTER TABLE \(quoted) DROP COLUMN \"\(column)\"", [])
        case 2: return ("table \(table) dropped", "DROP TABLE \(quoted)", [])
        default:
            // Core Data's own columns come first and matter most: pick one of them half the time.
            let column = chance(0.5) ? pick(Array(columns.prefix(3))) : pick(columns)
            return (
                "\(table).\(column) = \(value.0) where rowid % \(modulus) = \(remainder)",
                "UPDATE \(quoted) SET \"\(column)\" = ? WHERE \(rows)", [value.1]
            )
        }
    }
}
