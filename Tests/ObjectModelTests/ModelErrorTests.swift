import Foundation
import ObjectModel
import XCTest

/// Bad input gets an error naming the file, the line and the element — never a crash or a
/// silent default. XML that is not a model throws; a model Core Data refuses reads, with a
/// finding that says so, which stops any store at that version.
final class ModelErrorTests: XCTestCase {
    private func model(_ body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
            \(body)
            </model>
            """.utf8)
    }

    /// The error reading `body` throws, or the first finding that stops stores, as an error.
    private func error(reading body: String, file: String = "Shop.xcdatamodel/contents") -> ModelFileError? {
        do {
            let read = try ModelXMLReader.readFile(model(body), file: file)
            guard let refusal = read.findings.first(where: \.problem.stopsStores) else {
                XCTFail("expected an error for:\n\(body)")
                return nil
            }
            XCTAssertEqual(refusal.problem.verdict, .refused, refusal.description)
            XCTAssertTrue(refusal.error.problem.hasPrefix("Core Data refuses this model: "), refusal.description)
            return refusal.error
        } catch let error as ModelFileError {
            XCTAssertEqual(error.file, file)
            return error
        } catch {
            XCTFail("unexpected error type \(error)")
            return nil
        }
    }

    func testMalformedXMLNamesTheLine() throws {
        let error = try XCTUnwrap(
            self.error(
                reading: """
                    <entity name="Book">
                        <attribute name="title" attributeType="String"
                    </entity>
                    """))
        XCTAssertTrue(error.problem.contains("malformed XML"), error.description)
        XCTAssertEqual(error.line, 5, error.description)
    }

    func testUnknownAttributeTypeNamesElementAndValidTypes() throws {
        let error = try XCTUnwrap(
            self.error(
                reading: """
                    <entity name="Book">
                        <attribute name="title" attributeType="String"/>
                        <attribute name="pages" attributeType="Integer 128"/>
                    </entity>
                    """))
        XCTAssertEqual(error.line, 5)
        XCTAssertEqual(error.element, #"<attribute name="pages"> in entity "Book""#)
        XCTAssertTrue(error.problem.contains(#""Integer 128""#))
        XCTAssertTrue(error.fix?.contains("Integer 64") == true)
        XCTAssertTrue(
            error.description.hasPrefix("Shop.xcdatamodel/contents:5: <attribute name=\"pages\">"), error.description)
    }

    func testRelationshipToMissingEntity() throws {
        let error = try XCTUnwrap(
            self.error(
                reading: """
                    <entity name="Book">
                        <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Autor"/>
                    </entity>
                    <entity name="Author"/>
                    """))
        XCTAssertEqual(error.line, 4)
        XCTAssertEqual(error.element, #"<relationship name="author"> in entity "Book""#)
        XCTAssertTrue(error.problem.contains(#"destination entity "Autor" does not exist"#), error.description)
        XCTAssertTrue(error.fix?.contains("Author") == true)
    }

    /// Core Data loads a model whose inverse names a relationship that pairs elsewhere (WordPress
    /// shipped 101–109 so): it reads, with a warning on the relationship, and nothing stops.
    /// SQLite's table names ignore case: two root entities whose names differ only in case would
    /// share a table, so no store can be made; said by `model` and `fixture` before any file.
    func testEntitiesDifferingOnlyInCaseCannotHaveAStore() throws {
        let read = try ModelXMLReader.readFile(
            model(
                """
                <entity name="Book"><attribute name="title" optional="YES" attributeType="String"/></entity>
                <entity name="BOOK"><attribute name="code" optional="YES" attributeType="String"/></entity>
                """), file: "Shop.xcdatamodel/contents")
        let finding = try XCTUnwrap(read.findings.first)
        XCTAssertEqual(finding.problem.verdict, .unsupported)
        XCTAssertTrue(finding.problem.stopsStores)
        XCTAssertTrue(
            finding.description.contains(
                #"entities "Book" and "BOOK" differ only in case, so their SQLite tables (ZBOOK) would be one"#),
            finding.description)
    }

    func testInverseThatDoesNotPointBackIsAWarning() throws {
        let read = try ModelXMLReader.readFile(
            model(
                """
                <entity name="Author">
                    <relationship name="books" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
                    <relationship name="written" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
                </entity>
                <entity name="Book">
                    <relationship name="author" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="written" inverseEntity="Author"/>
                </entity>
                """), file: "Shop.xcdatamodel/contents")
        let warning = try XCTUnwrap(read.findings.first)
        XCTAssertEqual(read.findings.count, 1, "\(read.findings)")
        XCTAssertEqual(warning.problem.verdict, .warning)
        XCTAssertFalse(warning.problem.stopsStores)
        XCTAssertEqual(warning.line, 4)
        XCTAssertEqual(warning.element, #"<relationship name="books">"#)
        XCTAssertTrue(
            warning.description.contains(
                #"<relationship name="books"> in entity "Author": warning: inverse Book.author does not point back (it points to Author.written)"#
            ),
            warning.description)
        XCTAssertEqual(
            read.model.entity(named: "Author")?.relationships.first?.inverseName, "author", "read as written")
    }

    func testMissingInverse() throws {
        let error = try XCTUnwrap(
            self.error(
                reading: """
                    <entity name="Author">
                        <relationship name="books" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="writer" inverseEntity="Book"/>
                    </entity>
                    <entity name="Book"/>
                    """))
        XCTAssertTrue(error.problem.contains(#"inverse "writer" does not exist in Book"#), error.description)
    }

    func testMissingParentEntity() throws {
        let error = try XCTUnwrap(self.error(reading: #"<entity name="Novel" parentEntity="Book"/>"#))
        XCTAssertEqual(error.line, 3)
        XCTAssertEqual(error.element, #"<entity name="Novel"> in entity "Novel""#)
        XCTAssertTrue(error.problem.contains(#"parent entity "Book" does not exist"#))
    }

    func testCycleOfParents() throws {
        let error = try XCTUnwrap(
            self.error(
                reading: """
                    <entity name="A" parentEntity="C"/>
                    <entity name="B" parentEntity="A"/>
                    <entity name="C" parentEntity="B"/>
                    """))
        XCTAssertTrue(error.problem.contains("cycle: A → C → B → A"), error.description)
        XCTAssertEqual(error.line, 3)
    }

    /// An entity that is its own parent was once read without complaint and failed mid-chain.
    func testAnEntityThatIsItsOwnParent() throws {
        let error = try XCTUnwrap(self.error(reading: #"<entity name="Book" parentEntity="Book"/>"#))
        XCTAssertTrue(error.problem.contains("parent entities form a cycle: Book → Book"), error.description)
    }

    func testUnknownElementAndBadNumbersAreErrors() throws {
        let element = try XCTUnwrap(self.error(reading: #"<entity name="A"><gadget name="x"/></entity>"#))
        XCTAssertEqual(element.element, #"<gadget name="x"> in entity "A""#)
        let number = try XCTUnwrap(
            self.error(
                reading: """
                    <entity name="A"><relationship name="b" toMany="YES" maxCount="many" destinationEntity="A"/></entity>
                    """))
        XCTAssertTrue(number.problem.contains(#"maxCount="many" is not a whole number"#))
        let rule = try XCTUnwrap(
            self.error(
                reading: """
                    <entity name="A"><relationship name="b" deletionRule="Explode" destinationEntity="A"/></entity>
                    """))
        XCTAssertTrue(rule.problem.contains("Explode"))
    }

    func testUntypedStoredAttributeAndNotAModel() throws {
        let untyped = try XCTUnwrap(self.error(reading: #"<entity name="A"><attribute name="x"/></entity>"#))
        XCTAssertTrue(untyped.problem.contains("has no attributeType"))
        XCTAssertNoThrow(
            try ModelXMLReader.read(
                model(#"<entity name="A"><attribute name="x" transient="YES"/></entity>"#), file: "ok"))
        XCTAssertThrowsError(try ModelXMLReader.read(Data("<plist/>".utf8), file: "x")) { error in
            XCTAssertTrue("\(error)".contains("root element must be <model>"))
        }
        XCTAssertThrowsError(try ModelXMLReader.read(Data(), file: "empty")) { error in
            XCTAssertTrue("\(error)".contains("malformed XML"), "\(error)")
        }
    }
}
