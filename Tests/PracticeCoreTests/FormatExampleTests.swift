import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeCore

/// Every example sidecar in `Formats/examples/` (and the demo track's) validates against the JSON
/// Schema in `Formats/` (checked by Python's `jsonschema`, Draft 2020-12) and is read by the store;
/// those written by practice come back byte for byte.
@Suite struct FormatExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let schema = root.appendingPathComponent("Formats/practice-sidecar-1.schema.json").path
    static let examples: [String] = {
        let dir = root.appendingPathComponent("Formats/examples").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { "\(dir)/\($0)" } + [root.appendingPathComponent("Samples/demo.flac.practice.json").path]
    }()

    /// Runs Debian's python3-jsonschema on `document`; returns the validator's complaints ("" = valid).
    static func validate(_ document: String) throws -> String {
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            errors = sorted(e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
            print("\\n".join(errors))
            """
        let r = try run("/usr/bin/python3", ["-c", script, schema, document])
        try #require(r.status == 0, "python3-jsonschema failed: \(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func thereAreExamples() { #expect(Self.examples.count >= 3) }

    @Test(arguments: examples)
    func validatesAndDecodes(path: String) throws {
        #expect(try Self.validate(path) == "")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let sidecar = try SidecarStore.read(path)
        #expect(!sidecar.liveMarkers.isEmpty)
        if !path.hasSuffix("hand-written.practice.json") {
            #expect(sidecar.encoded() == data, "\(path) is not in the form practice writes")
        }
    }

    /// The schema does reject what it should, so the validations above mean something.
    @Test func theSchemaRejectsABadDocument() throws {
        let dir = ScratchDirectory("schema")
        let bad = dir.file("bad.json")
        try #"{"format": "practice-markers", "version": 1, "markers": [{"name": "x", "time": -1}]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(try Self.validate(bad) != "")
    }
}
