import ObjectModel

/// Core Data's SQL names: `Z` + upper-cased property name for columns, `Z` + upper-cased root
/// entity name for tables, and the declared column type for each attribute type.
package enum ColumnNaming {
    /// `Z` + the root entity's name, upper-cased: the table of its hierarchy.
    package static func table(forRoot entity: String) -> String { "Z" + entity.uppercased() }

    package static func column(for property: String) -> String { "Z" + property.uppercased() }

    /// The declared SQL type Core Data gives an attribute's column; `nil` for types with no column.
    package static func sqlType(of type: AttributeType) -> String? {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .date: return "TIMESTAMP"
        case .decimal: return "DECIMAL"
        case .double, .float: return "FLOAT"
        case .string, .uri: return "VARCHAR"
        case .binaryData, .transformable, .uuid: return "BLOB"
        case .objectID: return "INTEGER"
        case .undefined, .composite: return nil
        }
    }

    /// Core Data orders a table's columns by storage class (integers and keys first, blobs last).
    package static func rank(of type: AttributeType) -> Int {
        switch type {
        case .integer16, .integer32, .integer64, .boolean, .objectID: return 0
        case .date: return 1
        case .decimal: return 2
        case .double, .float: return 3
        case .string, .uri: return 4
        case .uuid: return 5
        case .binaryData, .transformable: return 6
        case .undefined, .composite: return 7
        }
    }

    /// `name`, or `name1`, `name2`… if taken: Core Data's suffix for clashing column names.
    package static func unique(_ name: String, in taken: inout Set<String>) -> String {
        var candidate = name
        var suffix = 1
        while taken.contains(candidate) {
            candidate = name + String(suffix)
            suffix += 1
        }
        taken.insert(candidate)
        return candidate
    }

    /// Whether `name` is `stem`, or `stem` followed by the digits Core Data appends to a name that
    /// clashes (`ZTEXT1`, `Z_24USERS1`).
    package static func isName(_ name: String, withSuffixOf stem: String) -> Bool {
        guard name.hasPrefix(stem) else { return false }
        return name.dropFirst(stem.count).allSatisfy(\.isASCIIDigit)
    }

    /// An identifier ready for SQL: bare when it is a plain name (as Core Data writes its
    /// schema), quoted when it is a keyword or holds anything else, so `ORDER` or a name with
    /// quotes stays a name.
    package static func quote(_ identifier: String) -> String {
        // Bytes, not Characters: this runs for every statement a migration builds.
        let bytes = identifier.utf8
        let isLetter = { (byte: UInt8) in (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_") }
        let plain = bytes.first.map(isLetter) == true
            && bytes.allSatisfy { isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
        if plain && !keywords.contains(identifier.uppercased()) { return identifier }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A table in an attached database (`schema.table`), both parts quoted as needed.
    package static func qualified(_ table: String, schema: String) -> String { "\(quote(schema)).\(quote(table))" }

    /// SQLite's keywords (https://sqlite.org/lang_keywords.html).
    static let keywords: Set<String> = Set("""
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

extension Character {
    /// `0`…`9`.
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
