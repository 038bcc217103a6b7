import Crypto
import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Stores and checks shared by the migration tests.
extension XCTestCase {
    func bookStore() throws -> ModelBundle { try ModelBundle.read(at: DemoResources.bookStoreBundle) }

    func version(_ bundle: ModelBundle, _ name: String) throws -> ModelBundle.Version {
        try XCTUnwrap(bundle.version(named: name), "no version \(name)")
    }

    /// The objc.io `Model1.sqlite` copied to `path` (writable), with `rows` generated rows per
    /// root entity added after its own books.
    func makeBooksModel1(at path: String, rows: Int, seed: UInt64 = 1) throws {
        try FileManager.default.copyItem(
            atPath: DemoResources.root.appendingPathComponent("Books/Model1.sqlite").path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let store = try PersistentStore.open(at: path, mode: .readWrite)
        try DataGenerator(
            model: try version(ModelBundle.read(at: DemoResources.booksBundle), "Model1").model, seed: seed
        ).fill(store, rows: rows)
        try store.close()
    }

    /// The four books of the worked example at BookStore 3 (with their authors and prices),
    /// plus an author without a space and a book without an author; two pages each.
    func makeBookStore3(at path: String) throws {
        let model = try version(try bookStore(), "BookStore 3").model
        let store = try PersistentStore.create(at: path, model: model)
        try store.writeObjects(StoreLayout(model: model)) { writer in
            let fiction = try writer.insert("Category", ["name": .string("Fiction")])
            let science = try writer.insert("Category", ["name": .string("Science")])
            let books: [(String, Double, String?)] = [
                ("The first book", 20, "John Doe"), ("The second book", 21, "Jane Doe"),
                ("The third book", 22, "Bill Smith"),
                ("The fourth book", 23, "Jack Brown"), ("Dialogues", 24, "Plato"), ("Anonymous pamphlet", 1, nil),
            ]
            for (index, book) in books.enumerated() {
                let id = try writer.insert(
                    "Publication",
                    [
                        "title": .string(book.0), "price": .double(book.1),
                        "author": book.2.map(StoreValue.string) ?? .null,
                    ])
                try writer.relate(id, "category", to: [index % 2 == 0 ? fiction : science])
                let pages = try (1...2).map { try writer.insert("Page", ["text": .string("\(book.0), page \($0)")]) }
                try writer.relate(id, "pages", to: pages)
            }
        }
        try store.close()
    }

    /// A generated Library 1 store (Benchmarks/Models) of `rows` rows per root entity, and the
    /// Library1To2 mapping model with its BookToBook mapping given the policy `make` makes: how
    /// the row-by-row tests drive a policy of their own through a real mapping.
    func libraryWithBookPolicy(rows: Int, seed: UInt64, _ make: @escaping @Sendable () -> EntityMigrationPolicy) throws
        -> (path: String, bundle: ModelBundle, mapping: MappingModel, policies: PolicyRegistry)
    {
        let models = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Benchmarks/Models")
        let bundle = try ModelBundle.read(at: models.appendingPathComponent("Library.xcdatamodeld"))
        let path = try scratchDirectory().appendingPathComponent("Library.sqlite").path
        let store = try PersistentStore.create(at: path, model: try version(bundle, "Library 1").model)
        try DataGenerator(model: try version(bundle, "Library 1").model, seed: seed).fill(store, rows: rows)
        try store.close()
        var mapping = try MappingYAMLReader.read(at: models.appendingPathComponent("Mappings/Library1To2.mapping.yaml"))
        let bookMapping = try XCTUnwrap(mapping.entityMappings.firstIndex { $0.name == "BookToBook" })
        mapping.entityMappings[bookMapping].policyName = "BookPolicy"
        var policies = PolicyRegistry()
        policies.register("BookPolicy", make)
        return (path, bundle, mapping, policies)
    }

    func digest(_ path: String) throws -> Data {
        Data(SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// Everything in the store's directory, so a test can see that nothing was left behind.
    func directoryListing(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
            .sorted()
    }

    func rows(_ path: String, _ sql: String) throws -> [[DatabaseValue]] {
        try DatabaseQueue(path: path).read { db in try Row.fetchAll(db, sql: sql).map { Array($0.databaseValues) } }
    }
}

/// Lines a migration's handlers or observers record as they run, from any thread, for a test to read after.
final class RecordedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
