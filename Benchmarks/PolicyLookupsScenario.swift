import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore

/// Scenario 7: custom policies written as policy authors write them, at scale — the objc.io Books
/// chain Model1 → Model3 through its real Xcode mapping models and the demo's two policies. One
/// uniques Authors by name in the manager's state; the other, for each user of each book, makes a
/// File and finds the destination User with the same `userId` (no index in the model), the last
/// match, as the original's fetch request does. Against hand-written SQL doing the same uniquing
/// and joins, set-based: a look-up that scanned a table, or state copied per row, would make
/// Chrysalis quadratic and this ratio grow with the rows.
extension Scenario {
    static let policyLookups = Scenario(
        name: "policy-lookups",
        summary:
            "objc.io Books Model1 → Model3: Authors uniqued by name, Users found by userId, per row in Swift policies",
        goal: .ratio(1.5),
        prepare: { path, rows in
            try FileManager.default.copyItem(
                at: DemoResources.root.appendingPathComponent("Books/Model1.sqlite"), to: URL(fileURLWithPath: path))
            let store = try PersistentStore.open(at: path, mode: .readWrite)
            try DataGenerator(model: try model(DemoResources.booksBundle, "Model1")).fill(store, rows: rows)
            try store.close()
        },
        chrysalis: { path in
            let mappings = try ["Model1_to_Model2", "Model2_to_Model3_User", "Model2_to_Model3"].map(
                DemoResources.booksMapping)
            try migrate(path, bundle: DemoResources.booksBundle, to: "Model3", mappings: mappings)
        },
        baseline: { path in
            try SQLBaseline.copy(path, into: try model(DemoResources.booksBundle, "Model2"), booksModel1To2SQL)
            try SQLBaseline.copy(path, into: try model(DemoResources.booksBundle, "Model3"), booksModel2To3SQL)
        })

    /// Model1 → Model2 (Author 1, Book 2, User 3): books numbered afresh in key order (the policy
    /// makes each anew, as Core Data does); one Author per distinct `authorName`, numbered in the
    /// order books first name them, linked to their books; each book's one user becomes a link in
    /// the many-to-many `users`.
    static let booksModel1To2SQL = """
        CREATE TEMP TABLE books (old INTEGER PRIMARY KEY, key INTEGER);
        INSERT INTO temp.books SELECT Z_PK, row_number() OVER (ORDER BY Z_PK) FROM src.ZBOOK;
        CREATE TEMP TABLE authors (name TEXT PRIMARY KEY, key INTEGER);
        INSERT INTO temp.authors SELECT name, row_number() OVER (ORDER BY first)
            FROM (SELECT ZAUTHORNAME AS name, min(Z_PK) AS first FROM src.ZBOOK WHERE ZAUTHORNAME IS NOT NULL GROUP BY ZAUTHORNAME);
        INSERT INTO ZUSER (Z_PK, Z_ENT, Z_OPT, ZUSERID) SELECT Z_PK, 3, 1, ZUSERID FROM src.ZUSER;
        INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT key, 1, 1, name FROM temp.authors;
        INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZFILEURL)
            SELECT k.key, 2, 1, b.ZTITLE, b.ZFILEURL FROM src.ZBOOK b JOIN temp.books k ON k.old = b.Z_PK;
        INSERT INTO Z_1BOOKS (Z_1AUTHORS, Z_2BOOKS)
            SELECT a.key, k.key FROM src.ZBOOK b JOIN temp.authors a ON a.name = b.ZAUTHORNAME JOIN temp.books k ON k.old = b.Z_PK;
        INSERT INTO Z_2USERS (Z_2BOOKS1, Z_3USERS)
            SELECT k.key, b.ZUSER FROM src.ZBOOK b JOIN temp.books k ON k.old = b.Z_PK WHERE b.ZUSER IS NOT NULL;
        INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES
            (1, 'Author', 0, (SELECT count(*) FROM temp.authors)),
            (2, 'Book', 0, (SELECT count(*) FROM temp.books)),
            (3, 'User', 0, (SELECT ifnull(max(Z_PK), 0) FROM src.ZUSER));
        DROP TABLE temp.authors;
        DROP TABLE temp.books;
        """

    /// Model2 → Model3 (Author 1, Book 2, File 3, User 4): for each book, and each of its users
    /// in key order, a File with the book's `fileURL`, pointing at the book and at the last
    /// destination User with that user's `userId`.
    static let booksModel2To3SQL = """
        INSERT INTO ZUSER (Z_PK, Z_ENT, Z_OPT, ZUSERID) SELECT Z_PK, 4, 1, ZUSERID FROM src.ZUSER;
        CREATE TEMP TABLE lastUser (userId INTEGER PRIMARY KEY, key INTEGER);
        INSERT INTO temp.lastUser SELECT ZUSERID, max(Z_PK) FROM ZUSER WHERE ZUSERID IS NOT NULL GROUP BY ZUSERID;
        INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT Z_PK, 1, 1, ZNAME FROM src.ZAUTHOR;
        INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE) SELECT Z_PK, 2, 1, ZTITLE FROM src.ZBOOK;
        INSERT INTO ZFILE (Z_PK, Z_ENT, Z_OPT, ZBOOK, ZUSER, ZFILEURL)
            SELECT row_number() OVER (ORDER BY j.Z_2BOOKS1, j.Z_3USERS), 3, 1, j.Z_2BOOKS1,
                   CASE WHEN u.ZUSERID IS NULL THEN (SELECT max(Z_PK) FROM ZUSER WHERE ZUSERID IS NULL) ELSE l.key END, b.ZFILEURL
            FROM src.Z_2USERS j JOIN src.ZBOOK b ON b.Z_PK = j.Z_2BOOKS1 JOIN src.ZUSER u ON u.Z_PK = j.Z_3USERS
            LEFT JOIN temp.lastUser l ON l.userId = u.ZUSERID;
        INSERT INTO Z_1BOOKS (Z_1AUTHORS, Z_2BOOKS) SELECT Z_1AUTHORS, Z_2BOOKS FROM src.Z_1BOOKS;
        INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES
            (1, 'Author', 0, (SELECT ifnull(max(Z_PK), 0) FROM src.ZAUTHOR)),
            (2, 'Book', 0, (SELECT ifnull(max(Z_PK), 0) FROM src.ZBOOK)),
            (3, 'File', 0, (SELECT count(*) FROM ZFILE)),
            (4, 'User', 0, (SELECT ifnull(max(Z_PK), 0) FROM src.ZUSER));
        DROP TABLE temp.lastUser;
        """
}
