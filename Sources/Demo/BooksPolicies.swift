import MigrationEngine
import SQLiteStore

/// The objc.io Books example's book policy (`MHWBookToBookPolicy`), which branches on the entity
/// mapping's `userInfo.modelVersion`:
/// - "2": copies the book and gives it one `Author` per distinct `authorName`, reusing Authors
///   through a lookup kept on the migration manager;
/// - "3": copies the book and, for each of its users, makes a `File` with the book's `fileURL`,
///   pointing at the new book and at the destination `User` with the same `userId` (the last match).
public struct BookToBookPolicy: EntityMigrationPolicy {
    static let authorsKey = "authorsByName"

    /// The policy.
    public init() {}

    public func createDestinationInstances(forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager) throws {
        guard let book = try manager.createDefaultDestinationInstance(forSource: source, in: mapping) else { return }
        let object = try manager.sourceObject(source)
        switch mapping.userInfo["modelVersion"] {
        case "2":
            guard case .string(let name)? = object.values["authorName"] else { return }
            var authors = manager.userInfo[Self.authorsKey] as? [String: ObjectID] ?? [:]
            let author = try authors[name] ?? manager.insertDestination("Author", ["name": .string(name)])
            authors[name] = author
            manager.userInfo[Self.authorsKey] = authors
            try manager.addDestination(book, "authors", [author])
        case "3":
            for user in try manager.sourceDestinations(of: source, "users") {
                let userID = try manager.sourceObject(user).values["userId"] ?? .null
                let file = try manager.insertDestination("File", ["fileURL": object.values["fileURL"] ?? .null])
                try manager.relateDestination(file, "book", to: [book])
                if let owner = try manager.destinationObjectIDs("User", where: "userId", equals: userID).last {
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
