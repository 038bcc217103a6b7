import Foundation
import ObjectModel

/// Core Data's entity numbers (`Z_ENT`, the rows of `Z_PRIMARYKEY`): depth-first pre-order over
/// the entities in Core Data's order (``precedes(_:_:)``), each root followed by its subentities.
///
/// Numbers are not stable across model versions — adding an entity renumbers those after it — so
/// every store layout computes them from its own model.
package struct EntityNumbering: Hashable, Sendable {
    /// One `Z_PRIMARYKEY` row without its `Z_MAX`.
    package struct Entry: Hashable, Sendable {
        /// `Z_ENT`.
        package var number: Int
        /// `Z_NAME`.
        package var name: String
        /// `Z_SUPER`: the parent's number, 0 for a root.
        package var superNumber: Int
    }

    /// Entries in number order.
    package let entries: [Entry]
    private let numbers: [String: Int]
    /// Number → name, the first entry of a number: asked once per object read or written.
    private let names: [Int: String]

    /// Numbers `model`'s entities the way Core Data does.
    package init(model: ManagedObjectModel) {
        var entries: [Entry] = []
        func visit(_ entity: EntityDescription, superNumber: Int) {
            let number = entries.count + 1
            entries.append(Entry(number: number, name: entity.name, superNumber: superNumber))
            for child in model.subentities(of: entity).sorted(by: { Self.precedes($0.name, $1.name) }) {
                visit(child, superNumber: number)
            }
        }
        let roots = model.entities.filter { $0.parentName == nil || model.entity(named: $0.parentName!) == nil }
        for root in roots.sorted(by: { Self.precedes($0.name, $1.name) }) { visit(root, superNumber: 0) }
        self.init(entries: entries)
    }

    /// Core Data's order of entities, by name with `caseInsensitiveCompare:` (its SQL model sorts the
    /// entities so, to number them and to pair their relationships into join tables). DuckDuckGo's
    /// `SyncMetadata_V3` numbers `SyncableSettingsMetadata` 1 and `SyncFeatureEntity` 2, which a
    /// case-sensitive order reverses. Names equal but for case fall back to their UTF-16 order.
    package static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        switch lhs.caseInsensitiveCompare(rhs) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: return VersionHash.precedesInUTF16(lhs, rhs)
        }
    }

    /// Numbering with explicit entries (as a store's `Z_PRIMARYKEY` holds them).
    package init(entries: [Entry]) {
        self.entries = entries.sorted { $0.number < $1.number }
        numbers = Dictionary(entries.map { ($0.name, $0.number) }, uniquingKeysWith: { first, _ in first })
        names = Dictionary(self.entries.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// The number of the entity called `name`.
    package func number(of name: String) -> Int? { numbers[name] }

    /// The entity numbered `number`.
    package func name(of number: Int) -> String? { names[number] }

    /// `number` and the numbers of all entities below it: the `Z_ENT` values of its instances.
    /// A damaged `Z_PRIMARYKEY` can make parents a cycle; each number is visited once.
    package func numbers(inHierarchyOf number: Int) -> [Int] {
        var result: Set<Int> = [number]
        var frontier = [number]
        while let next = frontier.popLast() {
            let children = entries.filter { $0.superNumber == next && $0.number != next }.map(\.number)
            for child in children where result.insert(child).inserted { frontier.append(child) }
        }
        return result.sorted()
    }
}
