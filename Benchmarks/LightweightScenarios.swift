/// Scenarios 1 and 2: inferred steps, which Chrysalis runs in place with SQL.
extension Scenario {
    /// Scenario 1: an optional attribute added (BookStore → BookStore 2): `ALTER TABLE … ADD COLUMN`.
    static let addAttribute = Scenario(
        name: "add-attribute", summary: "lightweight: Book.author added (BookStore → BookStore 2)",
        goal: .seconds(0.02),
        prepare: { try makeStore(at: $0, bundle: BenchResources.bookStore, version: "BookStore", rows: $1) },
        chrysalis: { try migrate($0, bundle: BenchResources.bookStore, to: "BookStore 2") },
        baseline: { try SQLBaseline.inPlace($0, #"ALTER TABLE ZBOOK ADD COLUMN ZAUTHOR VARCHAR"#) })

    /// Scenario 1 beside a many-to-many (Library 1 → Library 1 notes): the join table's links
    /// stay where they are, so the step is still one `ALTER` however many links the store has.
    static let addAttributeManyToMany = Scenario(
        name: "add-attribute-many-to-many",
        summary: "lightweight: Book.notes added beside Book.tags ↔ Tag.books (Library 1 → Library 1 notes)",
        goal: .seconds(0.02),
        prepare: { try makeStore(at: $0, bundle: BenchResources.library, version: "Library 1", rows: $1) },
        chrysalis: { try migrate($0, bundle: BenchResources.library, to: "Library 1 notes") },
        baseline: { try SQLBaseline.inPlace($0, #"ALTER TABLE ZBOOK ADD COLUMN ZNOTES VARCHAR"#) })

    /// Scenario 2: Book renamed to Volume (so every entity is renumbered) and `isbn` made
    /// required with a default (Shelf 1 → Shelf 2).
    static let renameAndRequire = Scenario(
        name: "rename-require",
        summary: "lightweight: Book renamed Volume, isbn optional → required with default (Shelf 1 → Shelf 2)",
        goal: .ratio(1.1),
        prepare: { try makeStore(at: $0, bundle: BenchResources.shelf, version: "Shelf 1", rows: $1) },
        chrysalis: { try migrate($0, bundle: BenchResources.shelf, to: "Shelf 2") },
        baseline: { try SQLBaseline.inPlace($0, renameAndRequireSQL) })

    /// Core Data numbers entities by name: Book 1, Category 2 become Category 1, Volume 2.
    static let renameAndRequireSQL = """
        ALTER TABLE ZBOOK RENAME TO ZVOLUME;
        UPDATE ZVOLUME SET Z_ENT = 2, ZISBN = coalesce(ZISBN, 'unknown');
        UPDATE ZCATEGORY SET Z_ENT = 1;
        DROP INDEX ZBOOK_ZCATEGORY_INDEX;
        CREATE INDEX ZVOLUME_ZCATEGORY_INDEX ON ZVOLUME (ZCATEGORY);
        DELETE FROM Z_PRIMARYKEY;
        INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES
            (1, 'Category', 0, (SELECT coalesce(max(Z_PK), 0) FROM ZCATEGORY)),
            (2, 'Volume', 0, (SELECT coalesce(max(Z_PK), 0) FROM ZVOLUME));
        """
}
