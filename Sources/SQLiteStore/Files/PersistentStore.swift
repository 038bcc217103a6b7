import Foundation
internal import GRDB
import ObjectModel

/// A Core Data SQLite store on disk, opened read-only unless writing was asked for.
///
/// Opening checks the file before SQLite sees it (so a text file, an empty or truncated file each
/// get their own error), reads through the `-wal` sidecar, and registers the SQL functions that
/// Core Data's derived-attribute triggers call, so writes to such stores succeed.
public final class PersistentStore: Sendable {
    /// How a store is opened.
    public enum Mode: Sendable {
        /// Never writes to the file (the default for looking at a store).
        case readOnly
        /// Allows writes; refused when the file is read-only.
        case readWrite
    }

    /// The store file.
    public let path: String
    /// What the header said.
    package let file: StoreFileCheck
    /// How it was opened.
    public let mode: Mode
    let queue: DatabaseQueue
    /// The private copy read instead of the store, when the store cannot be read where it is.
    private let readOnlyCopy: ReadOnlyCopy?
    /// A read-only open's `-shm` as it was before, put back on close (``SharedMemoryFile``).
    private let sharedMemory: SharedMemoryFile?

    private init(
        path: String, file: StoreFileCheck, mode: Mode, queue: DatabaseQueue, readOnlyCopy: ReadOnlyCopy? = nil,
        sharedMemory: SharedMemoryFile? = nil
    ) {
        self.path = path
        self.file = file
        self.mode = mode
        self.queue = queue
        self.readOnlyCopy = readOnlyCopy
        self.sharedMemory = sharedMemory
    }

    deinit {
        guard let sharedMemory else { return }
        try? queue.close()
        sharedMemory.putBack()
    }

    /// Opens the store at `path`, checking that it is a Core Data store. A read-only open never
    /// writes: a store a crashed writer left with an unfinished transaction is reported, not rolled
    /// back (``recoverInterruptedTransaction(at:)`` does that, for a command that will write).
    ///
    /// - Parameters:
    ///   - path: The store file (`.sqlite`); a `-wal` beside it is read too.
    ///   - mode: `.readOnly` (the default) never writes; `.readWrite` first rolls back a
    ///     transaction a crashed writer left, and is refused for a read-only file.
    /// - Returns: The open store.
    /// - Throws: A `StoreError` whose `kind` says why: the file is missing, not SQLite, empty,
    ///   truncated, not a Core Data store, read-only, or SQLite failed.
    public static func open(at path: String, mode: Mode = .readOnly) throws -> PersistentStore {
        if mode == .readWrite { try rollBackHotJournal(path) }
        let file = try StoreFileCheck.check(path)
        if mode == .readWrite { try requireWritable(path) }
        let queue: DatabaseQueue
        let copy = mode == .readOnly ? try ReadOnlyCopy.ifNeeded(for: path, file: file) : nil
        let sharedMemory = mode == .readOnly && copy == nil && file.isWAL ? SharedMemoryFile(store: path) : nil
        do {
            queue = try DatabaseQueue(
                path: copy?.path ?? connectionPath(path, file: file, mode: mode),
                configuration: configuration(readOnly: mode == .readOnly))
        } catch {
            throw StoreError.from(error, path: path)
        }
        let store = PersistentStore(
            path: path, file: file, mode: mode, queue: queue, readOnlyCopy: copy, sharedMemory: sharedMemory)
        try store.requireCoreDataTables()
        return store
    }

    /// Creates a new, empty store for `model` at `path` (which must not exist yet): Core Data's
    /// tables, indexes, `Z_PRIMARYKEY` and `Z_METADATA`, in WAL mode with incremental vacuum.
    /// With `replacingEmptyFile`, `path` may already exist as an empty file (made by the caller
    /// with the permissions the store must have); SQLite takes an empty file as an empty database.
    package static func create(
        at path: String, model: ManagedObjectModel, uuid: String = UUID().uuidString,
        replacingEmptyFile: Bool = false, pages: PageSettings = .coreData
    ) throws -> PersistentStore {
        // Known by what is at the name, not by where a link leads: SQLite would follow a link
        // (a dangling one too) and make the store wherever it points.
        var info = stat()
        let existing: Int? = lstat(path, &info) == 0 ? Int(info.st_size) : nil
        if existing != nil, info.st_mode & S_IFMT != S_IFREG {
            throw StoreError(
                .sqlite, path: path,
                "is \(info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a regular file"); Chrysalis makes a store only at a free name",
                fix: "choose a new path")
        }
        guard existing == nil || (replacingEmptyFile && existing == 0) else {
            throw StoreError(
                .sqlite, path: path, "already exists; Chrysalis never overwrites a store",
                fix: "choose a new path or remove the file")
        }
        let layout = StoreLayout(model: model)
        if let problem = SQLiteLimits.problems(of: layout).first {
            throw StoreError(
                .sqlite, path: path, "cannot be made: entity \(problem.entity): \(problem.message)", fix: problem.fix)
        }
        let schema = StoreSchema(layout: layout)
        let metadata = StoreMetadata(model: model, uuid: uuid)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: false))
            try queue.writeWithoutTransaction { db in
                // The page size first: setting auto-vacuum to full or incremental on an empty file
                // fixes its page size at the default (sqlite3 shows it: 4096 after 1024 was asked).
                try db.execute(sql: "PRAGMA page_size = \(pages.pageSize); PRAGMA auto_vacuum = \(pages.autoVacuum)")
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                try db.inTransaction {
                    for statement in schema.statements { try db.execute(sql: statement) }
                    try StoreBookkeeping.initialize(db, numbering: layout.numbering, metadata: metadata)
                    return .commit
                }
            }
            return PersistentStore(path: path, file: try StoreFileCheck.check(path), mode: .readWrite, queue: queue)
        } catch {
            // A store that could not be made whole is not left half made at a name that was free.
            if existing == nil { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
            if let error = error as? StoreError { throw error }
            throw StoreError.from(error, path: path)
        }
    }

    /// The store's page size and auto-vacuum mode, which a store made from it keeps.
    package func pageSettings() throws -> PageSettings {
        try read { db in
            PageSettings(
                pageSize: try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096,
                autoVacuum: try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") ?? 2)
        }
    }

    /// The store's metadata (`Z_METADATA`).
    package func metadata() throws -> StoreMetadata {
        try read { db in try StoreBookkeeping.metadata(db, path: path) }
    }

    /// The two header fields an app may set for itself (`PRAGMA user_version`, `PRAGMA
    /// application_id`): Core Data leaves them alone, so a store that is a new file must carry them.
    package func appHeaderFields() throws -> (userVersion: Int32, applicationID: Int32) {
        try read { db in
            (
                Int32(truncatingIfNeeded: try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0),
                Int32(truncatingIfNeeded: try Int.fetchOne(db, sql: "PRAGMA application_id") ?? 0)
            )
        }
    }

    /// Sets the fields ``appHeaderFields()`` reads.
    package func setAppHeaderFields(userVersion: Int32, applicationID: Int32) throws {
        guard userVersion != 0 || applicationID != 0 else { return }
        try write { db in
            try db.execute(sql: "PRAGMA user_version = \(userVersion)")
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        }
    }

    /// SQLite's `PRAGMA data_version` on this store's connection: it changes whenever another
    /// connection commits to the store, whatever the file's size and times say.
    package func dataVersion() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }

    /// Replaces the store's metadata (plist and UUID).
    package func writeMetadata(_ metadata: StoreMetadata) throws {
        try write { db in try StoreBookkeeping.writeMetadata(db, metadata, uuid: true) }
    }

    /// What every report calls the model ``cachedModel()`` reads, where it stands for a version:
    /// one name, so that the plan, the journal, `inspect` and the console agree on it.
    package static let cachedModelName = "the store's own model (Z_MODELCACHE)"

    /// The model the store was last saved with, from `Z_MODELCACHE`; `nil` when the store has
    /// none (stores from before 2015).
    package func cachedModel() throws -> ManagedObjectModel? {
        let blob: Data? = try read { db in
            guard try db.tableExists("Z_MODELCACHE"),
                let value = try DatabaseValue.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE")
            else { return nil }
            return try CheckedColumn(path: path, table: "Z_MODELCACHE", column: "Z_CONTENT").blob(value)
        }
        guard let blob else { return nil }
        let source = "\(path) (Z_MODELCACHE)"
        do {
            return try ArchivedModelReader.read(try Inflate.raw(blob), source: source)
        } catch let failure as Inflate.Failure {
            throw ModelFileError(
                file: source, problem: "cannot be inflated: \(failure.description)",
                fix: "open the store with its .xcdatamodeld instead (--model)")
        }
    }

    /// Closes the connection; the store must not be used afterwards. Lets a finished store be
    /// renamed without SQLite holding it open.
    ///
    /// - Throws: A `StoreError` when SQLite cannot close the connection.
    public func close() throws {
        do { try queue.close() } catch { throw StoreError.from(error, path: path) }
        sharedMemory?.putBack()
    }

    /// The SQLite URI that opens this store read-only from another connection (`ATTACH`), with the
    /// same care as ``open(at:mode:)``: immutable when a WAL store has no `-wal` to read.
    package var readOnlyURI: String {
        let escaped = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
        return "file:\(escaped)?" + (file.isWAL && file.walPath == nil ? "immutable=1" : "mode=ro")
    }

    /// A second, read-only connection to this store while this process writes it through the
    /// first: in WAL mode a reader sees the last commit and never a transaction in progress, so
    /// while the writer holds the write lock it reads the store as that transaction found it.
    /// Nil for a rollback-journal store, whose readers would hold the writer off its commit.
    package func snapshotReader() throws -> PersistentStore? {
        guard file.isWAL else { return nil }
        do {
            // Never immutable: the file is being written.
            let queue = try DatabaseQueue(path: path, configuration: Self.configuration(readOnly: true))
            return PersistentStore(path: path, file: file, mode: .readOnly, queue: queue)
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    /// Runs `body` on the store's own connection outside any transaction, for work that manages
    /// its own transactions and attachments (the migration engine). Needs a writable store.
    ///
    /// ```swift
    /// try store.withConnection { connection in
    ///     try connection.inTransaction {
    ///         try connection.execute(SQLStatement("UPDATE ZBOOK SET ZPRICE = ZPRICE * ?", [.real(1.04)]))
    ///     }
    /// }
    /// ```
    package func withConnection<T>(_ body: (StoreConnection) throws -> T) throws -> T {
        guard mode == .readWrite else {
            throw StoreError(
                .readOnly, path: path, "was opened read-only", fix: "open it with mode .readWrite to change it")
        }
        do {
            return try queue.writeWithoutTransaction { db in try body(StoreConnection(db: db, path: path)) }
        } catch let error as DatabaseError {
            throw StoreError.from(error, path: path)
        }
    }

    /// Runs `body` on the store's connection inside one read transaction, where nothing can be
    /// written: what a plan reads the store's schema through (and what a test checks a store with).
    package func withReadConnection<T>(_ body: (StoreConnection) throws -> T) throws -> T {
        try read { db in try body(StoreConnection(db: db, path: path)) }
    }

    /// Runs `body` in a read transaction; SQLite failures become ``StoreError``s.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.read(body) } catch let error as DatabaseError { throw StoreError.from(error, path: path) }
    }

    /// Runs `body` in a write transaction (rolled back if it throws).
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        guard mode == .readWrite else {
            throw StoreError(
                .readOnly, path: path, "was opened read-only", fix: "open it with mode .readWrite to change it")
        }
        do { return try queue.write(body) } catch let error as DatabaseError {
            throw StoreError.from(error, path: path)
        }
    }

    private func requireCoreDataTables() throws {
        let missing: [String] = try read { db in
            try ["Z_METADATA", "Z_PRIMARYKEY"].filter { try !db.tableExists($0) }
        }
        guard missing.isEmpty else {
            // SQLite reads a store through the -wal beside it, whatever database wrote that -wal:
            // one copied from another database shows that database instead.
            let wal = FileManager.default.fileExists(atPath: StoreFiles.wal(of: path))
            throw StoreError(
                .notCoreData, path: path,
                "is a SQLite database but not a Core Data store (no \(missing.joined(separator: " or ")) table)"
                    + (wal ? ", as read through the -wal beside it" : ""),
                fix: wal
                    ? """
                    if the -wal was copied from another database, put back the store's own -wal (or move the store \
                    without it, if it was closed cleanly)
                    """
                    : "give the path of a store written by Core Data or Chrysalis")
        }
    }

    /// A WAL store without a `-wal` file has nothing in a WAL to read; opening it read-only as
    /// usual would still create empty `-wal` and `-shm` files beside it. Opening it immutable
    /// reads the same data and leaves the directory as it was.
    private static func connectionPath(_ path: String, file: StoreFileCheck, mode: Mode) -> String {
        guard mode == .readOnly, file.isWAL, file.walPath == nil else { return path }
        let escaped = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
        return "file:\(escaped)?immutable=1"
    }

    /// Rolls back the transaction a writer that died left in the store's rollback journal, as
    /// SQLite does on the first open that may write: what a migration must do before it plans,
    /// because until then the store cannot be read. Does nothing when there is no such journal.
    ///
    /// - Parameter path: The store file whose `-journal` may hold the unfinished transaction.
    /// - Throws: A `StoreError`: `.readOnly` when the store cannot be written to roll it back, or
    ///   SQLite's failure.
    public static func recoverInterruptedTransaction(at path: String) throws {
        try rollBackHotJournal(path)
    }

    /// A rollback journal left by a process that died mid-transaction must be rolled back before
    /// the store is read: SQLite does it on the first open that may write, but a read-only open
    /// cannot, and fails. So a writable store with a `-journal` is first opened to read once
    /// (SQLite rolls it back only when no live process holds the transaction).
    private static func rollBackHotJournal(_ path: String) throws {
        let journal = StoreFiles.journal(of: path)
        guard let size = (try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? NSNumber,
            size.intValue > 0
        else { return }
        do {
            try requireWritable(path)
        } catch {
            throw StoreError(
                .readOnly, path: path,
                """
                has an unfinished transaction in \(journal) that SQLite must roll back first, but the store is \
                read-only
                """,
                fix:
                    """
                    make it writable (chmod u+w) and run again: SQLite restores the store as it was before that \
                    transaction
                    """
            )
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: false))
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            try queue.close()
        } catch {
            throw StoreError.from(error, path: path)
        }
    }

    private static func requireWritable(_ path: String) throws {
        // Root ignores permission bits, so look at them rather than asking access(2).
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let permissions = (attributes?[.posixPermissions] as? NSNumber)?.intValue ?? 0o644
        if permissions & 0o222 == 0 || access(path, W_OK) != 0 {
            throw StoreError(
                .readOnly, path: path, "is read-only (mode \(String(permissions, radix: 8)))",
                fix: "make it writable (chmod u+w) or work on a copy")
        }
    }

    private static func configuration(readOnly: Bool) -> GRDB.Configuration {
        var configuration = GRDB.Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(5)
        configuration.label = "chrysalis.store"
        configuration.prepareDatabase { db in
            // Core Data's derived-attribute triggers call these; plain SQLite has no such functions.
            for name in [
                "NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
            ] {
                db.add(function: DatabaseFunction(name, argumentCount: 5, pure: false) { _ in nil })
            }
            // Guards the arithmetic a migration compiles to SQL (overflow must stop it, not be written).
            CheckedArithmetic.install(in: db)
            StoreLog.installTrace(in: db)
        }
        return configuration
    }
}

/// A store file's page size and auto-vacuum mode: set when the file is made, before its first
/// table. A mapping step's new store takes its source's, so that a store an app tuned (a larger
/// page, no auto-vacuum) stays as it was.
package struct PageSettings: Equatable, Sendable {
    package var pageSize: Int
    /// SQLite's `auto_vacuum`: 0 none, 1 full, 2 incremental.
    package var autoVacuum: Int

    package init(pageSize: Int, autoVacuum: Int) {
        (self.pageSize, self.autoVacuum) = (pageSize, autoVacuum)
    }

    /// What Core Data makes a new store with: 4096-byte pages, incremental auto-vacuum.
    package static let coreData = PageSettings(pageSize: 4096, autoVacuum: 2)
}
