import Foundation
internal import GRDB
import ObjectModel

/// Core Data's bookkeeping tables, read and written here and nowhere else: `Z_METADATA` (the
/// store's UUID and a plist with the model's hashes), `Z_PRIMARYKEY` (entity numbers and the last
/// key each hierarchy handed out), `Z_MODELCACHE` (the model the store was last saved with).
///
/// A new store gets them in ``initialize(_:numbering:metadata:)``; an object writer counts keys
/// on at save (``ObjectWriter/finish()``); a migration in place renumbers and re-records them
/// through its connection (``StoreConnection/renumberPrimaryKeys(for:carryingFrom:)``,
/// ``StoreConnection/recordModel(_:)``).
enum StoreBookkeeping {
    /// Fills the bookkeeping tables of a store just created: a `Z_PRIMARYKEY` row per entity,
    /// no key handed out yet, and `metadata` in `Z_METADATA`.
    static func initialize(_ db: Database, numbering: EntityNumbering, metadata: StoreMetadata) throws {
        for entry in numbering.entries { try insertPrimaryKey(db, entry, max: 0) }
        try db.execute(
            sql: "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
            arguments: [metadata.uuid, try metadata.encodedPlist()])
    }

    private static func insertPrimaryKey(_ db: Database, _ entry: EntityNumbering.Entry, max: Int64) throws {
        try db.execute(
            sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
            arguments: [entry.number, entry.name, entry.superNumber, max])
    }

    /// The store's metadata, every value checked; `path` names the store in errors.
    static func metadata(_ db: Database, path: String) throws -> StoreMetadata {
        guard
            let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
                ?? Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA")
        else {
            throw StoreError(
                .badMetadata, path: path, "Z_METADATA has no row",
                fix: "the metadata is missing; restore the store from a backup")
        }
        // Core Data writes a blob; text (an XML plist someone stored by hand) is read too.
        let plist: Data
        switch row.raw(1).storage {
        case .blob(let bytes) where !bytes.isEmpty: plist = bytes
        case .string(let text) where !text.isEmpty: plist = Data(text.utf8)
        default:
            throw CheckedColumn(path: path, table: "Z_METADATA", column: "Z_PLIST")
                .wrongKind(row.raw(1), expected: "the store's metadata (a binary property list)")
        }
        let uuid = try CheckedColumn(path: path, table: "Z_METADATA", column: "Z_UUID").text(row.raw(0))
        return try StoreMetadata.decode(plist: plist, uuid: uuid ?? "", path: path)
    }

    /// Replaces the metadata plist; with `uuid`, the store's UUID too.
    static func writeMetadata(_ db: Database, _ metadata: StoreMetadata, uuid: Bool) throws {
        let plist = try metadata.encodedPlist()
        if uuid {
            try db.execute(
                sql: "UPDATE Z_METADATA SET Z_UUID = ?, Z_PLIST = ? WHERE Z_VERSION = 1",
                arguments: [metadata.uuid, plist])
        } else {
            try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", arguments: [plist])
        }
    }

    /// `Z_PRIMARYKEY` for `layout`'s numbering: a row per entity; a root's `Z_MAX` is the highest
    /// key its table holds, or the one recorded for the entity it comes from (`origins`, by
    /// name) when that is higher, so keys keep counting from where they were. Core Data's own
    /// rows (numbered from 16000) stay.
    static func renumberPrimaryKeys(
        _ db: Database, for layout: StoreLayout, carryingFrom origins: [String: String], path: String
    ) throws {
        let recorded = Dictionary(
            try PrimaryKeyTable.read(db, path: path).rows.map { ($0.name, $0.max) }, uniquingKeysWith: max)
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
        for entry in layout.numbering.entries {
            var maximum: Int64 = 0
            if entry.superNumber == 0, let table = layout.table(for: entry.name) {
                let highest =
                    try DatabaseValue.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(SQLIdentifier.quote(table.name))")
                    ?? .null
                maximum =
                    try CheckedColumn(path: path, table: table.name, column: "Z_PK").integer(
                        highest, row: "its highest") ?? 0
                if let origin = origins[entry.name] { maximum = max(maximum, recorded[origin] ?? 0) }
            }
            try insertPrimaryKey(db, entry, max: maximum)
        }
    }
}

extension StoreConnection {
    /// The store's metadata, read inside this connection's transaction (what a step checks again
    /// once it holds the write lock).
    package func metadata() throws -> StoreMetadata {
        try converting { try StoreBookkeeping.metadata(db, path: path) }
    }

    /// Records `metadata` (the destination model's hashes) as the store's, keeping its UUID, and
    /// drops `Z_MODELCACHE`, which would describe the model the store no longer has.
    package func recordModel(_ metadata: StoreMetadata) throws {
        try converting {
            try StoreBookkeeping.writeMetadata(db, metadata, uuid: false)
            try db.execute(sql: "DROP TABLE IF EXISTS Z_MODELCACHE")
        }
    }

    /// Rewrites `Z_PRIMARYKEY` for the numbering of `layout`, the layout the store now has: each
    /// root's `Z_MAX` is its table's highest key, or the one recorded for the entity it comes
    /// from (`origins`: entity name → name it had) when that is higher.
    package func renumberPrimaryKeys(for layout: StoreLayout, carryingFrom origins: [String: String]) throws {
        try converting { try StoreBookkeeping.renumberPrimaryKeys(db, for: layout, carryingFrom: origins, path: path) }
    }
}
