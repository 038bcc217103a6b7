import Foundation
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// `ObjectReader.relatedObjects` reads, for a run of owners, exactly what walking each owner's
/// to-many with `destinations(of:)` and reading every member gives, in the same order, for every
/// kind of to-many (kept in the members' rows or in a join table, ordered or not); a limit cuts
/// the run short after the last owner read whole. `ObjectPrefetch` reads a relationship ahead
/// for every batch once asked.
final class RelatedObjectsTests: XCTestCase {
    private var model: ManagedObjectModel!
    private var layout: StoreLayout!

    override func setUpWithError() throws {
        model = try ModelXMLReader.read(Data(ObjectRoundTripTests.model.utf8), file: "RoundTrip")
        layout = StoreLayout(model: model)
    }

    /// 30 Items and 10 Gadgets (one table, keys interleaved), 12 Tags, 8 People, each Item with
    /// 0–5 tags and 0–4 ordered steps, each Person with 0–3 ordered playlists and some items.
    private func store() throws -> PersistentStore {
        let path = try scratchDirectory().appendingPathComponent("Related.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        var random = SplitMix64(seed: 7)
        try store.writeObjects(layout) { writer in
            let tags = try (0..<12).map { try writer.insert("Tag", ["label": .string("tag \($0)")]) }
            let people = try (0..<8).map { try writer.insert("Person", ["name": .string("person \($0)")]) }
            for index in 0..<40 {
                let item = try writer.insert(index % 4 == 3 ? "Gadget" : "Item", ["string": .string("item \(index)")])
                try writer.relate(
                    item, "tags", to: Array(tags.shuffled(using: &random).prefix(Int.random(in: 0...5, using: &random)))
                )
                let steps = try (0..<Int.random(in: 0...4, using: &random)).map {
                    try writer.insert("Step", ["text": .string("step \(index).\($0)")])
                }
                try writer.relate(item, "steps", to: steps.shuffled(using: &random))
                if index % 3 != 0 { try writer.relate(item, "owner", to: [people[index % people.count]]) }
            }
            for person in people {
                try writer.relate(
                    person, "playlists",
                    to: Array(tags.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random))))
            }
        }
        return store
    }

    /// What walking `name` from each instance of `entity` keyed in `keys` gives, member by member.
    private func walked(_ reader: ObjectReader, _ entity: String, _ name: String, _ keys: ClosedRange<Int64>) throws
        -> [Int64: [StoredObject]]
    {
        let number = try XCTUnwrap(layout.numbering.number(of: entity))
        var walked: [Int64: [StoredObject]] = [:]
        for key in keys {
            // No owner, or one of another entity in the table: `destinations(of:)` reads the key alone.
            let owner = ObjectID(entityNumber: number, primaryKey: key)
            let members = try reader.destinations(of: owner, name).map { try XCTUnwrap(reader.object($0)) }
            if !members.isEmpty { walked[key] = members }
        }
        return walked
    }

    func testEveryKindOfToManyReadsAsWalkedMemberByMember() throws {
        let store = try store()
        try store.readObjects(layout) { reader in
            let cases: [(entity: String, relationship: String)] = [
                ("Item", "tags"), ("Gadget", "tags"), ("Item", "steps"), ("Person", "items"), ("Person", "playlists"),
                ("Tag", "items"), ("Tag", "listeners"),
            ]
            var membersSeen = 0
            for (entity, relationship) in cases {
                let number = try XCTUnwrap(layout.numbering.number(of: entity))
                for keys: ClosedRange<Int64> in [1...60, 3...17, 9...9] {
                    let related = try XCTUnwrap(
                        try reader.relatedObjects(of: number, keys: keys, through: relationship, limit: 10_000),
                        "\(entity).\(relationship)")
                    XCTAssertEqual(related.keys, keys)
                    let expected = try walked(reader, entity, relationship, keys)
                    for key in keys {
                        let owner = ObjectID(entityNumber: number, primaryKey: key)
                        XCTAssertTrue(related.covers(owner))
                        XCTAssertEqual(
                            related.members(of: owner), expected[key] ?? [], "\(entity).\(relationship) of \(key)")
                        membersSeen += expected[key]?.count ?? 0
                    }
                    XCTAssertFalse(related.covers(ObjectID(entityNumber: number + 100, primaryKey: keys.lowerBound)))
                    XCTAssertFalse(related.covers(ObjectID(entityNumber: number, primaryKey: keys.upperBound + 1)))
                }
            }
            XCTAssertGreaterThan(membersSeen, 100, "the store has members to compare")
            // A to-one is read with its owner: nothing to read ahead.
            XCTAssertNil(
                try reader.relatedObjects(
                    of: try XCTUnwrap(layout.numbering.number(of: "Item")), keys: 1...40, through: "owner", limit: 100))
        }
    }

    func testALimitEndsTheRunAfterTheLastOwnerReadWhole() throws {
        let store = try store()
        try store.readObjects(layout) { reader in
            let number = try XCTUnwrap(layout.numbering.number(of: "Item"))
            let all = try walked(reader, "Item", "tags", 1...60)
            for limit in [1, 4, 9, 25] {
                guard let related = try reader.relatedObjects(of: number, keys: 1...60, through: "tags", limit: limit)
                else {
                    // Only when the first owner with members has more than the limit.
                    let first = try XCTUnwrap(all.keys.min())
                    XCTAssertGreaterThan(all[first]?.count ?? 0, limit)
                    continue
                }
                XCTAssertLessThan(related.keys.upperBound, 60, "limit \(limit)")
                // Every owner covered has all its members; the first owner past the run has some.
                for key in related.keys {
                    XCTAssertEqual(related.members(of: ObjectID(entityNumber: number, primaryKey: key)), all[key] ?? [])
                }
                let covered = related.keys.reduce(0) { $0 + (all[$1]?.count ?? 0) }
                XCTAssertLessThanOrEqual(covered, limit)
                XCTAssertNotNil(all[related.keys.upperBound + 1], "the run ends before an owner with members")
            }
        }
    }

    func testThePrefetchReadsARelationshipAheadForEveryBatchOnceAsked() throws {
        let store = try store()
        let prefetch = ObjectPrefetch(
            store: store, layout: layout, entity: "Item", includingSubentities: false, batchSize: 4)
        defer { prefetch.stop() }
        prefetch.readAhead("steps")
        var batches: [ObjectPrefetch.Batch] = []
        while let batch = try prefetch.next() { batches.append(batch) }
        prefetch.stop()
        XCTAssertGreaterThan(batches.count, 4)
        // The first two may have been read before it was asked; every later one has it.
        XCTAssertTrue(batches.dropFirst(2).allSatisfy { $0.related["steps"] != nil })
        XCTAssertTrue(batches.allSatisfy { $0.related["tags"] == nil })
        try store.readObjects(layout) { reader in
            for batch in batches {
                guard let related = batch.related["steps"] else { continue }
                for object in batch.objects {
                    XCTAssertTrue(related.covers(object.id))
                    XCTAssertEqual(
                        related.members(of: object.id),
                        try reader.destinations(of: object.id, "steps").map { try XCTUnwrap(reader.object($0)) })
                }
            }
        }
    }
}
