import Foundation
import XCTest

/// Inside a module, folders are layers: a file uses types of its own folder and of the folders
/// below it, never of one above (docs/DESIGN.md draws each stack). Modules are one-way by
/// SwiftPM's targets; this keeps the insides one-way too, so a newcomer can tell from a file's
/// folder what it may use, and a type put in the wrong folder fails here with its name.
final class FolderLayersTests: XCTestCase {
    private let sources = Repository.sources

    /// Each module's folders, bottom first.
    static let stacks: [String: [String]] = [
        "SQLiteStore": ["Values", "Statements", "Layout", "Bookkeeping", "Reading", "Writing", "Files"],
        "MigrationEngine": [
            "Values", "Expressions", "Mapping", "Generation", "Progress", "Safety", "Manager", "Step", "Pass",
            "Inference",
            "Staging",
            "Planning", "Verification",
        ],
    ]

    func testEveryFolderUsesOnlyItselfAndTheFoldersBelow() throws {
        for (module, stack) in Self.stacks.sorted(by: { $0.key < $1.key }) {
            let layers = try ModuleLayers(module: sources.appendingPathComponent(module))
            XCTAssertEqual(
                Set(layers.folders), Set(stack),
                "\(module): every folder has a place in the stack, and every place a folder")
            let violations = layers.uses.filter { use in
                guard let from = stack.firstIndex(of: use.folder), let to = stack.firstIndex(of: use.usedFolder) else {
                    return false
                }
                return to > from
            }
            XCTAssertTrue(
                violations.isEmpty,
                "\(module): a folder uses one above it:\n"
                    + violations.map { "  \($0.folder)/\($0.file) uses \($0.symbol) (\($0.usedFolder))" }.joined(
                        separator: "\n"))
        }
    }

    /// The ladder is also a graph, and DESIGN §1 draws the part a newcomer relies on: the engine's
    /// three kinds of step (`Pass` for mapping steps, `Inference` for in-place ones, `Staging` for
    /// handlers) share only what lies below them (`Step`, `Manager`, `Safety`…), so a change to
    /// one kind cannot reach another, and a fourth kind is a folder beside them.
    func testTheEngineKindsOfStepAreIndependentOfEachOther() throws {
        let layers = try ModuleLayers(module: sources.appendingPathComponent("MigrationEngine"))
        let kinds: Set = ["Pass", "Inference", "Staging"]
        let crossings = layers.uses.filter { kinds.contains($0.folder) && kinds.contains($0.usedFolder) }
        XCTAssertTrue(
            crossings.isEmpty,
            "a kind of step uses another:\n"
                + crossings.map { "  \($0.folder)/\($0.file) uses \($0.symbol) (\($0.usedFolder))" }.joined(
                    separator: "\n"))
    }

    /// The checker sees what it must: a type of another folder used in code, and not one named
    /// in a comment or a string.
    func testTheCheckerFindsAUseInCodeAndNotInCommentsOrStrings() {
        let code = """
            /// Mentions UpperThing in a doc comment.
            struct Lower {
                let text = "UpperThing in a string"
                let said = "made by \\(Maker.name)"
                // UpperThing in a comment
                func make() -> UsedThing { UsedThing() }
            }
            """
        XCTAssertEqual(
            ModuleLayers.identifiers(in: code).intersection(["UpperThing", "UsedThing", "Maker"]),
            ["UsedThing", "Maker"], "an interpolation is code")
        XCTAssertEqual(
            ModuleLayers.topLevelTypes(
                in: "package struct A {\n    struct Nested {}\n}\nextension B {}\nenum C: Int {}\n"), ["A", "C"])
    }
}

/// The top-level types each folder of a module declares, and which files use which.
struct ModuleLayers {
    struct Use { let folder: String, file: String, symbol: String, usedFolder: String }

    let folders: [String]
    let uses: [Use]

    init(module: URL) throws {
        let manager = FileManager.default
        folders = try manager.contentsOfDirectory(atPath: module.path).filter { name in
            var isFolder: ObjCBool = false
            return manager.fileExists(atPath: module.appendingPathComponent(name).path, isDirectory: &isFolder)
                && isFolder.boolValue
                && !name.hasSuffix(".docc")
        }.sorted()
        var files: [(folder: String, name: String, code: String)] = []
        for folder in folders {
            for name in try manager.contentsOfDirectory(atPath: module.appendingPathComponent(folder).path).sorted()
            where name.hasSuffix(".swift") {
                files.append(
                    (
                        folder, name,
                        Self.code(
                            try String(
                                contentsOf: module.appendingPathComponent(folder).appendingPathComponent(name),
                                encoding: .utf8))
                    ))
            }
        }
        var owner: [String: String] = [:]
        for file in files { for type in Self.topLevelTypes(in: file.code) { owner[type] = file.folder } }
        uses = files.flatMap { file in
            Self.identifiers(in: file.code).sorted().compactMap { symbol in
                owner[symbol].flatMap {
                    $0 == file.folder ? nil : Use(folder: file.folder, file: file.name, symbol: symbol, usedFolder: $0)
                }
            }
        }
    }

    /// Types declared at the top level of `code` (not nested, not extended).
    static func topLevelTypes(in code: String) -> Set<String> {
        let keywords: Set<String> = ["struct", "class", "enum", "protocol", "actor", "typealias"]
        var types: Set<String> = []
        for line in code.split(separator: "\n", omittingEmptySubsequences: true)
        where !(line.first?.isWhitespace ?? true) {
            let words = line.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" }).map(String.init)
            if let index = words.firstIndex(where: keywords.contains), index + 1 < words.count,
                !words[..<index].contains("extension")
            {
                types.insert(words[index + 1])
            }
        }
        return types
    }

    /// The capitalised identifiers of `code`.
    static func identifiers(in code: String) -> Set<String> {
        Set(
            self.code(code).split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" }).map(String.init).filter
            { $0.first?.isUppercase == true })
    }

    /// `source` without its comments and string literals' text, so only code names types; every
    /// line keeps its number.
    static func code(_ source: String) -> String {
        var result = "", characters = Array(source), index = 0
        while index < characters.count {
            let character = characters[index], next = index + 1 < characters.count ? characters[index + 1] : " "
            if character == "/" && next == "/" {
                while index < characters.count && characters[index] != "\n" { index += 1 }
            } else if character == "/" && next == "*" {
                index += 2
                while index + 1 < characters.count && !(characters[index] == "*" && characters[index + 1] == "/") {
                    if characters[index] == "\n" { result.append("\n") }  // lines keep their numbers
                    index += 1
                }
                index += 2
            } else if character == "\"" {
                let triple =
                    index + 2 < characters.count && characters[index + 1] == "\"" && characters[index + 2] == "\""
                index += triple ? 3 : 1
                while index < characters.count {
                    // An interpolation is code: kept, up to its closing parenthesis.
                    if characters[index] == "\\" && index + 1 < characters.count && characters[index + 1] == "(" {
                        var depth = 0
                        index += 1
                        repeat {
                            if characters[index] == "(" { depth += 1 } else if characters[index] == ")" { depth -= 1 }
                            result.append(characters[index])
                            index += 1
                        } while depth > 0 && index < characters.count
                        result.append(" ")
                        continue
                    }
                    if characters[index] == "\\" {
                        if index + 1 < characters.count && characters[index + 1] == "\n" { result.append("\n") }
                        index += 2
                        continue
                    }
                    if characters[index] == "\n" { result.append("\n") }
                    if triple
                        ? (index + 2 < characters.count && characters[index] == "\"" && characters[index + 1] == "\""
                            && characters[index + 2] == "\"")
                        : characters[index] == "\""
                    {
                        index += triple ? 3 : 1
                        break
                    }
                    index += 1
                }
                result += "\"\""
            } else {
                result.append(character)
                index += 1
            }
        }
        return result
    }
}
