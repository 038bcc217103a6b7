import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// Collects progress notifications posted while a migration runs (the test's own thread posts them).
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [MigrationProgress] = []
    private var observer: NSObjectProtocol?
    var onProgress: ((MigrationProgress) -> Void)?

    init() {
        observer = NotificationCenter.default.addObserver(
            forName: MigrationProgress.notification, object: nil, queue: nil
        ) { [weak self] note in
            guard let self, let progress = note.migrationProgress else { return }
            self.lock.withLock { self.items.append(progress) }
            self.onProgress?(progress)
        }
    }

    deinit { observer.map(NotificationCenter.default.removeObserver) }

    var values: [MigrationProgress] { lock.withLock { items } }
}

final class ProgressAndCancelTests: XCTestCase {
    private func run(_ path: String, options: MigrationOptions) throws -> MigrationReport {
        let bundle = try bookStore()
        return try MappingMigration.run(
            store: path, from: try version(bundle, "BookStore 3"), to: try version(bundle, "BookStore 4"),
            mappings: [try DemoResources.mapping("BookStore3To4")], options: options)
    }

    func testProgressIsMonotonicEndsOnceAndFollowsMappingOrder() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let log = ProgressLog()
        _ = try run(path, options: MigrationOptions(policies: DemoResources.policies, chunkSize: 1))
        let values = log.values
        XCTAssertGreaterThanOrEqual(values.count, 10, "every stage and mapping change is posted")
        for (earlier, later) in zip(values, values.dropFirst()) {
            XCTAssertLessThanOrEqual(earlier.fraction, later.fraction, "fractions never go back")
        }
        XCTAssertEqual(values.filter { $0.fraction == 1.0 }.count, 1, "1.0 is reached exactly once")
        XCTAssertEqual(values.last?.fraction, 1.0)
        XCTAssertEqual(values.last?.stage, .done)
        let order = ["CategoryToCategory", "PublicationToPublication", "PageToPage"]
        func mappings(in stage: MigrationProgress.Stage) -> [String] {
            values.filter { $0.stage == stage }.compactMap(\.entityMapping).reduce(into: []) {
                if $0.last != $1 { $0.append($1) }
            }
        }
        XCTAssertEqual(mappings(in: .createInstances), order)
        XCTAssertEqual(mappings(in: .createRelationships), order)
        let stages = values.map(\.stage).reduce(into: [MigrationProgress.Stage]()) {
            if $0.last != $1 { $0.append($1) }
        }
        XCTAssertEqual(stages, [.createInstances, .createRelationships, .indexes, .validate, .verify, .swap, .done])
        XCTAssertEqual(
            values.first { $0.entityMapping == "PublicationToPublication" && $0.stage == .createInstances }?.rowsTotal,
            6)
    }

    /// Step mode's pauses are not the migration's time (issue 31 §5): a plan paused for a second
    /// after each entity mapping and after each step reports elapsed time, an ETA basis and step
    /// times without them.
    func testPausedTimeCountsNeitherInElapsedTimeNorInStepTimes() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let log = ProgressLog()
        var options = MigrationOptions(policies: DemoResources.policies)
        options.pauseAfterEntityMapping = { _ in Thread.sleep(forTimeInterval: 0.4) }
        // When each step ended, on the wall clock: its step time lies within its span.
        // (afterStep runs on the runner's thread, which has returned before they are read.)
        final class StepEnds: @unchecked Sendable { var dates: [Date] = [] }
        let stepEnds = StepEnds()
        options.afterStep = { _ in
            stepEnds.dates.append(Date())
            Thread.sleep(forTimeInterval: 0.4)
        }
        let plan = try MigrationPlan.make(
            store: path, bundle: try bookStore(),
            mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")],
            strategy: .iterative)
        XCTAssertEqual(plan.steps.count, 2)
        let started = Date()
        let report = try MigrationRunner.run(plan, store: path, options: options)
        let wall = Date().timeIntervalSince(started)
        // 3 + 3 entity mappings and 2 steps, each paused 0.4 s: 3.2 s of pauses. Whatever the
        // machine's speed, a clock that leaves them out reads at least that much less than the
        // wall clock around it; none of these bounds says how fast the work went.
        XCTAssertGreaterThan(wall, 3.2, "the premise: the pauses happened")
        let elapsed = try XCTUnwrap(log.values.last?.elapsed)
        XCTAssertLessThan(elapsed, wall - 2.4, "elapsed leaves the pauses out: \(elapsed) s of \(wall) s")
        let ends = stepEnds.dates
        XCTAssertEqual(ends.count, report.steps.count)
        for (index, (step, end)) in zip(report.steps, ends).enumerated() {
            // Each step's span holds its three entity mappings' pauses (1.2 s), and after the
            // first also the previous step's afterStep pause, which is not the step's either.
            let span = end.timeIntervalSince(index == 0 ? started : ends[index - 1])
            XCTAssertLessThanOrEqual(
                step.duration, span - 1.2 + 0.01,
                "\(step.sourceVersion) → \(step.destinationVersion): \(step.duration) s of work in a span of \(span) s, 1.2 s of it paused"
            )
        }
    }

    func testCancelAtAnyPointLeavesTheSourceUntouched() throws {
        let points: [(MigrationProgress) -> Bool] = [
            { $0.stage == .createInstances && $0.entityMappingIndex == 1 },
            { $0.stage == .createInstances && $0.entityMappingIndex == 3 },
            { $0.stage == .createRelationships && $0.entityMappingIndex == 1 },
            { $0.stage == .createRelationships && $0.entityMappingIndex == 3 },
        ]
        for (index, point) in points.enumerated() {
            let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
            try makeBookStore3(at: path)
            let before = try digest(path)
            let token = CancellationToken()
            let log = ProgressLog()
            log.onProgress = { if point($0) { token.cancel() } }
            XCTAssertThrowsError(
                try run(
                    path, options: MigrationOptions(policies: DemoResources.policies, cancellation: token, chunkSize: 1)
                )
            ) { error in
                XCTAssertEqual((error as? MigrationError)?.kind, .cancelled, "point \(index): \(error)")
            }
            XCTAssertEqual(try digest(path), before, "point \(index): the source is byte-identical")
            XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite"], "point \(index): nothing left behind")
            XCTAssertFalse(log.values.contains { $0.fraction == 1.0 })
            // The next run finishes the job.
            XCTAssertNoThrow(try run(path, options: MigrationOptions(policies: DemoResources.policies)))
        }
    }

    func testAFailingPolicyLeavesTheSourceUntouched() throws {
        final class Counter: @unchecked Sendable { var value = 0 }
        struct FailingPolicy: EntityMigrationPolicy {
            let counter: Counter
            func createDestinationInstances(
                forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
            ) throws {
                counter.value += 1
                if counter.value == 3 { throw MigrationError(.evaluation, "the policy gave up on its third book") }
                try PublicationToPublicationMigrationPolicy().createDestinationInstances(
                    forSource: source, in: mapping, manager: manager)
            }
        }
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let before = try digest(path)
        var policies = PolicyRegistry()
        let counter = Counter()
        policies.register("PublicationToPublicationMigrationPolicy") { FailingPolicy(counter: counter) }
        XCTAssertThrowsError(try run(path, options: MigrationOptions(policies: policies, chunkSize: 2))) { error in
            XCTAssertEqual("\(error)", "the policy gave up on its third book")
        }
        XCTAssertEqual(try digest(path), before)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite"])
    }
}
