import ObjectModel
import SQLiteStore

/// The destination's indexes, dropped while a mapping step bulk-loads the new store and built
/// once afterwards: one sorted build is much cheaper than updating every index on every insert.
/// They come back before anything would search by them (row-by-row relationship work,
/// validation) and always before the store is verified.
final class DeferredIndexes {
    /// The statements that build them: Core Data's indexes for the layout, in its order.
    let statements: [SQLStatement]
    private var built = false

    /// Core Data's indexes of a store laid out as `layout`.
    init(layout: StoreLayout) {
        statements = StoreSchema(layout: layout).indexes.map(\.statement)
    }

    /// Drops them from the (still empty) destination store `main`.
    static func drop(on connection: StoreConnection, layout: StoreLayout) throws -> DeferredIndexes {
        try connection.execute(StoreSchema(layout: layout).indexes.map(\.dropStatement))
        return DeferredIndexes(layout: layout)
    }

    /// Builds the indexes, the first time it is called; `each` hears each index as it is built.
    func create(on connection: StoreConnection, each: () -> Void = {}) throws {
        guard !built else { return }
        try connection.buildIndexes(statements, built: each)
        built = true
    }
}
