import Foundation
import ObjectModel
import SQLiteStore

/// What a manager reads and writes through for the whole step, kept apart from what
/// ``MigrationManager`` offers policies: the connection with both stores, their readers and
/// writer, the association table and the look-up indexes. Fixed once the step starts; what
/// changes while a pass runs is the pass's own (``PassState``). The manager holds one; a policy
/// never sees it.
final class StepStores {
    /// The destination store's connection, with the source attached as `src` and the work
    /// database as `work`: everything the pass reads and writes goes through it.
    let connection: StoreConnection
    /// The source store, for reading a row-by-row mapping's instances ahead on a second connection.
    let sourceStore: PersistentStore
    /// The store's UUID (`Z_METADATA.Z_UUID`), which the new store keeps: what an object ID's URI
    /// names (`x-coredata://<UUID>/<Entity>/p<Z_PK>`), read once.
    lazy var storeUUID: String? = try? sourceStore.metadata().uuid
    let sourceLayout: StoreLayout
    let destinationLayout: StoreLayout
    let sourceReader: ObjectReader
    let destinationReader: ObjectReader
    let writer: ObjectWriter
    let associations: AssociationTable
    /// Indexes (on the destination) and indexed copies (of the source, in the work database)
    /// that keep every look-up a policy makes O(log n); dropped at the end of each pass.
    let sourceLookups: LookupIndexes, destinationLookups: LookupIndexes
    let cancellation: CancellationToken

    init(
        connection: StoreConnection, sourceStore: PersistentStore, sourceLayout: StoreLayout,
        destinationLayout: StoreLayout, destinationPath: String,
        cancellation: CancellationToken
    ) {
        self.connection = connection
        self.sourceStore = sourceStore
        self.sourceLayout = sourceLayout
        self.destinationLayout = destinationLayout
        // The source is attached read-only: what it has no index for is copied into `work`, indexed.
        sourceLookups = LookupIndexes(connection: connection, schema: "src", copiesInto: AssociationTable.schema)
        destinationLookups = LookupIndexes(connection: connection, schema: "main")
        sourceReader = ObjectReader(
            connection: connection, layout: sourceLayout, schema: "src", path: sourceStore.path, lookups: sourceLookups)
        destinationReader = ObjectReader(
            connection: connection, layout: destinationLayout, schema: "main", path: destinationPath,
            lookups: destinationLookups)
        writer = ObjectWriter(connection: connection, layout: destinationLayout, schema: "main", path: destinationPath)
        writer.checksRequiredValues = false
        associations = AssociationTable(connection: connection, sourceLayout: sourceLayout)
        self.cancellation = cancellation
    }
}
