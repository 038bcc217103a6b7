import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// worked-examples §1: BookStore through five versions — two lightweight steps, the author split
/// by a custom policy, the synopsis filled by the migration manager's association hook.
enum BookStoreDemo {
    static let authors = ["John Doe", "Jane Doe", "Bill Smith", "Jack Brown"]

    static let example = DemoExample(
        name: "bookstore",
        storeName: "BookStore",
        summary:
            """
            BookStore v1→v5: add an attribute and rename an entity in place, split names with a custom policy, \
            fill a synopsis from a manager hook
            """,
        bundle: { try ModelBundle.read(at: DemoResources.bookStoreBundle) },
        mappings: { [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")] },
        startVersion: "BookStore",
        makeStore: { path, version in
            try DemoCatalog.create(path, version) { writer in
                let category = try writer.insert("Category", ["name": .string("Fiction")])
                for (title, price) in [
                    ("The first book", 10.0), ("The second book", 15.0), ("The third book", 10.0),
                    ("The fourth book", 12.0),
                ] {
                    let book = try writer.insert("Book", ["title": .string(title), "price": .double(price)])
                    try writer.relate(book, "category", to: [category])
                }
            }
        },
        stops: [
            .init(
                version: "BookStore 2",
                queries: [
                    .init(
                        title: "ZBOOK's columns: ZAUTHOR is new, added in place",
                        sql: "SELECT name AS \"column\", type FROM pragma_table_info('ZBOOK')")
                ]),
            .init(
                version: "BookStore 3",
                queries: [
                    .init(
                        title: "tables: ZBOOK is now ZPUBLICATION, renamed in place",
                        sql: "SELECT name AS \"table\" FROM sqlite_master WHERE type = 'table' ORDER BY name")
                ],
                action: .init(
                    announcement: assignAuthorsAnnouncement, work: assignAuthors,
                    queries: [
                        .init(
                            title: "authors and prices, as the demo set them",
                            sql: "SELECT ztitle, zauthor, zprice FROM zpublication ORDER BY z_pk LIMIT 6")
                    ])),
            .init(
                version: "BookStore 4", lesson: splitLesson,
                queries: [
                    .init(
                        title: "names split by the custom policy (prices copied as they were)",
                        sql: "SELECT ztitle, zfirstname, zlastname, zprice FROM zpublication ORDER BY z_pk LIMIT 6")
                ]),
            .init(
                version: "BookStore 5", lesson: synopsisLesson,
                queries: [
                    .init(
                        title: "synopsis = title, from the manager hook",
                        sql: "SELECT ztitle, zsynopsis FROM zpublication ORDER BY z_pk LIMIT 6")
                ]),
        ],
        before: [
            .init(title: "books", sql: "SELECT ztitle, zprice FROM zbook ORDER BY z_pk LIMIT 6"),
            .init(title: "rows", sql: "SELECT count(*) FROM zbook"),
        ])

    static let assignAuthorsAnnouncement = """
        Now the demo itself, not the migration, does what the worked example's text does at BookStore 3: \
        it gives the text's four books their authors (John Doe, Jane Doe, Bill Smith, Jack Brown) and new \
        prices 20 to 23, and every generated book a generated author (a few without a space, a few none). \
        The steps after it copy prices as they are.
        """

    static let splitLesson = """
        Why a mapping model: BookStore3To4 names a custom entity migration policy, \
        PublicationToPublicationMigrationPolicy (Sources/Demo/BookStorePolicies.swift). For each \
        Publication it splits author at the first space into firstName and lastName (no space: all \
        first name; no author: neither) and copies title and price. Core Data cannot infer a split, so \
        the step runs the policy, row by row.
        """

    static let synopsisLesson = """
        BookStore4To5 is a plain mapping model; synopsis is new. The demo gives the migration a \
        manager hook (BookStoreSynopsis, passed as configureManager: Core Data's custom \
        NSMigrationManager) that sets synopsis = title as each Publication is associated with its \
        source. Written as a value expression, the hook still lets the step move set-based.
        """

    /// The text's step before BookStore 4: its four books get the four authors and prices 20–23;
    /// generated books get generated authors (a few without a space, a few without an author).
    @Sendable static func assignAuthors(
        _ store: PersistentStore, _ version: ModelBundle.Version, _ rowsDone: (Int, Int) -> Void
    ) throws {
        let layout = try store.layout(for: version.model)
        var random = SeededRandom(seed: 7)
        var ids: [ObjectID] = []
        try store.readObjects(layout) { reader in try reader.forEachObject(of: "Publication") { ids.append($0.id) } }
        rowsDone(0, ids.count)
        for chunk in stride(from: 0, to: ids.count, by: 20_000) {
            try store.writeObjects(layout) { writer in
                for (offset, id) in ids[chunk..<min(chunk + 20_000, ids.count)].enumerated() {
                    let index = chunk + offset
                    if index < authors.count {
                        try writer.update(
                            id, ["author": .string(authors[index]), "price": .double(Double(20 + index))])
                    } else {
                        try writer.update(
                            id, ["author": random.chance(3) ? .null : .string(SampleValues.person(&random))])
                    }
                }
            }
            rowsDone(min(chunk + 20_000, ids.count), ids.count)
        }
    }
}

/// worked-examples §2: the objc.io store, Model1 → Model2 → Model3, with the real mapping models
/// and two passes for the last step.
enum BooksDemo {
    static let example = DemoExample(
        name: "books",
        storeName: "Books",
        summary:
            """
            objc.io Books: the real Model1.sqlite and Xcode mapping models, custom policies uniquing Authors, two \
            passes into one store
            """,
        bundle: { try ModelBundle.read(at: DemoResources.booksBundle) },
        mappings: {
            try ["Model1_to_Model2", "Model2_to_Model3_User", "Model2_to_Model3"].map(DemoResources.booksMapping)
        },
        startVersion: "Model1",
        makeStore: { path, _ in
            try FileManager.default.copyItem(
                atPath: DemoResources.root.appendingPathComponent("Books/Model1.sqlite").path, toPath: path)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        },
        stops: [
            .init(
                version: "Model2",
                lesson: """
                    Why a mapping model: Model1_to_Model2 names a custom policy, MHWBookToBookPolicy \
                    (Sources/Demo/BooksPolicies.swift). It copies each book and gives it one Author per \
                    distinct authorName, reusing Authors through a table held in the manager's state: \
                    a book's author string becomes a shared entity, which no inference can do.
                    """,
                queries: [
                    .init(
                        title: "one Author per distinct name",
                        sql: "SELECT count(*) AS authors, count(DISTINCT zname) AS names FROM zauthor")
                ]
            ),
            .init(
                version: "Model3",
                lesson: """
                    Two mapping models for one step, run as passes into one store in the order given: \
                    Model2_to_Model3_User copies the users first, then Model2_to_Model3's book policy \
                    makes a File for each of a book's users, pointing at the new book and the user \
                    with the same userId (found through an index the manager makes on first use).
                    """,
                queries: [
                    .init(
                        title: "Franz Kafka",
                        sql:
                            """
                            SELECT a.zname, count(j.Z_2BOOKS) AS books FROM zauthor a JOIN Z_1BOOKS j ON \
                            j.Z_1AUTHORS = a.z_pk WHERE a.zname = 'Franz Kafka' GROUP BY a.z_pk
                            """
                    ),
                    .init(
                        title: "files per user",
                        sql: "SELECT zuser, count(*) AS files FROM zfile GROUP BY zuser ORDER BY files DESC LIMIT 3"),
                ]),
        ],
        before: [.init(title: "books", sql: "SELECT ztitle, zauthorname FROM zbook ORDER BY z_pk LIMIT 6")])
}

/// worked-examples §3: Recipes "Version 1.0" and "1.1" are compatible; 1.1 → 2.0 adds Cuisine and
/// shows the value expressions (renamed attribute, arithmetic, a reserved word).
enum RecipesDemo {
    static let example = DemoExample(
        name: "recipes",
        storeName: "Recipes",
        summary:
            """
            Recipes 1.0/1.1/2.0: compatible versions need nothing; value expressions rename, convert °F to °C and \
            raise salaries
            """,
        bundle: { try ModelBundle.read(at: DemoResources.recipesBundle) },
        mappings: { [try DemoResources.mapping("Recipes1To2")] },
        startVersion: "Version 1.0",
        makeStore: { path, version in
            try DemoCatalog.create(path, version) { writer in
                let julia = try writer.insert("Chef", ["name": .string("Julia Child"), "salary": .double(5000)])
                for (name, temperature, size) in [
                    ("Coq au vin", 350.0, 6), ("Boeuf bourguignon", 325.0, 8), ("Tarte Tatin", 375.0, 8),
                ] {
                    let recipe = try writer.insert(
                        "Recipe",
                        [
                            "name": .string(name), "temperature": .double(temperature), "size": .integer(Int64(size)),
                            "directions": .string("Cook slowly."),
                        ])
                    try writer.relate(recipe, "chef", to: [julia])
                    try writer.relate(
                        recipe, "ingredients",
                        to: try ["butter", "wine"].map {
                            try writer.insert("Ingredient", ["name": .string($0), "amount": .double(4.5)])
                        })
                }
            }
        },
        stops: [
            .init(
                version: "Version 2.0",
                queries: [
                    .init(
                        title: "°F → °C, #size",
                        sql: "SELECT zname, round(ztemperature, 1) AS celsius, zsize FROM zrecipe ORDER BY z_pk LIMIT 4"
                    ),
                    .init(title: "salary * 1.04", sql: "SELECT zname, zsalary FROM zchef ORDER BY z_pk LIMIT 3"),
                    .init(
                        title: "amount → totalCost",
                        sql: "SELECT zname, ztotalcost FROM zingredient ORDER BY z_pk LIMIT 3"),
                ])
        ],
        before: [.init(title: "recipes", sql: "SELECT zname, ztemperature, zsize FROM zrecipe ORDER BY z_pk LIMIT 4")])
}

/// worked-examples §4: Groceries Model 3 → Model 4, Amount becomes Unit (`name = $source.xyz`).
enum GroceriesDemo {
    static let example = DemoExample(
        name: "groceries",
        storeName: "Groceries",
        summary: "Groceries Model 3→4: every Amount becomes a Unit named after its xyz",
        bundle: { try ModelBundle.read(at: DemoResources.groceriesBundle) },
        mappings: { [try DemoResources.mapping("Groceries3To4")] },
        startVersion: "Model 3",
        makeStore: { path, version in
            try DemoCatalog.create(path, version) { writer in
                for name in ["Apples", "Bread", "Milk"] { try writer.insert("Item", ["name": .string(name)]) }
                for xyz in ["kg", "loaf", "l"] { try writer.insert("Amount", ["xyz": .string(xyz)]) }
            }
        },
        stops: [
            .init(
                version: "Model 4",
                queries: [
                    .init(title: "ZUNIT", sql: "SELECT z_pk, zname FROM zunit ORDER BY z_pk LIMIT 5"),
                    .init(
                        title: "rows",
                        sql: "SELECT (SELECT count(*) FROM zunit) AS units, (SELECT count(*) FROM zitem) AS items"),
                ])
        ],
        before: [.init(title: "ZAMOUNT", sql: "SELECT z_pk, zxyz FROM zamount ORDER BY z_pk LIMIT 5")])
}
