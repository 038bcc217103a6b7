import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// A mapping step writes a new store file: it takes the source's page size and auto-vacuum
/// mode, which an app may have tuned, instead of changing them silently to Core Data's defaults.
final class PageSettingsTests: XCTestCase {
    private func settings(_ path: String) throws -> PageSettings {
        try DatabaseQueue(path: path).read { db in
            PageSettings(
                pageSize: try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0,
                autoVacuum: try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") ?? -1)
        }
    }

    func testAMappingStepKeepsTheSourcesPageSizeAndAutoVacuum() throws {
        let bundle = try bookStore()
        let model = try version(bundle, "BookStore 3").model
        for settings in [PageSettings(pageSize: 8192, autoVacuum: 0), PageSettings(pageSize: 1024, autoVacuum: 1)] {
            let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
            let store = try PersistentStore.create(at: path, model: model, pages: settings)
            try DataGenerator(model: model).fill(store, rows: 20)
            try store.close()
            XCTAssertEqual(try self.settings(path), settings, "the premise: the source is made so")
            let plan = try MigrationPlan.make(
                store: path, bundle: bundle, mappings: [try DemoResources.mapping("BookStore3To4")],
                to: "BookStore 4")
            XCTAssertEqual(plan.steps.count, 1)
            _ = try MigrationRunner.run(
                plan, store: path,
                options: MigrationOptions(
                    policies: DemoResources.policies, configureManager: { try BookStoreSynopsis.install(on: $0) }),
                keepBackup: false)
            XCTAssertEqual(try self.settings(path), settings)
        }
    }
}
