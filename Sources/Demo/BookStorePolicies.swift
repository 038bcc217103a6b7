import MigrationEngine
import SQLiteStore

/// BookStore 3 → 4: copies title and price and splits the old `author` at its first space into
/// `firstName` and `lastName`. An author without a space is all first name; none leaves both nil.
public struct PublicationToPublicationMigrationPolicy: EntityMigrationPolicy {
    /// The policy.
    public init() {}

    public func createDestinationInstances(forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager) throws {
        let object = try manager.sourceObject(source)
        var values: [String: StoreValue] = ["title": object.values["title"] ?? .null, "price": object.values["price"] ?? .null]
        if case .string(let author)? = object.values["author"] {
            let parts = author.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            values["firstName"] = parts.first.map { .string(String($0)) } ?? .null
            values["lastName"] = parts.count > 1 ? .string(String(parts[1])) : .null
        }
        let destination = try manager.insertDestination("Publication", values)
        try manager.associate(source: source, destination: destination, mapping: mapping)
    }
}

/// BookStore 4 → 5: Core Data's example sets up its own migration manager whose association
/// hook starts every synopsis as the book's title. Here the hook is that value expression, so the
/// mapping still moves set-based (a Swift closure in `didAssociate` would work too, row by row).
public enum BookStoreSynopsis {
    /// Installs the hook on `manager`.
    public static func install(on manager: MigrationManager) throws {
        guard let publication = manager.destinationModel.entity(named: "Publication"),
              publication.attributes.contains(where: { $0.name == "synopsis" }) else { return }
        try manager.setOnAssociation("Publication", "synopsis", to: "$source.title")
    }
}
