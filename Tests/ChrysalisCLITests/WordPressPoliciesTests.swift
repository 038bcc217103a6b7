import ChrysalisCLI
import Foundation
import GRDB
import TestSupport
import XCTest

/// A third shipped app's mapping models (WordPress for iOS), run with a policy an app team writes
/// against `ChrysalisCLI` alone, as `OwnPoliciesTests` does for the objc.io Books app. WordPress
/// 22 → 23 adds `Account.uuid`; its mapping model names the custom policy
/// `WordPress.AccountToAccount22to23` for the accounts. The policy here (written for this test,
/// not the app's) gives every account its identifier in `end`, once all are migrated: it lists
/// every destination account, Core Data's fetch with no predicate, and keeps what it assigned
/// for the rest of the run.
final class WordPressPoliciesTests: FixtureTestCase {
    static let folder = Fixtures.root.appendingPathComponent("wordpress-ios/WordPress/Classes")

    /// Accounts and the identifiers the policy gave them, kept for the whole run.
    enum AssignedIdentifiers: MigrationStateKey { typealias Value = [ObjectID: String] }

    struct AccountIdentifiers: EntityMigrationPolicy {
        func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
            let assigned = manager.runState(AssignedIdentifiers.self) { [:] }
            for account in try manager.destinationInstances(of: "Account") {
                let identifier = UUID().uuidString
                try manager.setDestinationValues(account, ["uuid": .string(identifier)])
                assigned.value[account] = identifier
            }
        }
    }

    func testTheAccountsPolicyGivesEveryMigratedAccountItsIdentifier() throws {
        let bundle = try ModelBundle.read(at: Self.folder.appendingPathComponent("WordPress.xcdatamodeld"))
        let mapping = try XCMappingReader.read(
            at: Self.folder.appendingPathComponent("Utility/Migrations/WordPress-22-23.xcmappingmodel"))
        let store = try scratchDirectory().appendingPathComponent("WordPress.sqlite").path
        let made = try ChrysalisRunner.run([
            "fixture", Self.folder.appendingPathComponent("WordPress.xcdatamodeld").path,
            "--version", "WordPress 22", "--rows", "30", "--out", store,
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let accounts =
            try DatabaseQueue(path: store).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM ZACCOUNT") } ?? 0
        XCTAssertGreaterThan(accounts, 0)

        let plan = try MigrationPlan.make(store: store, bundle: bundle, mappings: [mapping], to: "WordPress 23")
        XCTAssertEqual(plan.steps.map(\.kind.name), ["mapping"])
        XCTAssertThrowsError(try plan.requirePolicies(PolicyRegistry())) { error in
            XCTAssertTrue("\(error)".contains("AccountToAccount names WordPress.AccountToAccount22to23"), "\(error)")
        }
        var policies = PolicyRegistry()
        policies.register("WordPress.AccountToAccount22to23") { AccountIdentifiers() }
        // The mapping names a second policy for reader topics; this app team's does what Core
        // Data's default policy does.
        policies.register("SafeReaderTopicToReaderTopic") { DefaultEntityMigrationPolicy() }
        try plan.requirePolicies(policies)
        let options = MigrationOptions(policies: policies)
        _ = try MigrationRunner.run(plan, store: store, options: options, keepBackup: false)

        let identifiers = try DatabaseQueue(path: store).read {
            try String.fetchAll($0, sql: "SELECT ZUUID FROM ZACCOUNT WHERE ZUUID IS NOT NULL")
        }
        XCTAssertEqual(identifiers.count, accounts, "every account, migrated, has its identifier")
        XCTAssertEqual(Set(identifiers).count, accounts, "each its own")
        let kept = options.runState.state(AssignedIdentifiers.self) { [:] }.value
        XCTAssertEqual(Set(kept.values), Set(identifiers), "the run's state holds what the policy assigned")
    }
}
