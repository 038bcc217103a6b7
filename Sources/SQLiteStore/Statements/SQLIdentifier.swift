/// Names as SQL reads them: a table, column or schema name quoted only where SQLite would read
/// it otherwise (a keyword, or a name holding anything but letters, digits and `_`).
package enum SQLIdentifier {
    /// An identifier ready for SQL: bare when it is a plain name (as Core Data writes its
    /// schema), quoted when it is a keyword or holds anything else, so `ORDER` or a name with
    /// quotes stays a name.
    package static func quote(_ identifier: String) -> String {
        // Bytes, not Characters: this runs for every statement a migration builds.
        let bytes = identifier.utf8
        let isLetter = { (byte: UInt8) in
            (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_")
        }
        let plain =
            bytes.first.map(isLetter) == true
            && bytes.allSatisfy { isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
        if plain && !keywords.contains(identifier.uppercased()) { return identifier }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A table in an attached database (`schema.table`), both parts quoted as needed.
    package static func qualified(_ table: String, schema: String) -> String { "\(quote(schema)).\(quote(table))" }

    /// SQLite's keywords (https://sqlite.org/lang_keywords.html).
    static let keywords: Set<String> = Set(
        """
        ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE BEGIN BETWEEN BY CASCADE CASE CAST CHECK \
        COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT \
        DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER \
        FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED INITIALLY INNER \
        INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL \
        NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE REFERENCES \
        REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY \
        THEN TIES TO TRANSACTION TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT
        """.split(separator: " ").map(String.init))
}
