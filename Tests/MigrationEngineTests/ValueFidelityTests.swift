import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Every path a value can take through a step keeps it byte for byte unless an expression
/// transforms it (issue 29 §3): the set-based SQL, the row-by-row path (what a custom policy or
/// one `FUNCTION(...)` forces), an inferred step in place and an inferred step that rebuilds its
/// table. The same hostile values go through each and every value is compared with the source as
/// SQLite holds it (`typeof` and `hex`), not as Swift reads it back.
final class ValueFidelityTests: XCTestCase {
    private static let attributes = """
        <attribute name="text" optional="YES" attributeType="String"/>
        <attribute name="blob" optional="YES" attributeType="Binary"/>
        <attribute name="number" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
        <attribute name="small" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
        <attribute name="real" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
        <attribute name="amount" optional="YES" attributeType="Decimal"/>
        <attribute name="when" optional="YES" attributeType="Date"/>
        <attribute name="flag" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
        <attribute name="ident" optional="YES" attributeType="UUID"/>
        <attribute name="link" optional="YES" attributeType="URI"/>
        """
    private static let columns = [
        "ZTEXT", "ZBLOB", "ZNUMBER", "ZSMALL", "ZREAL", "ZAMOUNT", "ZWHEN", "ZFLAG", "ZIDENT", "ZLINK",
    ]

    /// Each row gives one column a hostile value (SQL, as SQLite would hold it) and leaves the rest NULL.
    private static let hostile: [(column: String, sql: String)] = [
        ("ZTEXT", "CAST(X'610062006300' AS TEXT)"),  // "a\0b\0c\0"
        ("ZTEXT", "CAST(X'C328FFFE41' AS TEXT)"),  // not UTF-8
        ("ZTEXT", "CAST(X'E282' AS TEXT)"),  // a cut sequence, as long as U+FFFD
        ("ZTEXT", "'é, 中文, 🦋'"),
        ("ZTEXT", "''"),
        ("ZTEXT", "replace(hex(zeroblob(5000000)), '00', 'ab')"),  // 10 MB of text
        ("ZTEXT", "X'00FF'"),  // a blob where text belongs
        ("ZTEXT", "42"),
        ("ZBLOB", "randomblob(50000000)"),  // 50 MB
        ("ZBLOB", "X''"),
        ("ZBLOB", "'text where bytes belong'"),
        ("ZNUMBER", "9223372036854775807"), ("ZNUMBER", "-9223372036854775808"),
        ("ZNUMBER", "1.5"), ("ZNUMBER", "'not a number'"),
        ("ZSMALL", "70000"),  // wider than its type
        ("ZREAL", "1e999"), ("ZREAL", "-1e999"), ("ZREAL", "-0.0"), ("ZREAL", "4.9e-324"),
        ("ZREAL", "1.7976931348623157e308"),
        ("ZREAL", "0.1"),
        ("ZAMOUNT", "0.30000000000000004"), ("ZAMOUNT", "1e300"), ("ZAMOUNT", "1e999"),
        ("ZAMOUNT", "123456789012345678"),
        ("ZWHEN", "1e300"), ("ZWHEN", "-1e300"), ("ZWHEN", "9007199254740993"), ("ZWHEN", "'2024-01-01'"),
        ("ZFLAG", "2"), ("ZFLAG", "-1"),
        ("ZIDENT", "X'000102030405060708090A0B0C0D0E'"),  // 15 bytes
        ("ZIDENT", "randomblob(16)"),
        ("ZLINK", "'not a URL at all %%'"), ("ZLINK", "CAST(X'68747470733A2F2FFF' AS TEXT)"),
    ]

    private func model(_ extra: String) throws -> ManagedObjectModel {
        try ModelXMLReader.read(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
                <entity name="Item">\(Self.attributes)\(extra)</entity></model>
                """.utf8), file: "Fidelity")
    }

    private func versions() throws -> (v1: ModelBundle.Version, added: ModelBundle.Version, copied: ModelBundle.Version)
    {
        (
            .init(name: "V1", model: try model("")),
            .init(name: "V2", model: try model(#"<attribute name="added" optional="YES" attributeType="String"/>"#)),
            // Two attributes fed by one source column: the table cannot be altered and is rebuilt.
            .init(
                name: "V3",
                model: try model(#"<attribute name="copy" optional="YES" attributeType="String" elementID="text"/>"#))
        )
    }

    /// A store at V1 holding every hostile value, one row each.
    private func makeStore(_ v1: ModelBundle.Version, name: String) throws -> String {
        let path = try scratchDirectory().appendingPathComponent(name + ".sqlite").path
        let store = try PersistentStore.create(at: path, model: v1.model)
        try store.writeObjects(StoreLayout(model: v1.model)) { writer in
            for _ in Self.hostile { _ = try writer.insert("Item", [:]) }
        }
        try store.close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            for (offset, value) in Self.hostile.enumerated() {
                try db.execute(sql: "UPDATE ZITEM SET \(value.column) = \(value.sql) WHERE Z_PK = \(offset + 1)")
            }
        }
        try queue.close()
        return path
    }

    /// Every value as SQLite holds it: its storage class and its bytes.
    private func values(_ path: String) throws -> [[String]] {
        let list = Self.columns.map { "typeof(\($0)) || ':' || coalesce(hex(\($0)), '')" }.joined(separator: ", ")
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT \(list) FROM ZITEM ORDER BY Z_PK").map { row in
                (0..<Self.columns.count).map { row[$0] as String }
            }
        }
    }

    private func assertKept(
        _ path: String, _ expected: [[String]], _ label: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let after = try values(path)
        XCTAssertEqual(after.count, expected.count, "\(label): rows", file: file, line: line)
        for (index, (was, now)) in zip(expected, after).enumerated() where was != now {
            let changed = zip(zip(Self.columns, was), now).filter { $0.0.1 != $0.1 }
                .map { "\($0.0.0): \($0.0.1.prefix(60)) → \($0.1.prefix(60))" }
            XCTFail(
                "\(label): row \(index + 1) (\(Self.hostile[index].column) = \(Self.hostile[index].sql)) changed: \(changed.joined(separator: "; "))",
                file: file, line: line)
        }
    }

    private let mapping = """
        source: V1
        destination: V2
        entityMappings:
          - source: Item
            destination: Item
            attributes:
              added: FUNCTION("x", "uppercaseString")
        """

    private func runMapping(setBased: Bool) throws {
        let (v1, v2, _) = try versions()
        let path = try makeStore(v1, name: setBased ? "SetBased" : "RowByRow")
        let before = try values(path)
        var mapping = self.mapping
        if setBased {
            mapping = mapping.replacingOccurrences(of: #"FUNCTION("x", "uppercaseString")"#, with: #"'"X"'"#)
        }
        let parsed = try MappingYAMLReader.read(mapping, name: "V1ToV2", file: "Fidelity.mapping.yaml")
        _ = try MappingMigration.run(
            store: path, from: v1, to: v2, mappings: [parsed],
            options: MigrationOptions(configureManager: { $0.useSetBasedSQL = setBased }))
        try assertKept(path, before, setBased ? "set-based" : "row by row")
        let added = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT ZADDED FROM ZITEM")
        }
        XCTAssertEqual(added, ["X"], "the one transformed attribute is written")
    }

    func testTheSetBasedPathKeepsEveryByte() throws { try runMapping(setBased: true) }

    func testTheRowByRowPathKeepsEveryByte() throws { try runMapping(setBased: false) }

    func testAnInferredStepInPlaceKeepsEveryByte() throws {
        let (v1, v2, _) = try versions()
        let path = try makeStore(v1, name: "InPlace")
        let before = try values(path)
        _ = try InPlaceMigration.run(store: path, from: v1, to: v2)
        try assertKept(path, before, "in place")
    }

    func testAnInferredRebuildKeepsEveryByte() throws {
        let (v1, _, v3) = try versions()
        let path = try makeStore(v1, name: "Rebuilt")
        let before = try values(path)
        let report = try InPlaceMigration.run(store: path, from: v1, to: v3)
        XCTAssertEqual(
            report.passes, ["inferred, in place"], "the premise: an inferred step, its table rebuilt in its transaction"
        )
        try assertKept(path, before, "rebuilt")
    }

    /// A value of the wrong type is named as a person writes it, never in Swift's spelling of
    /// the enum that holds it (`value("not a date")`).
    func testAValueOfTheWrongTypeIsNamedWithoutSwiftsSpelling() throws {
        let (v1, v2, _) = try versions()
        let path = try makeStore(v1, name: "WrongType")
        let mapping = self.mapping.replacingOccurrences(
            of: #"added: FUNCTION("x", "uppercaseString")"#, with: #"when: FUNCTION("not a date", "uppercaseString")"#)
        let parsed = try MappingYAMLReader.read(mapping, name: "V1ToV2", file: "Fidelity.mapping.yaml")
        XCTAssertThrowsError(
            try MappingMigration.run(
                store: path, from: v1, to: v2, mappings: [parsed],
                options: MigrationOptions(configureManager: { $0.useSetBasedSQL = false }))
        ) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains(#"gave "NOT A DATE", which a Date attribute cannot hold"#), text)
            XCTAssertFalse(text.contains("value("), text)
        }
    }
}
