import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// One worked example as a runnable demo: its bundle and mapping models, the rows the source
/// text starts with, and the stops along the way with the queries that show what changed.
public struct DemoExample: Sendable {
    /// A query the demo shows, as the worked example would in `sqlite3`.
    public struct Query: Sendable {
        /// What the query shows.
        public var title: String
        /// The SQL.
        public var sql: String
    }

    /// A version the demo migrates to, what it does there, and what it shows.
    public struct Stop: Sendable {
        /// The version to reach.
        public var version: String
        /// What the step there teaches that the plan cannot say by itself (a custom policy, a hook).
        public var lesson: String?
        /// What to show once the version is reached.
        public var queries: [Query]
        /// Work the demo itself does on the store there, as the worked example's text does (the
        /// BookStore text assigns authors), said before it is done: it is not the migration's.
        public var action: Action?

        /// A stop at `version`.
        init(version: String, lesson: String? = nil, queries: [Query], action: Action? = nil) {
            (self.version, self.lesson, self.queries, self.action) = (version, lesson, queries, action)
        }
    }

    /// The demo's own work at a stop: what it is, the work, and what to show after it.
    public struct Action: Sendable {
        /// What the demo is about to do and why, for people.
        public var announcement: String
        /// The work; it tells its rows done of the total as it goes, so what shows it can move.
        public var work: @Sendable (PersistentStore, ModelBundle.Version, _ rowsDone: (Int, Int) -> Void) throws -> Void
        /// What to show afterwards.
        public var queries: [Query]
    }

    /// The demo's name on the command line.
    public var name: String
    /// The store's file name, without `.sqlite`.
    public var storeName: String
    /// One line on what it shows: `demo --list` prints it, and the README's table says the same.
    public var summary: String
    /// The model bundle.
    public var bundle: @Sendable () throws -> ModelBundle
    /// The mapping models, in the order passes must run.
    public var mappings: @Sendable () throws -> [MappingModel]
    /// The version the demo starts at.
    public var startVersion: String
    /// Creates the starting store with the source text's rows.
    public var makeStore: @Sendable (_ path: String, _ version: ModelBundle.Version) throws -> Void
    /// Where it stops, in order.
    public var stops: [Stop]
    /// Queries shown before migrating.
    public var before: [Query]
    /// How the demo migrates, when not by the default route (a staged migration with its
    /// handlers), given the demo's bundle (stages name its versions by checksum).
    public var strategy: (@Sendable (ModelBundle) throws -> MigrationStrategy)? = nil
}

/// Every demo, in the order `chrysalis demo --list` shows them.
public enum DemoCatalog {
    /// All demos.
    public static let all: [DemoExample] = [
        BookStoreDemo.example, BooksDemo.example, RecipesDemo.example, GroceriesDemo.example, StagedDemo.example,
    ]

    /// The demo called `name`.
    public static func example(named name: String) -> DemoExample? { all.first { $0.name == name.lowercased() } }

    /// Creates a store for `version` and fills it with `body`.
    static func create(_ path: String, _ version: ModelBundle.Version, _ body: (ObjectWriter) throws -> Void) throws {
        let store = try PersistentStore.create(at: path, model: version.model)
        try store.writeObjects(StoreLayout(model: version.model), body)
        try store.close()
    }
}
