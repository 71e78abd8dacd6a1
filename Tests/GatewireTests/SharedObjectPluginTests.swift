import Gatewire
import Glibc
import Testing

/// A plugin in a shared object named in the gateway config, loaded by a pure Swift client
/// (`Client(configFile:)`, no C layer in the program): the object is built by the test with
/// `cc -shared -fPIC`, linked against the C ABI library SwiftPM built (the GatewireDynamic
/// product, libGatewireDynamic.so) for `gw_request_set_header`.
@Suite(.serialized) struct SharedObjectPluginTests {
    static let source = #"""
        #include "gatewire.h"
        static int32_t prepare(gw_request *request, void *user_data) {
            (void)user_data;
            const char *seen = gw_request_header(request, "X-Seen-By-Swift");
            return gw_request_set_header(request, "X-From-Shared-Object", seen ? seen : "yes");
        }
        int32_t gw_plugin_entry(gw_plugin *plugin) {
            plugin->version = GW_PLUGIN_VERSION;
            plugin->name = "shared";
            plugin->prepare = prepare;
            return 0;
        }
        int32_t wrong_version(gw_plugin *plugin) { plugin->version = 99; plugin->prepare = prepare; return 0; }
        int32_t refusing_entry(gw_plugin *plugin) { (void)plugin; return 7; }
        """#

    /// The directory of the built libGatewireDynamic.so: next to the test bundle, else in .build/debug.
    static func libraryDirectory() throws -> String {
        var candidates: [String] = []
        if let test = CommandLine.arguments.first, let slash = test.lastIndex(of: "/") {
            var folder = String(test[..<slash])
            while folder.hasSuffix(".xctest") || folder.hasSuffix("/Contents/MacOS") {
                folder = String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)])
            }
            candidates.append(folder)
        }
        candidates.append(TestServer.repoRoot + "/.build/debug")
        guard let found = candidates.first(where: { access($0 + "/libGatewireDynamic.so", R_OK) == 0 }) else {
            throw TestServerError(description: "libGatewireDynamic.so is not built (looked in \(candidates)); run swift build")
        }
        return found
    }

    /// A fresh temporary directory, removed by `body`'s caller via the returned cleanup.
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/gw-so-plugin-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestServerError(description: "mkdtemp failed") }
        return String(cString: made)
    }

    /// Runs a shell command (bounded with `timeout`), returning its status and output.
    static func run(_ command: String) throws -> (status: Int32, output: String) {
        guard let pipe = popen("timeout 120 \(command) 2>&1", "r") else { throw TestServerError(description: "popen failed") }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            output += buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        let status = pclose(pipe)
        return ((status >> 8) & 0xFF, output)
    }

    /// Builds the plugin into `directory`/libswiftplugin.so and returns its path.
    static func buildPlugin(in directory: String) throws -> String {
        let sourcePath = directory + "/plugin.c"
        let library = directory + "/libswiftplugin.so"
        guard let file = fopen(sourcePath, "w") else { throw TestServerError(description: "cannot write \(sourcePath)") }
        fputs(source, file)
        fclose(file)
        let libdir = try libraryDirectory()
        let (status, output) = try run("cc -shared -fPIC -I'\(TestServer.repoRoot)/include' -o '\(library)' '\(sourcePath)' "
                                       + "-L'\(libdir)' -lGatewireDynamic -Wl,-rpath,'\(libdir)'")
        guard status == 0 else { throw TestServerError(description: "cc failed (\(status)): \(output)") }
        return library
    }

    static func writeFile(_ path: String, _ text: String) throws {
        guard let file = fopen(path, "w") else { throw TestServerError(description: "cannot write \(path)") }
        fputs(text, file)
        fclose(file)
    }

    @Test func aSharedObjectPluginNamedInTheConfigAddsAHeaderTheServerSees() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { _ = try? Self.run("rm -rf '\(directory)'") }
        let library = try Self.buildPlugin(in: directory)
        let configPath = directory + "/gateway.json"
        try Self.writeFile(configPath, #"""
            {"baseURL": "\#(server.baseURL)",
             "plugins": [{"name": "headers", "headers": {"X-Seen-By-Swift": "swift"}},
                         {"path": "\#(library)", "symbol": "gw_plugin_entry"}]}
            """#)
        let client = try Client(configFile: configPath)
        #expect(client.plugins.map(\.name).last == "shared")
        let response = try await client.send(.get("/headers"))
        #expect(response.status == 200)
        let headers = try JSONValue.parse(response.http.text).node["headers"]
        // The C hook read the header the built-in plugin before it set, and added its own.
        #expect(headers?["x-from-shared-object"]?.string == "swift")
        // A second client from the same file gets the plugin too.
        let again = try await Client(configFile: configPath).send(.get("/headers"))
        #expect(try JSONValue.parse(again.http.text).node["headers"]?["x-from-shared-object"]?.string == "swift")
    }

    @Test func aRelativePathIsRelativeToTheConfigFilesDirectory() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let directory = try Self.temporaryDirectory()
        defer { _ = try? Self.run("rm -rf '\(directory)'") }
        _ = try Self.buildPlugin(in: directory)
        let configPath = directory + "/gateway.json"
        // The working directory (the package root) has no such file: only the config's has.
        try Self.writeFile(configPath, #"{"baseURL": "\#(server.baseURL)", "plugins": [{"path": "./libswiftplugin.so"}]}"#)
        let response = try await Client(configFile: configPath).send(.get("/headers"))
        #expect(try JSONValue.parse(response.http.text).node["headers"]?["x-from-shared-object"]?.string == "yes")
        // A load error shows the absolute path it tried.
        try Self.writeFile(configPath, #"{"baseURL": "http://127.0.0.1:1", "plugins": ["metrics", {"path": "sub/none.so"}]}"#)
        let error = #expect(throws: ConfigError.self) { try GatewayConfig(contentsOfFile: configPath) }
        #expect(error?.path == "plugins[1].path")
        #expect(error?.message.hasPrefix("cannot load the plugin's shared object (tried \(directory)/sub/none.so): ") == true,
                "\(String(describing: error))")
    }

    @Test func sharedObjectConfigErrorsNameTheField() throws {
        let directory = try Self.temporaryDirectory()
        defer { _ = try? Self.run("rm -rf '\(directory)'") }
        let library = try Self.buildPlugin(in: directory)
        func error(_ plugin: String) -> ConfigError? {
            do {
                _ = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "plugins": [\#(plugin)]}"#)
                return nil
            } catch {
                return error
            }
        }
        let missingFile = try #require(error(#"{"path": "\#(directory)/none.so"}"#))
        #expect(missingFile.path == "plugins[0].path")
        #expect(missingFile.message.contains("cannot load the plugin's shared object"))
        let missingSymbol = try #require(error(#"{"path": "\#(library)", "symbol": "no_such_entry"}"#))
        #expect(missingSymbol.path == "plugins[0].symbol")
        #expect(missingSymbol.message.contains("has no symbol \"no_such_entry\""))
        let wrongVersion = try #require(error(#"{"path": "\#(library)", "symbol": "wrong_version"}"#))
        #expect(wrongVersion.path == "plugins[0]")
        #expect(wrongVersion.message.contains("gw_plugin version 99"))
        let refusing = try #require(error(#"{"path": "\#(library)", "symbol": "refusing_entry"}"#))
        #expect(refusing.path == "plugins[0]")
        #expect(refusing.message.contains("failed with status 7"))
        let unknownKey = try #require(error(#"{"path": "\#(library)", "sybmol": "gw_plugin_entry"}"#))
        #expect(unknownKey.path.hasPrefix("plugins[0]"))
    }
}
