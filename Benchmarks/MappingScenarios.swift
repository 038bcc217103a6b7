/// Scenarios 3–5: mapping-model steps, which build the destination as a new store.
extension Scenario {
    /// Scenario 3: a transform whose every expression compiles to SQL (Shelf 1 → Shelf 3).
    static let compiledTransform = Scenario(
        name: "compiled-transform",
        summary: "mapping: price * 1.04, isbn renamed code, all compiled to SQL (Shelf 1 → Shelf 3)",
        goal: .ratio(1.1),
        prepare: { try makeStore(at: $0, bundle: BenchResources.shelf, version: "Shelf 1", rows: $1) },
        chrysalis: {
            try migrate(
                $0, bundle: BenchResources.shelf, to: "Shelf 3", mappings: [try BenchResources.mapping("Shelf1To3")])
        },
        baseline: {
            try SQLBaseline.copy(
                $0, into: try model(BenchResources.shelf, "Shelf 3"),
                """
                INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM src.ZCATEGORY;
                INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE, ZCODE, ZTITLE)
                    SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE * 1.04, ZISBN, ZTITLE FROM src.ZBOOK;
                INSERT INTO Z_PRIMARYKEY SELECT * FROM src.Z_PRIMARYKEY;
                """)
        })

    /// Scenario 4: a custom Swift policy on every book (BookStore 3 → 4: author split in two).
    static let customPolicy = Scenario(
        name: "custom-policy",
        summary: "mapping: Swift policy splits every author into first and last name (BookStore 3 → 4)",
        goal: .ratio(1.25),
        prepare: { try makeStore(at: $0, bundle: BenchResources.bookStore, version: "BookStore 3", rows: $1) },
        chrysalis: {
            try migrate(
                $0, bundle: BenchResources.bookStore, to: "BookStore 4",
                mappings: [try BenchResources.demoMapping("BookStore3To4")])
        },
        baseline: {
            try SQLBaseline.copy($0, into: try model(BenchResources.bookStore, "BookStore 4"), bookStore3To4SQL)
        })

    /// The policy's rule in SQL: split at the first space; no space leaves it all first name.
    static let bookStore3To4SQL = """
        INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM src.ZCATEGORY;
        INSERT INTO ZPUBLICATION (Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE, ZTITLE, ZFIRSTNAME, ZLASTNAME)
            SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE, ZTITLE,
                   CASE WHEN instr(ZAUTHOR, ' ') > 0 THEN substr(ZAUTHOR, 1, instr(ZAUTHOR, ' ') - 1) ELSE ZAUTHOR END,
                   CASE WHEN instr(ZAUTHOR, ' ') > 0 THEN substr(ZAUTHOR, instr(ZAUTHOR, ' ') + 1) END
            FROM src.ZPUBLICATION;
        INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZBOOK, ZTEXT) SELECT Z_PK, Z_ENT, Z_OPT, ZBOOK, ZTEXT FROM src.ZPAGE;
        INSERT INTO Z_PRIMARYKEY SELECT * FROM src.Z_PRIMARYKEY;
        """

    /// Scenario 5: every relationship kind recreated (Library 1 → 2): books to one of a tenth as
    /// many categories, ordered pages, and tags many-to-many through the join table.
    static let relationships = Scenario(
        name: "relationships",
        summary: "mapping: to-one (books → rows/10 categories), ordered to-many, many-to-many (Library 1 → 2)",
        goal: .ratio(1.1),
        prepare: { path, rows in
            try makeStore(at: path, bundle: BenchResources.library, version: "Library 1", rows: rows)
            let categories = max(rows / 10, 1)
            try SQLBaseline.inPlace(
                path,
                """
                UPDATE ZBOOK SET ZCATEGORY = (ZCATEGORY - 1) % \(categories) + 1 WHERE ZCATEGORY IS NOT NULL;
                DELETE FROM ZCATEGORY WHERE Z_PK > \(categories);
                UPDATE Z_PRIMARYKEY SET Z_MAX = \(categories) WHERE Z_NAME = 'Category';
                """)
        },
        chrysalis: {
            try migrate(
                $0, bundle: BenchResources.library, to: "Library 2",
                mappings: [try BenchResources.mapping("Library1To2")])
        },
        baseline: {
            try SQLBaseline.copy(
                $0, into: try model(BenchResources.library, "Library 2"),
                """
                INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM src.ZCATEGORY;
                INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM src.ZTAG;
                INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZTITLE) SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZTITLE FROM src.ZBOOK;
                INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZBOOK, Z_FOK_BOOK, ZTEXT) SELECT Z_PK, Z_ENT, Z_OPT, ZBOOK, Z_FOK_BOOK, ZTEXT FROM src.ZPAGE;
                INSERT INTO Z_1TAGS (Z_1BOOKS, Z_4TAGS) SELECT Z_1BOOKS, Z_4TAGS FROM src.Z_1TAGS;
                INSERT INTO Z_PRIMARYKEY SELECT * FROM src.Z_PRIMARYKEY;
                """)
        })
}
