import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// Entity and property names that are SQL keywords or carry quotes, spaces and statement
/// separators stay names everywhere: creating the store, writing objects, a lightweight step in
/// place, a mapping step, and reading back. Nothing is executed from a name.
final class HostileNameTests: XCTestCase {
    private static let injection = "\"; DROP TABLE Z_METADATA; --"

    private func model(_ extra: String) throws -> ManagedObjectModel {
        let hostile = Self.injection.replacingOccurrences(of: "\"", with: "&quot;")
        return try ModelXMLReader.read(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
                  <entity name="Order">
                    <attribute name="group" optional="YES" attributeType="String"/>
                    <attribute name="\(hostile)" optional="YES" attributeType="String"/>
                    <attribute name="select from" optional="YES" attributeType="Integer 32"/>
                    \(extra)
                    <relationship name="where" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Group" inverseName="orders" inverseEntity="Group"/>
                  </entity>
                  <entity name="Group">
                    <attribute name="order" optional="YES" attributeType="String"/>
                    <relationship name="orders" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Order" inverseName="where" inverseEntity="Order"/>
                  </entity>
                </model>
                """.utf8), file: "Hostile")
    }

    private func makeStore(at path: String, model: ManagedObjectModel) throws {
        let store = try PersistentStore.create(at: path, model: model)
        try store.writeObjects(StoreLayout(model: model)) { writer in
            let group = try writer.insert("Group", ["order": .string("by")])
            for index in 1...3 {
                let order = try writer.insert(
                    "Order",
                    [
                        "group": .string("g\(index)"), Self.injection: .string("'); DELETE FROM ZORDER; --"),
                        "select from": .integer(Int64(index)),
                    ])
                try writer.relate(order, "where", to: [group])
            }
        }
        try store.close()
    }

    private func assertIntact(
        _ path: String, model: ManagedObjectModel, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let store = try PersistentStore.open(at: path)
        defer { try? store.close() }
        XCTAssertEqual(
            try store.metadata().versionHashes, VersionHash.entityHashes(of: model), "Z_METADATA survives", file: file,
            line: line)
        let orders = try store.readObjects(StoreLayout(model: model)) { reader in
            var values: [[String: StoreValue]] = []
            try reader.forEachObject(of: "Order") { values.append($0.values) }
            return values
        }
        XCTAssertEqual(orders.count, 3, file: file, line: line)
        XCTAssertEqual(
            orders.compactMap { $0[Self.injection] }, Array(repeating: .string("'); DELETE FROM ZORDER; --"), count: 3),
            file: file, line: line)
        XCTAssertEqual(
            orders.compactMap { $0["select from"] }, [.integer(1), .integer(2), .integer(3)], file: file, line: line)
    }

    func testKeywordsQuotesAndSeparatorsInNamesSurviveEveryStepKind() throws {
        let v1 = try model("")
        let v2 = try model(#"<attribute name="limit" optional="YES" attributeType="String"/>"#)
        let path = try scratchDirectory().appendingPathComponent("Hostile Store ✓.sqlite").path
        try makeStore(at: path, model: v1)
        try assertIntact(path, model: v1)

        // Lightweight, in place: `limit` is added to ZORDER.
        _ = try InPlaceMigration.run(store: path, from: .init(name: "1", model: v1), to: .init(name: "2", model: v2))
        try assertIntact(path, model: v2)

        // A mapping step back to v1: the Order mapping is inferred property by property.
        let mapping = try MappingYAMLReader.read(
            """
            source: "2"
            destination: "1"
            entityMappings:
              - name: GroupToGroup
                source: Group
                destination: Group
                attributes:
                  order: $source.order
              - name: OrderToOrder
                source: Order
                destination: Order
            """, name: "Back", file: "Back.mapping.yaml")
        _ = try MappingMigration.run(
            store: path, from: .init(name: "2", model: v2), to: .init(name: "1", model: v1), mappings: [mapping])
        try assertIntact(path, model: v1)
    }
}
