import ChrysalisCLI

/// The Shelf app's staged migration, as it registers it with `NSStagedMigrationManager`: Shelf 2
/// makes authors' names unique, so a custom stage merges the authors that share a name before the
/// step (the unique index cannot be built over them) and counts each author's books after it
/// (Shelf 2's new `bookCount`); a lightweight stage takes the store on to Shelf 3.
public enum ShelfMigration {
    /// Each version's checksum (`NSManagedObjectModel.versionChecksum`): what `chrysalis model
    /// Shelf.xcdatamodeld` prints, and the compiled model's `VersionInfo.plist` holds.
    static let shelf1 = "x7LYeqsqh79E+gNnNE60vb5JZkuu2HBCoqjgWJyWpgg="
    static let shelf2 = "hEN7hIlKcqQLTQuXG5QNtItQnTIu7yLEHAqHjqYTjG8="
    static let shelf3 = "fzsp+v5faJNOhQvPiDGlI4bKNbpGx0Q9BHlrGlutLWs="

    /// The stages, oldest first.
    public static func stages() throws -> StagedMigration {
        try StagedMigration([
            .custom(
                CustomMigrationStage(
                    from: shelf1, to: shelf2, label: "unique author names",
                    willMigrate: mergeAuthorsSharingAName, didMigrate: countEachAuthorsBooks)),
            .lightweight([shelf3]),
        ])
    }

    /// On the store at Shelf 1: one author per name, holding every book of that name.
    static func mergeAuthorsSharingAName(_ context: MigrationContext) throws {
        var kept: [String: ManagedObject] = [:]
        for author in try context.fetch("Author") {
            guard case .string(let name) = try author.value(forKey: "name") else { continue }
            if let survivor = kept[name] {
                for book in try author.objects(forKey: "books") {
                    try book.setObject(survivor, forKey: "author")
                }
                try context.delete(author)
            } else {
                kept[name] = author
            }
        }
        try context.save()
    }

    /// On the store at Shelf 2: each author's `bookCount`, from its books.
    static func countEachAuthorsBooks(_ context: MigrationContext) throws {
        for author in try context.fetch("Author", where: "books.@count > 0") {
            let books = try author.objects(forKey: "books")
            try author.setValue(.integer(Int64(books.count)), forKey: "bookCount")
        }
        try context.save()
    }
}
