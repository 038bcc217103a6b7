// swift-format-ignore-file
// The samples are the documents' code, line for line (DocsTruthTests): formatted as the documents show them.
// The Swift samples of the DocC articles and docs/, as they are printed there, so that the
// compiler checks every one of them: `DocsTruthTests.testEverySwiftSampleIsCompiled` fails when a
// sample in a document is not found here line for line (`import` lines aside, indentation free).
// Nothing here runs. Each sample sits in a function (or a type) that gives it the names its
// article takes as given (`manager`, `bundle`, `policies`…); a sample of declarations meant for
// a file of their own sits at file scope. After a sample, `_ = …` uses what it leaves unused.

import ChrysalisCLI
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// The policy the articles register without showing (`PublicationPolicy()`).
private struct PublicationPolicy: EntityMigrationPolicy {}

// MARK: ChrysalisCLI.docc/ChrysalisCLI.md

private func chrysalisCLIOverview() {
    var policies = PolicyRegistry()
    policies.register("MyApp.PublicationToPublicationMigrationPolicy") { PublicationPolicy() }
    Chrysalis.main(policies: policies)
}

// MARK: ChrysalisCLI.docc/BringYourOwnPolicy.md

public struct BookToBookPolicy: EntityMigrationPolicy {
    public init() {}

    public func createDestinationInstances(forSource book: ObjectID, in mapping: EntityMapping, manager: MigrationManager) throws {
        guard let copy = try manager.createDefaultDestinationInstance(forSource: book, in: mapping),
              case .string(let name)? = try manager.sourceObject(book).values["authorName"] else { return }
        let authors = manager.state(AuthorsMade.self) { [:] }
        let author = try authors.value[name] ?? manager.insertDestination("Author", ["name": .string(name)])
        authors.value[name] = author
        try manager.addDestination(copy, "authors", [author])
    }

    enum AuthorsMade: MigrationStateKey { typealias Value = [String: ObjectID] }
}

private struct EveryAccountPolicy: EntityMigrationPolicy {
    public func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        for account in try manager.destinationInstances(of: "Account") {
            try manager.setDestinationValues(account, ["uuid": .string(UUID().uuidString)])
        }
    }
}

private func runStateSample(manager: MigrationManager, name: String, account: ObjectID) {
    enum AccountsByUser: MigrationStateKey { typealias Value = [String: ObjectID] }
    let accounts = manager.runState(AccountsByUser.self) { [:] }
    accounts.value[name] = account
}

private struct AuthorDisplayPolicy: EntityMigrationPolicy {
    public func function(_ selector: String, arguments: [ExpressionValue], manager: MigrationManager) throws -> ExpressionValue? {
        guard selector == "authorDisplayForAuthors:" else { return nil }
        let names = try arguments.first?.objects.map { try manager.sourceObject($0.id).values["name"] } ?? []
        return .value(.string(names.compactMap { if case .string(let name)? = $0 { return name } else { return nil } }.joined(separator: ", ")))
    }
}

private func registerAndRun() {
    // Sources/myapp-migrator/main.swift
    var policies = PolicyRegistry()
    policies.register("MHWBookToBookPolicy") { BookToBookPolicy() }
    Chrysalis.main(policies: policies)
}

private func customiseTheManager(policies: PolicyRegistry) {
    Chrysalis.main(policies: policies) { manager in
        manager.userInfo["importedOn"] = "2026-11-26"
    }
}

// MARK: MigrationEngine.docc/MigrationEngine.md

private func engineOverview() throws {
    let bundle = try ModelBundle.read(at: URL(fileURLWithPath: "Model.xcdatamodeld"))
    let plan = try MigrationPlan.make(store: "Books.sqlite", bundle: bundle)
    let report = try MigrationRunner.run(plan, store: "Books.sqlite")
    print(report.backup ?? "no backup kept")
}

// MARK: MigrationEngine.docc/MigrateAStoreFromSwift.md

private func openAtTheCurrentVersion() throws {
    let bundle = try ModelBundle.read(at: URL(fileURLWithPath: "App.xcdatamodeld"))
    let store = try AutomaticMigration.openStore(at: "App.sqlite", bundle: bundle)
    _ = store
}

private func planFirst(bundle: ModelBundle) throws {
    let plan = try MigrationPlan.make(store: "App.sqlite", bundle: bundle, to: "App 7")
    for step in plan.steps {
        print(step.source.name, "→", step.destination.name, step.kind.name, step.reason)
        step.findings.forEach { print("  •", $0) }
    }
}

private func planWithMappings(bundle: ModelBundle) throws {
    var policies = PolicyRegistry()
    policies.register("MyApp.PublicationPolicy") { PublicationPolicy() }
    let mappings = [try XCMappingReader.read(at: URL(fileURLWithPath: "Model6to7.xcmappingmodel"))]
    let plan = try MigrationPlan.make(store: "App.sqlite", bundle: bundle, mappings: mappings)
    let report = try MigrationRunner.run(plan, store: "App.sqlite", options: MigrationOptions(policies: policies))
    _ = report
}

private func observeProgress(plan: MigrationPlan, policies: PolicyRegistry) throws {
    let options = MigrationOptions(policies: policies)
    let observation = options.progressChannel.observe { progress in
        print(progress.stage.rawValue, progress.rowsDone, "/", progress.rowsTotal, progress.unit.rawValue, progress.fraction)
    }
    defer { observation.cancel() }
    let report = try MigrationRunner.run(plan, store: "App.sqlite", options: options)
    _ = report
}

// MARK: MigrationEngine.docc/StageAMigration.md (its other samples are Examples/StagedMigrator's code)

/// The article's stages, which `Examples/StagedMigrator` declares.
private enum ShelfMigration {
    static func stages() throws -> StagedMigration { try StagedMigration([.lightweight(["x7LYeqsqh79E+gNnNE60vb5JZkuu2HBCoqjgWJyWpgg="])]) }
}

private func runTheStages(bundle: ModelBundle) throws {
    let stages = try ShelfMigration.stages()
    let plan = try MigrationPlan.make(store: "Shelf.sqlite", bundle: bundle, strategy: .staged(stages))
    let report = try MigrationRunner.run(plan, store: "Shelf.sqlite")
    _ = report
}

// MARK: MigrationEngine.docc/WriteAnEntityMigrationPolicy.md

private func writeAPolicy() {
    struct PublicationPolicy: EntityMigrationPolicy {
        func createDestinationInstances(forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager) throws {
            let object = try manager.sourceObject(source)
            var author = ""
            if case .string(let text)? = object.values["author"]?.plain { author = text }
            let parts = author.split(separator: " ", maxSplits: 1)
            let destination = try manager.insertDestination("Publication", [
                "title": object.values["title"] ?? .null,
                "firstName": parts.first.map { .string(String($0)) } ?? .null,
                "lastName": parts.dropFirst().first.map { .string(String($0)) } ?? .null,
            ])
            try manager.associate(source: source, destination: destination, mapping: mapping)
        }
    }

    var policies = PolicyRegistry()
    policies.register("MyApp.PublicationPolicy") { PublicationPolicy() }
    _ = policies
}

private func userInfoCopiesEveryRow(manager: MigrationManager, name: String, author: ObjectID) {
    var authors = manager.userInfo["authors"] as? [String: ObjectID] ?? [:]   // copies, every row
    authors[name] = author
    manager.userInfo["authors"] = authors
}

private func stateIsHeldByReference(manager: MigrationManager, name: String) throws {
    enum AuthorsByName: MigrationStateKey { typealias Value = [String: ObjectID] }

    let authors = manager.state(AuthorsByName.self) { [:] }
    let author = try authors.value[name] ?? manager.insertDestination("Author", ["name": .string(name)])
    authors.value[name] = author
}

// MARK: docs/Policies.md

private func userInfoIsACopy(manager: MigrationManager, name: String, author: ObjectID) {
    var authors = manager.userInfo["authors"] as? [String: ObjectID] ?? [:]   // a copy, every row
    authors[name] = author
    manager.userInfo["authors"] = authors
}

private func typedState(manager: MigrationManager, name: String, author: ObjectID) {
    enum AuthorsByName: MigrationStateKey { typealias Value = [String: ObjectID] }
    let authors = manager.state(AuthorsByName.self) { [:] }
    authors.value[name] = author
}
