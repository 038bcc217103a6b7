/// Scenario 6: the whole BookStore chain, v1 → v5 (lightweight, lightweight, mapping, mapping),
/// against the four hand-written steps run one after another.
extension Scenario {
    static let wholeChain = Scenario(
        name: "whole-chain", summary: "BookStore → BookStore 5: add, rename, policy split, synopsis (4 steps)",
        goal: .ratio(1.2),
        prepare: { try makeStore(at: $0, bundle: BenchResources.bookStore, version: "BookStore", rows: $1) },
        chrysalis: {
            try migrate(
                $0, bundle: BenchResources.bookStore, to: "BookStore 5",
                mappings: [
                    try BenchResources.demoMapping("BookStore3To4"), try BenchResources.demoMapping("BookStore4To5"),
                ])
        },
        baseline: { path in
            try SQLBaseline.inPlace(path, "ALTER TABLE ZBOOK ADD COLUMN ZAUTHOR VARCHAR")
            // Book 1, Category 2, Page 3 become Category 1, Page 2, Publication 3.
            try SQLBaseline.inPlace(
                path,
                """
                ALTER TABLE ZBOOK RENAME TO ZPUBLICATION;
                UPDATE ZPUBLICATION SET Z_ENT = 3;
                UPDATE ZCATEGORY SET Z_ENT = 1;
                UPDATE ZPAGE SET Z_ENT = 2;
                DROP INDEX ZBOOK_ZCATEGORY_INDEX;
                CREATE INDEX ZPUBLICATION_ZCATEGORY_INDEX ON ZPUBLICATION (ZCATEGORY);
                UPDATE Z_PRIMARYKEY SET Z_ENT = Z_ENT + 100;
                UPDATE Z_PRIMARYKEY SET Z_ENT = CASE Z_NAME WHEN 'Book' THEN 3 WHEN 'Category' THEN 1 ELSE 2 END,
                                        Z_NAME = CASE Z_NAME WHEN 'Book' THEN 'Publication' ELSE Z_NAME END;
                """)
            try SQLBaseline.copy(path, into: try model(BenchResources.bookStore, "BookStore 4"), bookStore3To4SQL)
            try SQLBaseline.copy(
                path, into: try model(BenchResources.bookStore, "BookStore 5"),
                """
                INSERT INTO ZCATEGORY (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM src.ZCATEGORY;
                INSERT INTO ZPUBLICATION (Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE, ZTITLE, ZFIRSTNAME, ZLASTNAME, ZSYNOPSIS)
                    SELECT Z_PK, Z_ENT, Z_OPT, ZCATEGORY, ZPRICE, ZTITLE, ZFIRSTNAME, ZLASTNAME, ZTITLE FROM src.ZPUBLICATION;
                INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZBOOK, ZTEXT) SELECT Z_PK, Z_ENT, Z_OPT, ZBOOK, ZTEXT FROM src.ZPAGE;
                INSERT INTO Z_PRIMARYKEY SELECT * FROM src.Z_PRIMARYKEY;
                """)
        })
}
