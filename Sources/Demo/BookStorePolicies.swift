import MigrationEngine
import SQLiteStore

/// BookStore 3 → 4: copies title and price and splits the old `author` at its first space into
/// `firstName` and `lastName`. An author without a space is all first name; none leaves both nil.
public struct PublicationToPublicationMigrationPolicy: EntityMigrationPolicy {
    /// The policy.
    public init() {}

    /// One `Publication` with the title, and the author split at the first space.
    public func createDestinationInstances(
        forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let object = try manager.sourceObject(source)
        var firstName = StoreValue.null, lastName = StoreValue.null
        if case .string(let author)? = object.values["author"] {
            // As split(separator: " ", maxSplits: 1) has it (leading spaces skipped, an empty rest
            // is none), without the array it builds per call.
            let name = author.drop { $0 == " " }
            if let space = name.firstIndex(of: " ") {
                firstName = .string(String(name[..<space]))
                let rest = name[name.index(after: space)...]
                lastName = rest.isEmpty ? .null : .string(String(rest))
            } else if !name.isEmpty {
                firstName = .string(String(name))
            }
        }
        let destination = try manager.insertDestination(
            "Publication",
            [
                "title": object.values["title"] ?? .null, "price": object.values["price"] ?? .null,
                "firstName": firstName, "lastName": lastName,
            ])
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
            publication.attributes.contains(where: { $0.name == "synopsis" })
        else { return }
        try manager.setOnAssociation("Publication", "synopsis", to: "$source.title")
    }
}
