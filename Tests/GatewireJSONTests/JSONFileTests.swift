import GatewireJSON
import Glibc
import Testing

/// `JSONValue.load(file:)`, the JSON layer's file reader (a config file is read through it).
@Suite struct JSONFileTests {
    /// A new file in a fresh folder under /tmp holding `text`.
    func file(_ text: String) throws -> String {
        var template = Array("/tmp/gatewire-jsonfile-XXXXXX".utf8CString)
        let folder = String(cString: try #require(mkdtemp(&template)))
        let path = folder + "/value.json"
        let stream = try #require(fopen(path, "w"))
        fputs(text, stream)
        fclose(stream)
        return path
    }

    @Test("a file's JSON, duplicate keys as asked")
    func loads() throws {
        let path = try file(#"{"a": 1, "b": [true, null], "a": 2}"#)
        #expect(try JSONValue.load(file: path).serialized() == #"{"a":2,"b":[true,null]}"#)
        #expect(throws: JSONParseError.self) { try JSONValue.load(file: path, rejectingDuplicateKeys: true) }
        do {
            _ = try JSONValue.load(file: path, rejectingDuplicateKeys: true)
        } catch {
            #expect(error.description == "invalid JSON at line 1, column 31: duplicate object key near '\"a\"'")
        }
    }

    @Test("invalid JSON gives its line and column; a missing file says so")
    func errors() throws {
        let path = try file("{\n  \"a\": tru\n}")
        #expect(throws: JSONParseError.self) { try JSONValue.load(file: path) }
        do {
            _ = try JSONValue.load(file: path)
        } catch {
            #expect(error.line == 2)
            #expect(error.description.hasPrefix("invalid JSON at line 2, column"))
        }
        do {
            _ = try JSONValue.load(file: "/nonexistent/gatewire.json")
            Issue.record("a missing file loaded")
        } catch {
            #expect(error.line == -1)
            #expect(error.description == "unable to open /nonexistent/gatewire.json: No such file or directory")
        }
    }
}
