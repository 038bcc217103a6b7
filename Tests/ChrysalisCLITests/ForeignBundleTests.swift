import Foundation
import TestSupport
import XCTest

/// `--model` naming another app's bundle is one typo on a command line: a store at no version of
/// it whose plan would drop most of its entities is refused, each loss named with its rows, until
/// the user says the loss is meant; then `migrate` names every loss it made, as `plan` did.
final class ForeignBundleTests: FixtureTestCase {
    func testAnotherAppsBundleIsRefusedUntilTheLossIsAcceptedInSoManyWords() throws {
        let folder = try scratchDirectory()
        let wire = try Fixtures.copyStore(
            Fixtures.root.appendingPathComponent("wire-ios-data-model/Tests/Resources/store2-74-0.wiredatabase"),
            into: folder
        )
        .path
        let books = ChrysalisRunner.demoResources.appendingPathComponent("BookStore.xcdatamodeld").path
        let before = try Data(contentsOf: URL(fileURLWithPath: wire))
        for command in ["plan", "migrate"] {
            let refused = try ChrysalisRunner.run([command, wire, "--model", books])
            XCTAssertEqual(refused.status, 1, "\(command): \(refused.stdout)")
            XCTAssertTrue(
                refused.stderr.contains(
                    "is at no version of BookStore, and migrating it to BookStore 5 would drop 18 of its 18 entities"),
                refused.stderr)
            XCTAssertTrue(refused.stderr.contains("entity Conversation removed (21 rows)"), refused.stderr)
            XCTAssertTrue(refused.stderr.contains("say so with --accept-foreign-model"), refused.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: wire)), before, "\(command): nothing written")
        }
        let accepted = try ChrysalisRunner.run(["migrate", wire, "--model", books, "--accept-foreign-model"])
        XCTAssertEqual(accepted.status, 0, accepted.stderr)
        XCTAssertTrue(accepted.stdout.contains("Data dropped, as planned (18"), accepted.stdout)
        XCTAssertTrue(
            accepted.stdout.contains(
                "the store's own model (Z_MODELCACHE) → BookStore 5: entity Conversation removed (21 rows)"),
            accepted.stdout)
        XCTAssertFalse(accepted.stdout.contains("Every row is unchanged"), accepted.stdout)
    }

    /// The store's own bundle with a version that drops an entity: not another app's, so it
    /// migrates as Core Data would, and the loss is said in the result too.
    func testADropWithinTheStoresOwnBundleMigratesAndIsSaid() throws {
        let folder = try scratchDirectory()
        let wire = try Fixtures.copyStore(
            Fixtures.root.appendingPathComponent("wire-ios-data-model/Tests/Resources/store2-3.wiredatabase"),
            into: folder
        ).path
        let bundle = Fixtures.root.appendingPathComponent("wire-ios-data-model/Resources/zmessaging.xcdatamodeld").path
        let plan = try ChrysalisRunner.run(["plan", wire, "--model", bundle, "--json"])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        let migrated = try ChrysalisRunner.run(["migrate", wire, "--model", bundle])
        XCTAssertEqual(migrated.status, 0, migrated.stderr)
        // Every loss the plan named with rows is named by the result, word for word.
        let planned = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let steps = try XCTUnwrap(planned["steps"] as? [[String: Any]])
        let drops = steps.flatMap { step in
            ((step["changes"] as? [[String: Any]]) ?? []).filter {
                ["entityRemoved", "removed", "linksDropped"].contains($0["kind"] as? String)
            }
        }
        for drop in drops {
            XCTAssertTrue(
                migrated.stdout.contains(try XCTUnwrap(drop["entity"] as? String)),
                "\(drop) missing from: \(migrated.stdout)")
        }
        XCTAssertFalse(drops.isEmpty, "the premise: Wire 2.3 → current drops PersonalInvitation and more")
        XCTAssertTrue(migrated.stdout.contains("Data dropped, as planned (\(drops.count)):"), migrated.stdout)
    }
}
