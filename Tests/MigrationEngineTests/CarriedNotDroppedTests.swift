import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Say the loss, and only the loss: a property the destination no longer has but a mapping
/// reads is carried, and said so (WooCommerce 9 → 10 copies `$source.status` into `statusKey`;
/// the console once showed "Dropped, as planned: Order.status removed" in red). A custom policy
/// decides what becomes of its entity's properties; only what no entity mapping reads is lost.
final class CarriedNotDroppedTests: FixtureTestCase {
    private let model = Fixtures.root.appendingPathComponent("woocommerce-ios/Storage/Storage/Model")

    func testAPropertyAMappingReadsIsCarriedNotDropped() throws {
        let bundle = try ModelBundle.read(at: model.appendingPathComponent("WooCommerce.xcdatamodeld"))
        let mapping = try XCMappingReader.read(
            at: model.appendingPathComponent("WooCommerceModelV9toV10.xcmappingmodel"))
        let path = try scratchDirectory().appendingPathComponent("Woo.sqlite").path
        let version = try XCTUnwrap(bundle.version(named: "Model 9"))
        let store = try PersistentStore.create(at: path, model: version.model)
        try DataGenerator(model: version.model).fill(store, rows: 3)
        try store.close()
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: [mapping], to: "Model 10")
        let step = try XCTUnwrap(plan.steps.first)
        let status = try XCTUnwrap(step.changes.first { $0.entity == "Order" && $0.property == "status" })
        XCTAssertTrue(status.dropsData, "the destination has no Order.status")
        XCTAssertFalse(status.isLoss, "OrderToOrder reads it")
        XCTAssertEqual(status.carriedBy, "OrderToOrder reads it, into statusKey")
        XCTAssertTrue(
            step.findings.contains(
                "carried: Order.status removed, not in Model 10: OrderToOrder reads it, into statusKey"),
            "\(step.findings)")
        XCTAssertFalse(step.findings.contains { $0.hasPrefix("data dropped") }, "\(step.findings)")
    }

    /// What no entity mapping reads is lost, and said as a loss: the same step, with the
    /// mapping's `statusKey` expression taken away.
    func testAPropertyNoMappingReadsIsDropped() throws {
        let bundle = try ModelBundle.read(at: model.appendingPathComponent("WooCommerce.xcdatamodeld"))
        var mapping = try XCMappingReader.read(
            at: model.appendingPathComponent("WooCommerceModelV9toV10.xcmappingmodel"))
        let order = try XCTUnwrap(mapping.entityMappings.firstIndex { $0.name == "OrderToOrder" })
        mapping.entityMappings[order].attributeMappings.removeAll { $0.name == "statusKey" }
        let path = try scratchDirectory().appendingPathComponent("Woo.sqlite").path
        let version = try XCTUnwrap(bundle.version(named: "Model 9"))
        let store = try PersistentStore.create(at: path, model: version.model)
        try store.close()
        let step = try XCTUnwrap(
            try MigrationPlan.make(store: path, bundle: bundle, mappings: [mapping], to: "Model 10").steps.first)
        XCTAssertTrue(
            step.findings.contains("data dropped: Order.status removed (no entity mapping reads it)"),
            "\(step.findings)")
        XCTAssertEqual(step.changes.first { $0.property == "status" }?.isLoss, true)
    }
}
