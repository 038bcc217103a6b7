import Foundation
import XCTest

/// The documents name only what the code has. Every backquoted Swift symbol in README.md,
/// docs/*.md and the DocC catalogs' articles (`MigrationOptions`, `MigrationOptions.progressChannel`,
/// ``MigrationManager/state(_:_:)``, `sourceDestinations(of:_:)`) must resolve to a declaration
/// (`struct`, `class`, `enum`, `protocol`, `actor`, `typealias`, `func`, `init`, `var`, `let`,
/// `case`) in the package's Swift files: Sources/, Examples/, and Tests/ and Benchmarks/, which
/// the documents cite as evidence (`ValueFidelityTests`). A member must be declared where its
/// type is declared or extended; an argument-label list must match a declaration's labels
/// (parameters with a default may be left out). Command lines, paths, file names, SQL and
/// anything with a space are not symbols and are skipped, and so are the names below that come
/// from elsewhere: Swift and Foundation, Core Data, and the entities of the models the documents
/// talk about.
final class DocsTruthTests: XCTestCase {
    private static let root = Repository.root

    /// Names that are not this package's Swift, each for a reason.
    private static let elsewhere: Set<String> = [
        // Swift, Foundation and the packages Chrysalis uses.
        "String", "Int", "Int64", "Double", "Float", "Bool", "Decimal", "Date", "Data", "UUID", "URL", "Never",
        "NotificationCenter", "Notification", "ParsableCommand", "AsyncParsableCommand", "DatabaseQueue", "XCTest",
        "XCTestCase",
        // SQLite's and the C library's functions.
        "changes", "poll",
        // Entities and properties of the models the documents talk about (Core Data names, not Swift).
        "Book", "Books", "Author", "Authors", "Category", "Page", "Publication", "User", "Account", "Amount", "Unit",
        "Comment", "ReaderSiteTopic", "ReaderCard", "UserClient", "ProductVariation", "Order", "Group",
        "BasePost", "AbstractPost", "Topic", "Member", "SyncableSettingsMetadata", "SyncFeatureEntity",
        "ScheduledActivity",
        // NSExpression's functions, as a value expression calls them.
        "now",
        // Class names a mapping model gives (Objective-C, or an app's module that is not here).
        "MHWBookToBookPolicy", "MyApp", "MyAppPolicies", "MyAppMigrator",
        // Model bundles and versions named as such.
        "BookStore", "Model1", "Model2", "Model3", "Recipes", "Groceries", "Model", "UserDataModel",
        "MultiassetUserDataModel", "CyfaceModel", "SBBDataModel",
        // Apple's and the apps' own types the documents cite as evidence.
        "SchemaMigrationPlan", "CoreDataIterativeMigrator", "UserStorageVersion", "CoreDataMigrationVersion",
    ]

    /// Where a backquoted span sits.
    struct Span: CustomStringConvertible {
        var file: String, line: Int, text: String
        var description: String { "\(file):\(line): `\(text)`" }
    }

    /// The documents read: README, docs/, every DocC catalog's articles.
    static func documents() throws -> [String] {
        let manager = FileManager.default
        var files = ["README.md", "BENCHMARKS.md", "RELIABILITY.md", "Examples/BooksMigrator/README.md"]
        files += try manager.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path).filter {
            $0.hasSuffix(".md")
        }.sorted().map { "docs/\($0)" }
        for module in try manager.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path).sorted() {
            let folder = root.appendingPathComponent("Sources/\(module)")
            for catalog in (try? manager.contentsOfDirectory(atPath: folder.path))?.sorted() ?? []
            where catalog.hasSuffix(".docc") {
                files += try manager.contentsOfDirectory(atPath: folder.appendingPathComponent(catalog).path).filter {
                    $0.hasSuffix(".md")
                }.sorted()
                    .map { "Sources/\(module)/\(catalog)/\($0)" }
            }
        }
        return files
    }

    /// Every backquoted span outside code blocks (single or DocC's double backquotes), with its line.
    static func spans(in text: String, file: String) -> [Span] {
        var prose = ""
        var inFence = false, inLayout = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            // The "Layout" table names files and folders, which `ReadmeLayoutTests` checks.
            if line.hasPrefix("#") { inLayout = line.trimmingCharacters(in: .whitespaces).hasSuffix(" Layout") }
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                prose += "\n"
            } else {
                prose += (inFence || inLayout ? "" : line) + "\n"
            }
        }
        let expression = try! NSRegularExpression(pattern: "``([^`]+)``|`([^`]+)`")
        let lineStarts = prose.utf16.indices.filter {
            $0 == prose.utf16.startIndex || prose.utf16[prose.utf16.index(before: $0)] == 10
        }
        .map { prose.utf16.distance(from: prose.utf16.startIndex, to: $0) }
        return expression.matches(in: prose, range: NSRange(prose.startIndex..., in: prose)).compactMap { match in
            let group = match.range(at: 1).location != NSNotFound ? match.range(at: 1) : match.range(at: 2)
            guard let range = Range(group, in: prose) else { return nil }
            let line = lineStarts.lastIndex { $0 <= match.range.location }.map { $0 + 1 } ?? 1
            return Span(file: file, line: line, text: String(prose[range]))
        }
    }

    /// A span read as a symbol: the path of names (`Type`, `member`…) and, for a function or
    /// initialiser, its argument labels (`_` for none). `nil` for a span that is no symbol.
    static func symbol(_ text: String) -> (path: [String], labels: [String]?)? {
        let fileExtensions = [
            "swift", "sqlite", "plist", "md", "yaml", "txt", "xcdatamodeld", "xcdatamodel", "momd", "mom", "cdm",
            "xcmappingmodel", "json", "xml", "wiredatabase", "docc", "index", "order",
        ]
        let upper =
            #"^([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?:[./][A-Za-z_][A-Za-z0-9_]*)*)(?:\(((?:[A-Za-z_][A-Za-z0-9_]*:)*)\))?$"#
        let lower = #"^(?:[a-z][A-Za-z0-9]*\.)?([a-z][A-Za-z0-9]*)\(((?:[A-Za-z_][A-Za-z0-9_]*:)*)\)$"#
        func groups(_ pattern: String) -> [String?]? {
            let expression = try! NSRegularExpression(pattern: pattern)
            guard let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else {
                return nil
            }
            return (1..<match.numberOfRanges).map { Range(match.range(at: $0), in: text).map { String(text[$0]) } }
        }
        func labels(_ list: String?) -> [String]? {
            list.map { $0.split(separator: ":").map(String.init) }
        }
        if let match = groups(upper), let dotted = match[0] {
            let path = dotted.split(whereSeparator: { $0 == "." || $0 == "/" }).map(String.init)
            if match[1] == nil, path.count > 1, let last = path.last, fileExtensions.contains(last) { return nil }
            return (path, labels(match[1]))
        }
        if let match = groups(lower), let name = match[0] {
            return ([name], labels(match[1]) ?? [])
        }
        return nil
    }

    /// What the package's Swift declares.
    struct Declarations {
        /// Every declared name, of any kind.
        var names: Set<String> = []
        /// Every type name (struct, class, enum, protocol, actor, typealias).
        var types: Set<String> = []
        /// The files that declare or extend each type.
        var filesOfType: [String: Set<String>] = [:]
        /// Each file's declared names.
        var namesInFile: [String: Set<String>] = [:]
        /// Each file's functions, initialisers (`init`) and cases with associated values: their
        /// labels, and for each whether it has a default.
        var callablesInFile: [String: [String: [[(label: String, defaulted: Bool)]]]] = [:]
        /// The package's target names (a DocC link may start with its module).
        var modules: Set<String> = []
    }

    static func declarations() throws -> Declarations {
        var result = Declarations()
        let target = try NSRegularExpression(
            pattern: #"\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name: "([A-Za-z-]+)""#)
        let examples = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Examples").path)
            .map { "Examples/\($0)/Package.swift" }
        for manifest in ["Package.swift"] + examples {
            guard let package = try? String(contentsOf: root.appendingPathComponent(manifest), encoding: .utf8) else {
                continue
            }
            for match in target.matches(in: package, range: NSRange(package.startIndex..., in: package)) {
                if let range = Range(match.range(at: 1), in: package) { result.modules.insert(String(package[range])) }
            }
        }
        let typePattern = try NSRegularExpression(
            pattern: #"\b(?:struct|class|enum|protocol|actor|typealias|associatedtype)\s+([A-Za-z_][A-Za-z0-9_]*)"#)
        let extensionPattern = try NSRegularExpression(pattern: #"\bextension\s+([A-Za-z_][A-Za-z0-9_.]*)"#)
        let callablePattern = try NSRegularExpression(
            pattern: #"\b(?:func\s+([A-Za-z_][A-Za-z0-9_]*)|(init)[?!]?)\s*(?:<[^(]*>)?\s*\("#)
        // A `var` or `let` that starts its line (after attributes and modifiers), not a binding in a pattern.
        let variablePattern = try NSRegularExpression(
            pattern:
                #"(?m)^\s*(?:@[A-Za-z_]+(?:\([^)\n]*\))?\s+)*(?:[a-z]+(?:\((?:set|unsafe)\))?\s+)*(?:var|let)\s+([A-Za-z_][A-Za-z0-9_]*)([^\n]*)"#
        )
        let casePattern = try NSRegularExpression(pattern: #"(?m)^\s*(?:indirect\s+)?case\s+([A-Za-z_][^\n]*)"#)
        for folder in ["Sources", "Examples", "Tests", "Benchmarks", "Checks"] {
            let base = root.appendingPathComponent(folder)
            let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                if url.lastPathComponent == ".build" { enumerator?.skipDescendants(); continue }
                guard url.pathExtension == "swift" else { continue }
                let file = url.path
                let text = try String(contentsOf: url, encoding: .utf8)
                let whole = NSRange(text.startIndex..., in: text)
                func string(_ range: NSRange) -> String? { Range(range, in: text).map { String(text[$0]) } }
                var names: Set<String> = []
                var callables: [String: [[(label: String, defaulted: Bool)]]] = [:]
                for match in typePattern.matches(in: text, range: whole) {
                    guard let name = string(match.range(at: 1)) else { continue }
                    names.insert(name)
                    result.types.insert(name)
                    result.filesOfType[name, default: []].insert(file)
                }
                for match in extensionPattern.matches(in: text, range: whole) {
                    guard let extended = string(match.range(at: 1)),
                        let name = extended.split(separator: ".").last.map(String.init)
                    else { continue }
                    result.filesOfType[name, default: []].insert(file)
                }
                for match in callablePattern.matches(in: text, range: whole) {
                    guard let name = string(match.range(at: 1)) ?? string(match.range(at: 2)) else { continue }
                    names.insert(name)
                    let open = text.utf16.index(
                        text.utf16.startIndex, offsetBy: match.range.location + match.range.length - 1)
                    callables[name, default: []].append(parameters(in: text, from: open, isCase: false))
                }
                for match in variablePattern.matches(in: text, range: whole) {
                    guard let name = string(match.range(at: 1)) else { continue }
                    names.insert(name)
                    // `var step: Int, stepCount: Int` declares both.
                    for piece in topLevelPieces(string(match.range(at: 2)) ?? "").dropFirst() {
                        if let more = piece.firstMatch(of: /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*[:=]/) {
                            names.insert(String(more.1))
                        }
                    }
                }
                for match in casePattern.matches(in: text, range: whole) {
                    guard let rest = string(match.range(at: 1)) else { continue }
                    // `case a, b = "b", c(Int)`: each name, and the labels of its associated values.
                    for piece in topLevelPieces(rest) {
                        guard let head = piece.firstMatch(of: /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\(|=|$|\/\/)/) else {
                            break
                        }
                        let name = String(head.1)
                        names.insert(name)
                        if head.2 == "(" {
                            callables[name, default: []].append(
                                parameters(in: piece, from: piece.index(before: head.range.upperBound), isCase: true))
                        } else {
                            callables[name, default: []].append([])
                        }
                    }
                }
                result.names.formUnion(names)
                result.namesInFile[file] = names
                result.callablesInFile[file] = callables
            }
        }
        return result
    }

    /// `text` split at its commas outside brackets (up to the first `:` at depth 0 ending a case line).
    static func topLevelPieces(_ text: String) -> [String] {
        var pieces: [String] = [], current = "", depth = 0
        var previous: Character = " "
        for character in text {
            switch character {
            case "(", "[", "<": depth += 1
            case ")", "]": depth -= 1
            case ">" where previous != "-": depth -= 1
            default: break
            }
            if character == ",", depth == 0 {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        pieces.append(current)
        return pieces
    }

    /// The labels of the parameter list that opens at `open` (a `(`).
    static func parameters(in text: String, from open: String.Index, isCase: Bool) -> [(label: String, defaulted: Bool)]
    {
        var depth = 0, inner = ""
        var index = open
        while index < text.endIndex {
            let character = text[index]
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if depth == 0 { break }
            if index != open { inner.append(character) }
            index = text.index(after: index)
        }
        let pieces = topLevelPieces(inner).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter {
            !$0.isEmpty
        }
        return pieces.map { piece in
            let defaulted = piece.contains("=")
            guard let colon = piece.firstIndex(of: ":") else { return ("_", defaulted) }
            let words = piece[..<colon].split(whereSeparator: \.isWhitespace).filter { !$0.hasPrefix("@") }.map(
                String.init)
            if isCase { return (words.last ?? "_", defaulted) }
            return (words.first ?? "_", defaulted)
        }
    }

    /// Whether `labels` (as a document writes them) call a declaration with `declared` labels.
    static func matches(_ labels: [String], _ declared: [(label: String, defaulted: Bool)]) -> Bool {
        var given = labels[...]
        for parameter in declared {
            if given.first == parameter.label {
                given = given.dropFirst()
            } else if !parameter.defaulted {
                return false
            }
        }
        return given.isEmpty
    }

    /// Why `span` does not resolve, or `nil` when it does (or is no symbol of this package).
    static func problem(with span: Span, in declarations: Declarations) -> String? {
        guard let parsed = symbol(span.text) else { return nil }
        var path = parsed.path
        let labels = parsed.labels
        // A path in the repository (`Sources/Demo`, `Examples/BooksMigrator`) is no symbol.
        if path.count > 1, FileManager.default.fileExists(atPath: root.appendingPathComponent(path[0]).path) {
            return nil
        }
        if declarations.modules.contains(path[0]) {
            if path.count == 1 && labels == nil { return nil }
            path.removeFirst()
        }
        guard let first = path.first, !elsewhere.contains(first), !first.hasPrefix("NS") else { return nil }
        if path.count == 1 {
            guard let labels else {
                return declarations.names.contains(first) ? nil : "\(span): nothing named \(first) is declared"
            }
            if first.first!.isUppercase {
                // `Type(labels:)`: an initialiser of the type.
                guard declarations.types.contains(first) else { return "\(span): no type named \(first) is declared" }
                let files = declarations.filesOfType[first] ?? []
                let found = files.contains {
                    (declarations.callablesInFile[$0]?["init"] ?? []).contains { matches(labels, $0) }
                }
                return found
                    ? nil : "\(span): \(first) has no initialiser with the labels (\(labels.map { $0 + ":" }.joined()))"
            }
            let found = declarations.callablesInFile.values.contains {
                ($0[first] ?? []).contains { matches(labels, $0) }
            }
            return found
                ? nil
                : "\(span): no function \(first) with the labels (\(labels.map { $0 + ":" }.joined())) is declared"
        }
        guard declarations.types.contains(first) else { return "\(span): no type named \(first) is declared" }
        for (owner, member) in zip(path, path.dropFirst()) {
            let files = declarations.filesOfType[owner] ?? []
            guard files.contains(where: { declarations.namesInFile[$0]?.contains(member) == true }) else {
                return "\(span): \(owner) declares no \(member) (nor does any extension of it)"
            }
        }
        if let labels, path.count > 1 {
            let owner = path[path.count - 2], member = path[path.count - 1]
            let files = declarations.filesOfType[owner] ?? []
            let found = files.contains {
                (declarations.callablesInFile[$0]?[member] ?? []).contains { matches(labels, $0) }
            }
            if !found {
                return
                    "\(span): \(owner).\(member) has no declaration with the labels (\(labels.map { $0 + ":" }.joined()))"
            }
        }
        return nil
    }

    func testEveryBackquotedSymbolIsDeclared() throws {
        let declarations = try Self.declarations()
        XCTAssertTrue(
            declarations.types.contains("MigrationOptions") && declarations.names.contains("progressChannel"),
            "the declarations are read")
        var problems: [String] = []
        var checked = 0
        for file in try Self.documents() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for span in Self.spans(in: text, file: file) {
                if Self.symbol(span.text) != nil { checked += 1 }
                if let problem = Self.problem(with: span, in: declarations) { problems.append(problem) }
            }
        }
        XCTAssertGreaterThan(checked, 100, "symbols are found in the documents")
        XCTAssertTrue(
            problems.isEmpty,
            "symbols the documents name that the code does not declare:\n" + problems.joined(separator: "\n"))
    }

    /// Every Swift sample of the documents is compiled: it stands, line for line, in
    /// `DocSamples.swift` or in an example package's sources, which `OwnPoliciesTests` builds
    /// (its `import` lines aside, indentation free). A package manifest (`// swift-tools-version`)
    /// is left out.
    func testEverySwiftSampleIsCompiled() throws {
        func lines(_ text: some StringProtocol) -> [String] {
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty && !$0.hasPrefix("import ")
            }
        }
        var sources = [Self.root.appendingPathComponent("Tests/ChrysalisCLITests/DocSamples.swift")]
        let examples = FileManager.default.enumerator(
            at: Self.root.appendingPathComponent("Examples"), includingPropertiesForKeys: nil)
        while let url = examples?.nextObject() as? URL {
            if url.lastPathComponent == ".build" {
                examples?.skipDescendants()
            } else if url.pathExtension == "swift" && url.lastPathComponent != "Package.swift" {
                sources.append(url)
            }
        }
        // Each file's lines apart, so that a sample never matches across two files.
        let compiled = try sources.map { lines(try String(contentsOf: $0, encoding: .utf8)) }
        let fence = try NSRegularExpression(pattern: "```swift\n(.*?)```", options: .dotMatchesLineSeparators)
        var samples = 0
        for file in try Self.documents() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for match in fence.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let sample = lines(text[range])
                if sample.first?.hasPrefix("// swift-tools-version") == true { continue }
                samples += 1
                let line = text[..<range.lowerBound].filter { $0 == "\n" }.count + 1
                let found = compiled.contains { (source: [String]) -> Bool in
                    let starts = 0..<max(source.count - sample.count + 1, 0)
                    return starts.contains { (start: Int) -> Bool in
                        Array(source[start..<(start + sample.count)]) == sample
                    }
                }
                XCTAssertTrue(
                    found,
                    "\(file):\(line): this Swift sample is in neither DocSamples.swift nor an example's sources, so nothing compiles it:\n"
                        + sample.joined(separator: "\n"))
            }
        }
        XCTAssertGreaterThan(samples, 10, "samples are found in the documents")
    }

    /// The checker itself: what it takes for a symbol, and what it refuses.
    func testTheCheckerTellsSymbolsFromOtherText() throws {
        XCTAssertNil(Self.symbol("swift run chrysalis demo"))
        XCTAssertNil(Self.symbol("InferenceRules.swift"))
        XCTAssertNil(Self.symbol("ZAUTHOR"))
        XCTAssertNil(Self.symbol("--check-pages"))
        XCTAssertEqual(Self.symbol("MigrationManager/state(_:_:)")?.path, ["MigrationManager", "state"])
        XCTAssertEqual(Self.symbol("MigrationManager/state(_:_:)")?.labels, ["_", "_"])
        XCTAssertEqual(Self.symbol("sourceDestinations(of:_:)")?.labels, ["of", "_"])
        let declarations = try Self.declarations()
        func problem(_ text: String) -> String? {
            Self.problem(with: Span(file: "test", line: 1, text: text), in: declarations)
        }
        XCTAssertNil(problem("Sources/MigrationEngine"), "a path")
        XCTAssertNil(problem("MigrationOptions.progressChannel"))
        XCTAssertNil(problem("MigrationEngine/MigrationOptions/runState"))
        XCTAssertNil(problem("MigrationManager/state(_:_:)"))
        XCTAssertNil(problem("StoreValue.string"))
        XCTAssertNotNil(problem("StoreValue.text"))
        XCTAssertNotNil(problem("MigrationManager/state(_:)"))
        XCTAssertNotNil(problem("NoSuchTypeAnywhere"))
    }
}
