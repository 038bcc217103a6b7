import Foundation
import ObjectModel
import SQLiteStore

/// Every object and link a store holds, read through the store's own reader with the layout the
/// store has: what a check compares before and after a step. For test-sized stores only; it
/// holds everything in memory.
package struct ObjectSnapshot: Sendable {
    /// Entity → key → object (concrete entities only).
    package var objects: [String: [Int64: StoredObject]] = [:]
    /// Entity → relationship → key → destination keys, as the reader gives them (in order for an
    /// ordered relationship, by key otherwise). Objects with no links are left out.
    package var links: [String: [String: [Int64: [Int64]]]] = [:]

    /// Reads the store at `path` as `model` describes it.
    package static func read(_ path: String, model: ManagedObjectModel) throws -> ObjectSnapshot {
        let store = try PersistentStore.open(at: path)
        defer { try? store.close() }
        let layout = try store.layout(for: model)
        return try store.readObjects(layout) { reader in
            var snapshot = ObjectSnapshot()
            for entity in model.entities where !entity.isAbstract {
                var objects: [Int64: StoredObject] = [:]
                try reader.forEachObject(of: entity.name, includingSubentities: false) {
                    objects[$0.id.primaryKey] = $0
                }
                snapshot.objects[entity.name] = objects
                for relationship in model.allRelationships(of: entity) where !relationship.isTransient {
                    var links: [Int64: [Int64]] = [:]
                    for object in objects.values {
                        let keys = try reader.destinations(of: object.id, relationship.name).map(\.primaryKey)
                        if !keys.isEmpty { links[object.id.primaryKey] = keys }
                    }
                    snapshot.links[entity.name, default: [:]][relationship.name] = links
                }
            }
            return snapshot
        }
    }

    /// A value as comparable across a retyped column: every number (Boolean included) as a
    /// Double, everything else in full (text and bytes whole, never a message's shortened form),
    /// tagged with its kind so that text never equals bytes.
    package static func comparable(_ value: StoreValue) -> String {
        switch value.plain {
        case .integer(let number): return "\(Double(number))"
        case .bool(let flag): return flag ? "1.0" : "0.0"
        case .double(let number): return "\(number)"
        case .decimal(let number): return "\(NSDecimalNumber(decimal: number).doubleValue)"
        case .string(let text):
            if case .stored(.undecodableText(let bytes)) = value {
                return "bytes-as-text:" + bytes.base64EncodedString()
            }
            return "text:" + text
        case .data(let bytes): return "bytes:" + bytes.base64EncodedString()
        case let other: return "\(other)"
        }
    }
}
