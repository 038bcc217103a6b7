import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// Staged migration's canonical case (iOS 17's `NSStagedMigrationManager`): Shelf 2 makes
/// authors' names unique, which the lightweight step can do only once no two authors share a
/// name. The custom stage's `willMigrate` merges the duplicates on the store still at Shelf 1
/// (their books move to the first of them), the step adds the unique index, and `didMigrate`
/// fills Shelf 2's new `bookCount` from the books each author has. A lightweight stage then
/// takes the store to Shelf 3.
enum StagedDemo {
    static let example = DemoExample(
        name: "staged",
        storeName: "Shelf",
        summary:
            """
            Shelf 1→3 by stages: willMigrate merges duplicate authors so names can be unique, didMigrate counts \
            their books
            """,
        bundle: { try ModelBundle.read(at: DemoResources.shelfBundle) },
        mappings: { [] },
        startVersion: "Shelf 1",
        makeStore: { path, version in
            try DemoCatalog.create(path, version) { writer in
                let books = [
                    ("Ursula K. Le Guin", "A Wizard of Earthsea"), ("Octavia E. Butler", "Kindred"),
                    ("Ursula K. Le Guin", "The Dispossessed"),
                    ("Terry Pratchett", "Mort"), ("Terry Pratchett", "Small Gods"), ("Terry Pratchett", "Night Watch"),
                ]
                // Each book by an author object of its own: the app never looked for the author it had.
                for (author, title) in books {
                    let written = try writer.insert("Author", ["name": .string(author)])
                    try writer.insert("Book", ["title": .string(title)], toOne: ["author": written])
                }
            }
        },
        stops: [
            .init(
                version: "Shelf 2",
                lesson:
                    """
                    The unique index on Author.name can only be built once no two authors share a name: \
                    willMigrate merged them first.
                    """,
                queries: [
                    .init(
                        title: "ZAUTHOR",
                        sql:
                            """
                            SELECT z_pk, zname, zbookcount FROM zauthor WHERE zname NOT LIKE '%-%' ORDER BY z_pk \
                            LIMIT 5
                            """
                    )
                ]),
            .init(
                version: "Shelf 3",
                queries: [
                    .init(
                        title: "rows",
                        sql: "SELECT (SELECT count(*) FROM zauthor) AS authors, (SELECT count(*) FROM zbook) AS books")
                ]),
        ],
        before: [
            .init(
                title: "ZAUTHOR",
                sql:
                    """
                    SELECT zname, count(*) AS objects FROM zauthor GROUP BY zname HAVING count(*) > 1 ORDER BY \
                    zname LIMIT 5
                    """
            )
        ],
        strategy: { bundle in .staged(try ShelfStages.migration(bundle)) })
}

/// The demo's stages: what an app registers with `NSStagedMigrationManager`, in Swift.
public enum ShelfStages {
    /// The stages for the Shelf bundle: a custom stage Shelf 1 → 2 with both handlers, then a
    /// lightweight stage for Shelf 3.
    public static func migration(_ bundle: ModelBundle) throws -> StagedMigration {
        func checksum(_ name: String) throws -> String {
            guard let version = bundle.version(named: name) else {
                throw MigrationError(.notFound, "\(bundle.name) has no version \(name)")
            }
            return version.versionChecksum
        }
        return try StagedMigration([
            .custom(
                CustomMigrationStage(
                    from: try checksum("Shelf 1"), to: try checksum("Shelf 2"), label: "authors' names made unique",
                    willMigrate: mergeDuplicateAuthors, didMigrate: countBooks)),
            .lightweight([try checksum("Shelf 3")]),
        ])
    }

    /// Authors sharing a name become one: the first keeps every book, the others are deleted.
    public static let mergeDuplicateAuthors: StageHandler = { context in
        var first: [String: ManagedObject] = [:]
        for author in try context.fetch("Author") {
            guard case .string(let name) = try author.value(forKey: "name") else { continue }
            guard let survivor = first[name] else {
                first[name] = author
                continue
            }
            try survivor.addObjects(try author.objects(forKey: "books"), forKey: "books")
            try context.delete(author)
        }
        try context.save()
    }

    /// Each author's new `bookCount`, from the books it has.
    public static let countBooks: StageHandler = { context in
        for author in try context.fetch("Author") {
            try author.setValue(.integer(Int64(try author.objects(forKey: "books").count)), forKey: "bookCount")
        }
        try context.save()
    }
}
