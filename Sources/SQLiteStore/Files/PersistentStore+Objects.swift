import Foundation
internal import GRDB
import ObjectModel

extension PersistentStore {
    /// Runs `body` with a reader over this store laid out as `layout`.
    package func readObjects<T>(_ layout: StoreLayout, _ body: (ObjectReader) throws -> T) throws -> T {
        try read { db in try body(ObjectReader(db: db, layout: layout, path: path)) }
    }

    /// Runs `body` with a writer in one transaction; committed when `body` returns, rolled back
    /// (nothing written) when it throws.
    package func writeObjects<T>(_ layout: StoreLayout, _ body: (ObjectWriter) throws -> T) throws -> T {
        try write { db in
            let writer = ObjectWriter(db: db, layout: layout, path: path)
            let result = try body(writer)
            try writer.finish()
            return result
        }
    }
}
