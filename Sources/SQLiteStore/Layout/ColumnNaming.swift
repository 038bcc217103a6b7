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

    /// Core Data orders a table's columns by storage class (integers and keys first, blobs last),
    /// as every table of the real stores Core Data made whole shows (`CreatedLayoutTests`).
    /// Dates, doubles and floats are one class, in name order among themselves (Moody's `ZMOOD`:
    /// `ZDATE TIMESTAMP, ZLATITUDE FLOAT, ZLONGITUDE FLOAT, ZMARKEDFORDELETIONDATE TIMESTAMP`; 413
    /// places in the fixtures' real stores where the two meet); a decimal follows them (CoreDataPlus's
    /// `ZBOOK`: `ZPUBLISHEDAT TIMESTAMP, ZPRICE DECIMAL`).
    package static func rank(of type: AttributeType) -> Int {
        switch type {
        case .integer16, .integer32, .integer64, .boolean, .objectID: return 0
        case .date, .double, .float: return 1
        case .decimal: return 2
        case .string, .uri: return 4
        // Blobs: a UUID's, a transformable's, then a binary's (CoreDataPlus's `ZBOOK`: `ZUNIQUEID`
        // before the transformable `ZCOVER`; Wire's `ZUSERCLIENT`: the transformable `ZMODIFIEDKEYS`
        // before `ZAPSDECRYPTIONKEY`, 261 places in the real stores and none the other way).
        case .uuid: return 5
        case .transformable: return 6
        case .binaryData: return 7
        case .undefined, .composite: return 8
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
}

extension Character {
    /// `0`…`9`.
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
