import Foundation
import GRDB
import ObjectModel
import SQLiteStore
import XCTest

@testable import MigrationEngine

/// `TERNARY` in a real migration through a YAML mapping: the Item mapping (nil tests,
/// BEGINSWITH/CONTAINS/ENDSWITH, IN an aggregate, NOT over a NULL, a filter) compiles to one
/// set-based `INSERT … SELECT`; the Tag mapping (`[c]`, IN a to-many key path) runs row by row.
/// Set-based and row by row must give the same store, NULLs and case included.
final class TernaryMigrationTests: XCTestCase {
    private static func model(_ body: String) throws -> ManagedObjectModel {
        try ModelXMLReader.read(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">\(body)</model>
                """.utf8), file: "Shop")
    }

    private static let relationships = """
        <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
        """
    private static let inverse = """
        <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
        """

    /// Shop 1 → 2: Item gains label, kind, tier, cheap, nick and empty; Tag gains label and onAbacus.
    static func versions() throws -> (ModelBundle.Version, ModelBundle.Version) {
        let v1 = try model(
            """
            <entity name="Item"><attribute name="name" optional="YES" attributeType="String"/>
              <attribute name="status" optional="YES" attributeType="Integer 16"/><attribute name="price" optional="YES" attributeType="Double"/>
              \(Self.relationships)</entity>
            <entity name="Tag"><attribute name="name" optional="YES" attributeType="String"/>\(Self.inverse)</entity>
            """)
        let v2 = try model(
            """
            <entity name="Item"><attribute name="name" optional="YES" attributeType="String"/>
              <attribute name="label" optional="YES" attributeType="String"/><attribute name="kind" optional="YES" attributeType="String"/>
              <attribute name="tier" optional="YES" attributeType="Integer 16"/><attribute name="cheap" optional="YES" attributeType="Boolean"/>
              <attribute name="nick" optional="YES" attributeType="String"/><attribute name="empty" optional="YES" attributeType="Boolean"/>
              \(Self.relationships)</entity>
            <entity name="Tag"><attribute name="name" optional="YES" attributeType="String"/><attribute name="label" optional="YES" attributeType="String"/>
              <attribute name="onAbacus" optional="YES" attributeType="Boolean"/>\(Self.inverse)</entity>
            """)
        return (.init(name: "Shop 1", model: v1), .init(name: "Shop 2", model: v2))
    }

    static let mapping = """
        source: Shop 1
        destination: Shop 2
        entityMappings:
          - source: Tag
            destination: Tag
            attributes:
              label: TERNARY(name BEGINSWITH[c] "RE", "r-tag", "tag")
              onAbacus: TERNARY("Abacus" IN $source.items.name, YES, NO)
          - source: Item
            destination: Item
            filter: status IN {1, 2, 3} OR status == nil
            attributes:
              label: TERNARY($source.name == nil, "unnamed", $source.name)
              kind: TERNARY($source.name BEGINSWITH "Ab", "prefix", TERNARY($source.name CONTAINS "x", "has x", TERNARY(name ENDSWITH "z", "ends z", nil)))
              tier: TERNARY($source.status IN {1, 2}, 1, TERNARY($source.price > 10 AND NOT $source.price >= 100, 2, 3))
              cheap: TERNARY(NOT $source.price >= 100, YES, NO)
              nick: TERNARY(!($source.name == nil) && $source.name != "", $source.name, nil)
              empty: TERNARY($source.name CONTAINS "" OR $source.name BEGINSWITH "" AND $source.name == "", YES, NO)
        """

    /// Migrates a fresh store; returns Item and Tag rows, and which entity mappings went set-based.
    private func migrate(setBased: Bool) throws -> (items: [[String]], tags: [[String]], fast: [String]) {
        let (v1, v2) = try Self.versions()
        let path = try scratchDirectory().appendingPathComponent("Shop.sqlite").path
        let store = try PersistentStore.create(at: path, model: v1.model)
        try store.writeObjects(StoreLayout(model: v1.model)) { writer in
            let tags = try ["red", "Rare", "blue"].map { try writer.insert("Tag", ["name": .string($0)]) }
            let items: [(StoreValue, StoreValue, StoreValue)] = [
                (.string("Abacus"), .integer(1), .double(5)), (.string("abacus"), .integer(2), .double(50)),
                (.null, .integer(3), .null),
                (.string("Taxi"), .null, .double(150)), (.string("Fizz"), .integer(3), .double(99.5)),
                (.string(""), .integer(1), .double(10)),
                (.string("Box"), .integer(4), .double(1)), (.string("ABACUS"), .integer(3), .double(100)),
            ]
            for (index, item) in items.enumerated() {
                let id = try writer.insert("Item", ["name": item.0, "status": item.1, "price": item.2])
                try writer.relate(id, "tags", to: [tags[index % 3]])
            }
        }
        try store.close()
        let parsed = try MappingYAMLReader.read(Self.mapping, name: "Shop1To2", file: "Shop1To2.mapping.yaml")
        let fast = FastMappings()
        _ = try MappingMigration.run(
            store: path, from: v1, to: v2, mappings: [parsed],
            options: MigrationOptions(
                chunkSize: 3,
                configureManager: { manager in
                    manager.useSetBasedSQL = setBased
                    for (index, mapping) in manager.mappingModel.entityMappings.enumerated()
                    where InstanceInsertSQL.compile(manager: manager, mapping: mapping, index: index).isSetBased {
                        fast.names.append(mapping.name)
                    }
                }))
        let items = try rows(
            path,
            """
            SELECT i.zname, i.zlabel, i.zkind, i.ztier, i.zcheap, i.znick, i.zempty, (SELECT group_concat(t.zname) FROM z_1tags j
                   JOIN ztag t ON t.z_pk = j.z_2tags WHERE j.z_1items = i.z_pk)
            FROM zitem i ORDER BY i.z_pk
            """
        ).map { $0.map(\.description) }
        let tags = try rows(path, "SELECT zname, zlabel, zonabacus FROM ztag ORDER BY z_pk").map {
            $0.map(\.description)
        }
        return (items, tags, fast.names)
    }

    private final class FastMappings: @unchecked Sendable { var names: [String] = [] }

    func testSetBasedAndRowByRowAgreeOnTernaries() throws {
        let setBased = try migrate(setBased: true)
        let rowByRow = try migrate(setBased: false)
        XCTAssertEqual(
            setBased.fast, ["ItemToItem"],
            "the Item mapping compiles to SQL; the Tag mapping ([c], IN a to-many key path) cannot")
        XCTAssertEqual(setBased.items, rowByRow.items)
        XCTAssertEqual(setBased.tags, rowByRow.tags)
        XCTAssertEqual(
            setBased.items,
            [
                // name, label, kind, tier, cheap, nick, empty, tags
                ["\"Abacus\"", "\"Abacus\"", "\"prefix\"", "1", "1", "\"Abacus\"", "0", "\"red\""],
                ["\"abacus\"", "\"abacus\"", "NULL", "1", "1", "\"abacus\"", "0", "\"Rare\""],
                ["NULL", "\"unnamed\"", "NULL", "3", "1", "NULL", "0", "\"blue\""],
                ["\"Taxi\"", "\"Taxi\"", "\"has x\"", "3", "0", "\"Taxi\"", "0", "\"red\""],
                ["\"Fizz\"", "\"Fizz\"", "\"ends z\"", "2", "1", "\"Fizz\"", "0", "\"Rare\""],
                ["\"\"", "\"\"", "NULL", "1", "1", "NULL", "1", "\"blue\""],
                ["\"ABACUS\"", "\"ABACUS\"", "NULL", "3", "0", "\"ABACUS\"", "0", "\"Rare\""],
            ],
            """
            status 4 (Box) is filtered out, a nil status kept; BEGINSWITH "Ab" is case-sensitive; nil price: NOT (nil >= 100) \
            holds, (nil > 10) does not; no string contains ""; every string begins with ""
            """)
        XCTAssertEqual(
            setBased.tags,
            [["\"red\"", "\"r-tag\"", "1"], ["\"Rare\"", "\"tag\"", "0"], ["\"blue\"", "\"tag\"", "0"]],
            "[c] folds case (red begins with RE); IN reads the to-many key path items.name, case-sensitively")
    }

    /// `TERNARY` nested 60 deep: SQLite's parser cannot take its SQL (`parser stack overflow`
    /// once stopped the step that `plan` had accepted), so the mapping runs row by row, with the
    /// evaluator's values.
    func testATernaryNestedSixtyDeepRunsRowByRowWithItsValues() throws {
        let (v1, v2) = try Self.versions()
        let path = try scratchDirectory().appendingPathComponent("Shop.sqlite").path
        let store = try PersistentStore.create(at: path, model: v1.model)
        let statuses: [StoreValue] = [.integer(1), .integer(2), .integer(59), .null, .integer(60), .integer(61)]
        try store.writeObjects(StoreLayout(model: v1.model)) { writer in
            for status in statuses { _ = try writer.insert("Item", ["name": .string("item"), "status": status]) }
        }
        try store.close()
        let nested = (1...60).reversed().reduce("0") { inner, level in
            "TERNARY($source.status == \(level), \(level), \(inner))"
        }
        let yaml = """
            source: Shop 1
            destination: Shop 2
            entityMappings:
              - source: Item
                destination: Item
                attributes:
                  tier: \(nested)
            """
        let parsed = try MappingYAMLReader.read(yaml, name: "Deep", file: "Deep.mapping.yaml")
        let fast = FastMappings()
        _ = try MappingMigration.run(
            store: path, from: v1, to: v2, mappings: [parsed],
            options: MigrationOptions(configureManager: { manager in
                for (index, mapping) in manager.mappingModel.entityMappings.enumerated()
                where InstanceInsertSQL.compile(manager: manager, mapping: mapping, index: index).isSetBased {
                    fast.names.append(mapping.name)
                }
            }))
        XCTAssertEqual(fast.names, [], "too deep for SQLite's parser: row by row")
        XCTAssertEqual(
            try rows(path, "SELECT ztier FROM zitem ORDER BY z_pk").map { $0.map(\.description) },
            [["1"], ["2"], ["59"], ["0"], ["60"], ["0"]])
    }
}
