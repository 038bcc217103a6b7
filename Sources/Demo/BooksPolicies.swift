import MigrationEngine
import SQLiteStore

/// The objc.io Books example's book policy (`MHWBookToBookPolicy`), which branches on the entity
/// mapping's `userInfo.modelVersion`:
/// - "2": copies the book and gives it one `Author` per distinct `authorName`, reusing Authors
///   through a table kept in the migration manager's state;
/// - "3": copies the book and, for each of its users, makes a `File` with the book's `fileURL`,
///   pointing at the new book and at the destination `User` with the same `userId` (the last match).
///
/// Written as the original Objective-C policy is, and linear in the rows: the Authors table is
/// state held by reference (``MigrationManager/state(_:_:)``, not copied out of `userInfo` and
/// back on every book), and the User look-up is served by an index the manager makes on first use.
public struct BookToBookPolicy: EntityMigrationPolicy {
    /// The Authors made so far, by name.
    enum AuthorsByName: MigrationStateKey { typealias Value = [String: ObjectID] }

    /// The policy.
    public init() {}

    /// The book as Core Data would copy it, then its Authors ("2") or its Files ("3").
    public func createDestinationInstances(
        forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        guard let book = try manager.createDefaultDestinationInstance(forSource: source, in: mapping) else { return }
        let object = try manager.sourceObject(source)
        switch mapping.userInfo["modelVersion"] {
        case "2":
            guard case .string(let name)? = object.values["authorName"] else { return }
            let authors = manager.state(AuthorsByName.self) { [:] }
            let author = try authors.value[name] ?? manager.insertDestination("Author", ["name": .string(name)])
            authors.value[name] = author
            try manager.addDestination(book, "authors", [author])
        case "3":
            for user in try manager.sourceDestinations(of: source, "users") {
                let userID = try manager.sourceObject(user).values["userId"] ?? .null
                let file = try manager.insertDestination("File", ["fileURL": object.values["fileURL"] ?? .null])
                try manager.relateDestination(file, "book", to: [book])
                // The original's `lastObject` of a fetch: the last match alone, however many share the userId.
                if let owner = try manager.lastDestinationObjectID("User", where: "userId", equals: userID) {
                    try manager.relateDestination(file, "user", to: [owner])
                }
            }
        default: break
        }
    }
}

/// The objc.io example's user policy (`MHWUserToUserPolicy`): Core Data's default behaviour. Its
/// mapping is an orphan in the real mapping model, so it is registered but never runs there.
public struct UserToUserPolicy: EntityMigrationPolicy {
    /// The policy.
    public init() {}
}
