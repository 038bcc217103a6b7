import Foundation
import ObjectModel
import XCTest

/// A model using every feature Xcode can write: it must round-trip exactly, and only the inputs
/// Core Data hashes may change a hash.
final class RichModelTests: XCTestCase {
    static let xml = #"""
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23E224" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="v7">
            <entity name="Publication" representedClassName="Publication" isAbstract="YES" versionHashModifier="pub-2" syncable="YES">
                <attribute name="title" attributeType="String" defaultValueString="Untitled" minValueString="1" maxValueString="200" regularExpressionString="[A-Z].*"/>
                <attribute name="cover" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="isbn" optional="YES" attributeType="String" preserveAfterDeletion="YES" indexed="YES" elementID="ISBN">
                    <userInfo>
                        <entry key="note" value="ten &amp; thirteen digits"/>
                    </userInfo>
                </attribute>
                <attribute name="cachedScore" optional="YES" transient="YES" attributeType="Double"/>
                <attribute name="scratch" optional="YES" transient="YES"/>
                <relationship name="authors" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Author" inverseName="works" inverseEntity="Author"/>
                <relationship name="related" optional="YES" toMany="YES" deletionRule="No Action" destinationEntity="Publication" inverseName="related" inverseEntity="Publication"/>
                <fetchedProperty name="sameTitle" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Publication" predicateString="title == $FETCH_SOURCE.title"/>
                </fetchedProperty>
                <fetchIndex name="byTitle">
                    <fetchIndexElement property="title" type="Binary" order="descending"/>
                </fetchIndex>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="title"/>
                        <index value="isbn"/>
                    </compoundIndex>
                </compoundIndexes>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="isbn"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
                <userInfo>
                    <entry key="table" value="publications"/>
                </userInfo>
            </entity>
            <entity name="Book" parentEntity="Publication" elementID="Volume">
                <attribute name="pages" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES" versionHashModifier="p"/>
                <attribute name="authorCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="authors.@count"/>
            </entity>
            <entity name="Novel" parentEntity="Book">
                <attribute name="genre" attributeType="String" valueTransformerName="GenreTransformer" customClassName="Genre"/>
            </entity>
            <entity name="Author">
                <attribute name="id" attributeType="UUID"/>
                <attribute name="homepage" optional="YES" attributeType="URI"/>
                <attribute name="royalties" optional="YES" attributeType="Decimal"/>
                <attribute name="born" optional="YES" attributeType="Date"/>
                <attribute name="rating" optional="YES" attributeType="Float"/>
                <attribute name="flags" optional="YES" attributeType="Integer 16"/>
                <attribute name="active" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="extra" optional="YES" attributeType="Transformable"/>
                <attribute name="ref" optional="YES" attributeType="ObjectID" transient="YES"/>
                <relationship name="works" optional="YES" toMany="YES" minCount="1" maxCount="50" deletionRule="Deny" destinationEntity="Publication" inverseName="authors" inverseEntity="Publication"/>
            </entity>
            <fetchRequest name="AllBooks" entity="Book" predicateString="pages &gt; 0" fetchLimit="10"/>
            <configuration name="Library" usedWithCloudKit="YES">
                <memberEntity name="Publication"/>
                <memberEntity name="Book"/>
            </configuration>
        </model>
        """#

    private func read(_ text: String = RichModelTests.xml) throws -> ManagedObjectModel {
        try ModelXMLReader.read(Data(text.utf8), file: "Rich.xcdatamodel/contents")
    }

    func testEveryFeatureIsRead() throws {
        let model = try read()
        XCTAssertEqual(model.versionIdentifiers, ["v7"])
        let publication = try XCTUnwrap(model.entity(named: "Publication"))
        XCTAssertTrue(publication.isAbstract)
        XCTAssertEqual(publication.versionHashModifier, "pub-2")
        XCTAssertEqual(publication.userInfo, ["table": "publications"])
        XCTAssertEqual(publication.uniquenessConstraints, [["isbn"]])
        XCTAssertEqual(publication.compoundIndexes, [["title", "isbn"]])
        XCTAssertEqual(
            publication.fetchIndexes,
            [FetchIndex(name: "byTitle", elements: [.init(property: "title", isAscending: false)])])
        XCTAssertEqual(
            publication.fetchedProperties.first?.fetchRequest.predicateString, "title == $FETCH_SOURCE.title")
        let isbn = try XCTUnwrap(publication.attributes.first { $0.name == "isbn" })
        XCTAssertEqual(isbn.renamingIdentifier, "ISBN")
        XCTAssertEqual(isbn.userInfo, ["note": "ten & thirteen digits"])
        XCTAssertTrue(isbn.preservesValueInHistoryOnDeletion && isbn.isIndexed)
        XCTAssertEqual(publication.attributes.first { $0.name == "scratch" }?.attributeType, .undefined)
        let authors = try XCTUnwrap(publication.relationships.first)
        XCTAssertTrue(authors.isToMany && authors.isOrdered)
        XCTAssertEqual(authors.deleteRule, .cascade)
        let works = try XCTUnwrap(model.entity(named: "Author")?.relationships.first)
        XCTAssertEqual([works.minCount, works.maxCount], [1, 50])
        XCTAssertEqual(works.deleteRule, .deny)
        let book = try XCTUnwrap(model.entity(named: "Book"))
        XCTAssertEqual(book.renamingIdentifier, "Volume")
        let derived = try XCTUnwrap(book.attributes.last)
        XCTAssertTrue(derived.isDerived && derived.isReadOnly)
        XCTAssertEqual(
            model.ancestors(of: try XCTUnwrap(model.entity(named: "Novel"))).map(\.name), ["Book", "Publication"])
        XCTAssertEqual(
            model.configurations,
            [
                Configuration(
                    name: "Library", entityNames: ["Publication", "Book"],
                    otherXMLAttributes: ["usedWithCloudKit": "YES"])
            ])
        XCTAssertEqual(model.fetchRequestTemplates.first?.otherXMLAttributes, ["fetchLimit": "10"])
        XCTAssertEqual(Set(model.entity(named: "Author")!.attributes.map(\.attributeType)).count, 9)
    }

    func testWriteThenReadIsLossless() throws {
        let model = try read()
        let written = ModelXMLWriter.xml(for: model)
        let reread = try read(written)
        XCTAssertEqual(reread, model)
        XCTAssertEqual(VersionHash.entityHashes(of: reread), VersionHash.entityHashes(of: model))
        XCTAssertEqual(ModelXMLWriter.xml(for: reread), written, "writing is stable")
    }

    func testOnlyHashedInputsChangeHashes() throws {
        let base = VersionHash.entityHashes(of: try read())
        func hashes(replacing old: String, with new: String) throws -> [String: Data] {
            let text = Self.xml.replacingOccurrences(of: old, with: new)
            XCTAssertNotEqual(text, Self.xml, "replacement \(old) did not apply")
            return VersionHash.entityHashes(of: try read(text))
        }
        // Never hashed: defaults, delete rules, renaming IDs, user info, indexes, class names, transient attributes.
        for (old, new) in [
            (#"defaultValueString="Untitled""#, #"defaultValueString="New""#),
            (#"deletionRule="Deny""#, #"deletionRule="Nullify""#),
            (#"elementID="ISBN""#, #"elementID="Code""#),
            (#"value="publications""#, #"value="pubs""#),
            (#"order="descending""#, #"order="ascending""#),
            (#"representedClassName="Publication""#, #"representedClassName="Pub""#),
            (
                #"name="cachedScore" optional="YES" transient="YES" attributeType="Double""#,
                #"name="cachedScore" transient="YES" attributeType="String""#
            ),
        ] {
            XCTAssertEqual(try hashes(replacing: old, with: new), base, "\(old) should not change any hash")
        }
        // Hashed: a change in Publication reaches its subentities through the parent hash.
        for (old, new) in [
            (#"versionHashModifier="pub-2""#, #"versionHashModifier="pub-3""#),
            (#"allowsExternalBinaryDataStorage="YES""#, ""),
            (#"preserveAfterDeletion="YES""#, ""),
            (#"ordered="YES""#, ""),
            (#"<constraint value="isbn"/>"#, #"<constraint value="title"/>"#),
            (#"attributeType="Binary""#, #"attributeType="String""#),
        ] {
            let changed = try hashes(replacing: old, with: new)
            for entity in ["Publication", "Book", "Novel"] {
                XCTAssertNotEqual(changed[entity], base[entity], "\(old) should change \(entity)'s hash")
            }
            XCTAssertEqual(changed["Author"], base["Author"], "\(old) should not change Author's hash")
        }
        let pages = try hashes(replacing: #"versionHashModifier="p""#, with: #"versionHashModifier="q""#)
        XCTAssertEqual(pages["Publication"], base["Publication"])
        XCTAssertNotEqual(pages["Book"], base["Book"])
    }

    func testDigestAndChecksumFollowTheEntityHashes() throws {
        let model = try read()
        let digest = try XCTUnwrap(Data(base64Encoded: VersionHash.versionHashesDigest(of: model)))
        let checksum = try XCTUnwrap(Data(base64Encoded: VersionHash.versionChecksum(of: model)))
        XCTAssertEqual(digest.count, 64)
        XCTAssertEqual(checksum.count, 32)
        var renamed = model
        renamed.entities[3].versionHashModifier = "changed"
        XCTAssertNotEqual(VersionHash.versionChecksum(of: renamed), VersionHash.versionChecksum(of: model))
        XCTAssertNotEqual(VersionHash.versionHashesDigest(of: renamed), VersionHash.versionHashesDigest(of: model))
    }
}
