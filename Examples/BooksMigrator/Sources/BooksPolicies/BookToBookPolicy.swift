import ChrysalisCLI

/// `MHWBookToBookPolicy`, the policy the objc.io Books mapping models name for their Book
/// mappings: one type serving two steps, told apart by the entity mapping's user info
/// (`modelVersion`), as the Objective-C original is.
///
/// Start your own policy here: a type with Core Data's hooks, given the migration manager to
/// read the source and write the destination. Only the hooks you override change anything; the
/// others do what Core Data's default `NSEntityMigrationPolicy` does.
public struct BookToBookPolicy: EntityMigrationPolicy {
    public init() {}

    /// Stage 1 (create instances), once per source Book.
    public func createDestinationInstances(forSource book: ObjectID, in mapping: EntityMapping, manager: MigrationManager) throws {
        // What the mapping would do without a policy: a destination Book, its attributes set by
        // the mapping's value expressions. Nil when the mapping's filter left this one out.
        guard let copy = try manager.createDefaultDestinationInstance(forSource: book, in: mapping) else { return }
        switch mapping.userInfo["modelVersion"] {
        case "2": try giveAnAuthor(to: copy, from: book, manager: manager)
        case "3": try makeFiles(for: copy, from: book, manager: manager)
        default: break
        }
    }

    /// Model 1 → 2: `authorName` becomes an `Author`, one per distinct name.
    private func giveAnAuthor(to copy: ObjectID, from book: ObjectID, manager: MigrationManager) throws {
        guard case .string(let name)? = try manager.sourceObject(book).values["authorName"] else { return }
        // State the manager keeps for the whole pass, held by reference: a dictionary updated
        // in place, so the policy stays linear in the books.
        let authors = manager.state(AuthorsMade.self) { [:] }
        let author = try authors.value[name] ?? manager.insertDestination("Author", ["name": .string(name)])
        authors.value[name] = author
        try manager.addDestination(copy, "authors", [author])
    }

    /// Model 2 → 3: one `File` per reader of the book, pointing at the new Book and at the
    /// destination `User` with the reader's `userId`.
    private func makeFiles(for copy: ObjectID, from book: ObjectID, manager: MigrationManager) throws {
        let fileURL = try manager.sourceObject(book).values["fileURL"] ?? .null
        for reader in try manager.sourceDestinations(of: book, "users") {
            let userID = try manager.sourceObject(reader).values["userId"] ?? .null
            let file = try manager.insertDestination("File", ["fileURL": fileURL])
            try manager.relateDestination(file, "book", to: [copy])
            // The original fetches Users by userId and takes the last: so does this (the manager
            // indexes the column on first use, so each look-up is a search, not a scan).
            if let user = try manager.lastDestinationObjectID("User", where: "userId", equals: userID) {
                try manager.relateDestination(file, "user", to: [user])
            }
        }
    }

    /// The Authors made so far in this pass, by name.
    enum AuthorsMade: MigrationStateKey { typealias Value = [String: ObjectID] }
}
