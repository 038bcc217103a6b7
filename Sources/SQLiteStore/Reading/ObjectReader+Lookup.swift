internal import GRDB

extension ObjectReader {
    /// Which end of the matches a look-up returns, in `Z_PK` order.
    package enum LookupEnd: Sendable {
        /// The lowest key first.
        case first
        /// The highest key first.
        case last
    }

    /// The IDs of instances of `entity` (and its subentities) whose attribute `name` equals
    /// `value` (`nil` matching no value, as Core Data's `== nil`), from the lowest `Z_PK` or, with
    /// `.last`, from the highest; at most `limit`. Through the reader's ``LookupIndexes`` the
    /// search costs O(log n) and each match O(1), however large the table: a migration policy
    /// makes this fetch once per row.
    package func matchingObjectIDs(
        of entity: String, where name: String, equals value: StoreValue, from end: LookupEnd = .first,
        limit: Int? = nil
    ) throws -> [ObjectID] {
        let query = try lookupQuery(entity, attribute: name, end: end, limit: limit)
        guard let converted = value.sqlValue(for: query.kind) else {
            throw StoreError(
                .unknownProperty, path: path,
                "entity \(entity) has no stored attribute \(name) that can equal \(value)",
                fix: "look up by a stored attribute of \(entity), with a value of its type")
        }
        return try objectIDs(query.sql, [converted], table: query.table)
    }
}
