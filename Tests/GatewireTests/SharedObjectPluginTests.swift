import Gatewire
import GatewireC
import Glibc
import Testing

/// A plugin in a shared object named in the gateway config. The object is built by the test
/// with `cc -shared -fPIC` and NOT linked against libGatewire: it calls Gatewire through the
/// `gw_plugin_api` table its entry receives. The C ABI layer's registry (`PluginRegistry.cLibrary`,
/// what libGatewire's `gw_client_create` uses) loads it into this Swift test process, whose
/// core is the only one; a client of the `Gatewire` product alone refuses it with a ConfigError.
@Suite(.serialized) struct SharedObjectPluginTests {
    static let source = #"""
        #define GW_PLUGIN_USE_API
        #include "gatewire.h"
        GW_PLUGIN_API_DEFINE
        static int32_t prepare(gw_request *request, void *user_data) {
            (void)user_data;
            const char *seen = gw_request_header(request, "X-Seen-By-Swift");
            return gw_request_set_header(request, "X-From-Shared-Object", seen ? seen : "yes");
        }
        int32_t gw_plugin_entry(gw_plugin *plugin, const gw_plugin_api *api) {
            GW_PLUGIN_API_INIT(api);
            plugin->version = GW_PLUGIN_VERSION;
            plugin->name = "shared";
            plugin->prepare = prepare;
            return 0;
        }
        int32_t wrong_version(gw_plugin *plugin, const gw_plugin_api *api) { (void)api; plugin->version = 99; plugin->prepare = prepare; return 0; }
        int32_t refusing_entry(gw_plugin *plugin, const gw_plugin_api *api) { (void)plugin; (void)api; return 7; }
        int32_t linked_entry(gw_plugin *plugin) { plugin->version = GW_PLUGIN_VERSION_2; return 0; }
        """#

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
        // No -lGatewire: every gw_* call goes through the table.
        let (status, output) = try run("cc -shared -fPIC -Wl,--no-undefined -I'\(TestServer.repoRoot)/include' "
                                       + "-o '\(library)' '\(sourcePath)'")
        guard status == 0 else { throw TestServerError(description: "cc failed (\(status)): \(output)") }
        return library
    }

    static func writeFile(_ path: String, _ text: String) throws {
        guard let file = fopen(path, "w") else { throw TestServerError(description: "cannot write \(path)") }
        fputs(text, file)
        fclose(file)
    }

    /// A client whose config plugins the C ABI layer's registry builds (as gw_client_create does).
    static func cClient(_ config: GatewayConfig) throws -> Client {
        try Client(config: config, plugins: [], registry: .cLibrary, randomSeed: nil)
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
        let config = try GatewayConfig(contentsOfFile: configPath)
        let client = try Self.cClient(config)
        #expect(client.plugins.map(\.name).last == "shared")
        let response = try await client.send(.get("/headers"))
        #expect(response.status == 200)
        let headers = try JSONValue.parse(response.http.text).node["headers"]
        // The C hook read the header the built-in plugin before it set, and added its own.
        #expect(headers?["x-from-shared-object"]?.string == "swift")
        // A second client from the same config gets the plugin too.
        let again = try await Self.cClient(config).send(.get("/headers"))
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
        let response = try await Self.cClient(GatewayConfig(contentsOfFile: configPath)).send(.get("/headers"))
        #expect(try JSONValue.parse(response.http.text).node["headers"]?["x-from-shared-object"]?.string == "yes")
        // A load error shows the absolute path it tried; parsing alone loads nothing.
        try Self.writeFile(configPath, #"{"baseURL": "http://127.0.0.1:1", "plugins": ["metrics", {"path": "sub/none.so"}]}"#)
        let config = try GatewayConfig(contentsOfFile: configPath)
        let error = #expect(throws: ConfigError.self) { try Self.cClient(config) }
        #expect(error?.path == "plugins[1].path")
        #expect(error?.message.hasPrefix("cannot load the plugin's shared object (tried \(directory)/sub/none.so): ") == true,
                "\(String(describing: error))")
    }

    @Test func sharedObjectConfigErrorsNameTheField() throws {
        let directory = try Self.temporaryDirectory()
        defer { _ = try? Self.run("rm -rf '\(directory)'") }
        let library = try Self.buildPlugin(in: directory)
        func error(_ plugin: String, registry: PluginRegistry = .cLibrary) -> ConfigError? {
            do {
                let config = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "plugins": [\#(plugin)]}"#)
                _ = try registry.plugins(for: config.plugins, catalog: config.catalog)
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
        // A version 2 entry (a plugin linked against libGatewire) loads in the C library, whose
        // core it calls, but not where the core is linked in (the CLI's registry).
        #expect(error(#"{"path": "\#(library)", "symbol": "linked_entry"}"#) == nil)
        let linked = try #require(error(#"{"path": "\#(library)", "symbol": "linked_entry"}"#, registry: .selfContained))
        #expect(linked.path == "plugins[0]")
        #expect(linked.message.contains("has gw_plugin version 2, a plugin linked against libGatewire"), "\(linked)")
        #expect(error(#"{"path": "\#(library)"}"#, registry: .selfContained) == nil)
    }

    @Test func aClientOfTheGatewireProductAloneRefusesASharedObjectPlugin() throws {
        let directory = try Self.temporaryDirectory()
        defer { _ = try? Self.run("rm -rf '\(directory)'") }
        let library = try Self.buildPlugin(in: directory)
        let configPath = directory + "/gateway.json"
        try Self.writeFile(configPath, #"{"baseURL": "http://127.0.0.1:1", "plugins": ["metrics", {"path": "\#(library)"}]}"#)
        // The config parses (its specs are data) ...
        let config = try GatewayConfig(contentsOfFile: configPath)
        #expect(config.plugins.map(\.name) == ["metrics", library])
        // ... but a client of the Gatewire product alone cannot load the object, and says who can.
        let expected = "a shared-object plugin (\(library)) needs a loader this program lacks: shared-object plugins are "
            + "loaded by the C ABI library libGatewire (C, Python) and the gatewire CLI; in a Swift program, pass the "
            + "plugin to Client(config:plugins:) instead"
        let fromFile = #expect(throws: ConfigError.self) { try Client(configFile: configPath) }
        #expect(fromFile?.path == "plugins[1].path")
        #expect(fromFile?.message == expected)
        let fromConfig = #expect(throws: ConfigError.self) { try Client(config: config) }
        #expect(fromConfig?.path == "plugins[1].path")
        #expect(fromConfig?.message == expected)
    }
}
