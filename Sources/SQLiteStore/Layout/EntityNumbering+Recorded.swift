internal import GRDB
import ObjectModel

extension EntityNumbering {
    /// The numbering of `model` as a store that already exists uses it: Core Data's numbers, but
    /// where `Z_PRIMARYKEY` records an entity under its name with another number, the store's
    /// number wins (`Z_NAME` can be stale after a rename, so unmatched names keep the model's).
    package init(model: ManagedObjectModel, recorded: EntityNumbering) {
        let computed = EntityNumbering(model: model)
        let recordedNames = Set(recorded.entries.map(\.name))
        let allAgree = computed.entries.allSatisfy { entry in
            !recordedNames.contains(entry.name) || recorded.number(of: entry.name) == entry.number
        }
        guard !allAgree else {
            self = computed
            return
        }
        let entries = computed.entries.map { entry -> Entry in
            let number = recorded.number(of: entry.name) ?? entry.number
            let parent =
                computed.name(of: entry.superNumber).flatMap { recorded.number(of: $0) ?? computed.number(of: $0) } ?? 0
            return Entry(number: number, name: entry.name, superNumber: parent)
        }
        self.init(entries: entries)
    }
}
