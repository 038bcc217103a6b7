/// Issue 32 §2: every kind of table rebuild an inferred step does in place, each against the SQL
/// a person would write for it, on the benchmark's Rebuild bundle (Book, Category, Page).
extension Scenario {
    /// A to-many made ordered: every Page gets its position in its Book, 1024 apart. (Done as Core Data
    /// does it: a column added and numbered in place, not a table rebuild.)
    static let rebuildOrdered = rebuild(
        "rebuild-ordered",
        "lightweight: Book.pages unordered → ordered, positions numbered in place (Rebuild 1 → Rebuild ordered)",
        goal: .ratio(1.1),
        to: "Rebuild ordered",
        sql: """
                ALTER TABLE ZPAGE ADD COLUMN Z_FOK_BOOK INTEGER;
                UPDATE ZPAGE SET Z_FOK_BOOK = w.position FROM (
                    SELECT Z_PK, CASE WHEN ZBOOK IS NULL THEN 0 ELSE row_number() OVER (PARTITION BY ZBOOK ORDER BY Z_PK) * 1024 END AS position FROM ZPAGE
                    ORDER BY Z_PK
                ) w WHERE w.Z_PK = ZPAGE.Z_PK;
            """)

    /// A to-one made to-many with a to-many inverse: the key column becomes a join table.
    static let rebuildToMany = rebuild(
        "rebuild-to-many",
        "lightweight rebuild: Book.category to-one → to-many, into a join table (Rebuild 1 → Rebuild to-many)",
        goal: .ratio(1.1),
        to: "Rebuild to-many",
        sql: """
                CREATE TABLE Z_1CATEGORY (Z_1BOOKS INTEGER, Z_2CATEGORY INTEGER, PRIMARY KEY (Z_1BOOKS, Z_2CATEGORY));
                INSERT INTO Z_1CATEGORY SELECT Z_PK, ZCATEGORY FROM ZBOOK WHERE ZCATEGORY IS NOT NULL;
                DROP INDEX ZBOOK_ZCATEGORY_INDEX;
                ALTER TABLE ZBOOK DROP COLUMN ZCATEGORY;
                CREATE INDEX Z_1CATEGORY_Z_2CATEGORY_INDEX ON Z_1CATEGORY (Z_2CATEGORY, Z_1BOOKS);
            """)

    /// A new many-to-many between two existing entities: an empty join table and its index.
    static let rebuildManyToMany = rebuild(
        "rebuild-many-to-many",
        "lightweight: a new many-to-many, Category.pages ↔ Page.categories (Rebuild 1 → Rebuild many-to-many)",
        goal: .seconds(0.02),
        to: "Rebuild many-to-many",
        sql: """
                CREATE TABLE Z_2PAGES (Z_2CATEGORIES INTEGER, Z_3PAGES INTEGER, PRIMARY KEY (Z_2CATEGORIES, Z_3PAGES));
                CREATE INDEX Z_2PAGES_Z_3PAGES_INDEX ON Z_2PAGES (Z_3PAGES, Z_2CATEGORIES);
            """)

    /// An attribute's type changed (Integer 64 → Double): SQLite cannot retype a column, so the
    /// table is rebuilt.
    static let rebuildType = rebuild(
        "rebuild-type", "lightweight rebuild: Book.price Integer 64 → Double (Rebuild 1 → Rebuild type)",
        goal: .ratio(1.1), to: "Rebuild type",
        sql: """
                CREATE TABLE ZBOOK_NEW ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCATEGORY INTEGER, ZPRICE FLOAT, ZTITLE VARCHAR );
                INSERT INTO ZBOOK_NEW SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE, ZTITLE FROM ZBOOK;
                DROP TABLE ZBOOK;
                ALTER TABLE ZBOOK_NEW RENAME TO ZBOOK;
                CREATE INDEX ZBOOK_ZCATEGORY_INDEX ON ZBOOK (ZCATEGORY);
            """)

    /// A scenario on a fresh Rebuild 1 store: Chrysalis migrates it to `version`, the baseline
    /// runs `sql` on it in place in one transaction.
    private static func rebuild(_ name: String, _ summary: String, goal: Goal, to version: String, sql: String)
        -> Scenario
    {
        Scenario(
            name: name, summary: summary, goal: goal,
            prepare: { try makeStore(at: $0, bundle: BenchResources.rebuild, version: "Rebuild 1", rows: $1) },
            chrysalis: { try migrate($0, bundle: BenchResources.rebuild, to: version) },
            baseline: { try SQLBaseline.inPlace($0, sql) })
    }
}
