import CGatewireABI
import Gatewire

/// A `gw_plugin` from C as a Swift ``Plugin``: forwards each hook with its `user_data`.
/// Made by `gw_client_create` for a C caller's plugin array and by ``PluginLoader`` for
/// a plugin in a shared object the gateway config names.
final class CPlugin: Plugin, @unchecked Sendable {
    let name: String
    private let prepareHook: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32)?
    private let didReceiveHook: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void)?
    private let destroyHook: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    private let userData: UnsafeMutableRawPointer?
    private let willSendHook: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void)?
    private let processHook: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void)?

    /// The supported `gw_plugin` versions (`GW_PLUGIN_VERSION_1` to `GW_PLUGIN_VERSION`; 3 has the fields of 2).
    static let supportedVersions: ClosedRange<UInt32> = 1...GW_PLUGIN_VERSION

    /// `plugin` must have been read with ``CPlugin/read(_:index:)`` (version 2 fields zeroed for version 1).
    init(_ plugin: gw_plugin, index: Int, name fallback: String? = nil) {
        name = plugin.name.map { String(cString: $0) } ?? fallback ?? "plugin \(index)"
        prepareHook = plugin.prepare
        didReceiveHook = plugin.did_receive
        destroyHook = plugin.destroy
        userData = plugin.user_data
        willSendHook = plugin.version >= 2 ? plugin.will_send : nil
        processHook = plugin.version >= 2 ? plugin.process : nil
    }

    /// Calls the plugin's `destroy` (once, when its client is freed).
    func destroy() { destroyHook?(userData) }

    func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
        guard let prepareHook else { return }
        let view = RequestView(request, failable: true)
        let code = view.withHandle { prepareHook($0, userData) }
        request = view.request
        // The reason the hook gave with gw_request_fail wins over the bare return code.
        if let reason = view.failure { throw CPluginFailure(description: reason) }
        if code != 0 { throw CPluginFailure(description: "prepare returned \(code)") }
    }

    func willSend(_ request: HTTPRequest, context: PluginContext) {
        guard let willSendHook else { return }
        RequestView(request).withHandle { willSendHook($0, userData) }
    }

    func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext) {
        guard let didReceiveHook else { return }
        let view = AttemptView(number: attempt.number, status: attempt.status, errorKind: attempt.errorKind,
                               elapsed: attempt.startOffset + attempt.duration,
                               headers: response?.headers ?? HTTPHeaders())
        view.withHandle { didReceiveHook($0, userData) }
    }

    func process(_ result: Result<Response, GatewireError>, context: PluginContext) -> Result<Response, GatewireError> {
        guard let processHook else { return result }
        let view = ProcessView(result)
        view.withHandle { processHook($0, userData) }
        return view.result
    }
}

extension CPlugin {
    /// The size of a version 1 `gw_plugin` (up to `user_data`).
    static let version1Size = MemoryLayout<gw_plugin>.offset(of: \gw_plugin.will_send)!

    /// Element `index` of a caller's plugin array whose version is the first element's:
    /// version 1 arrays have the smaller stride, and their version 2 fields read as NULL.
    static func read(_ plugins: UnsafePointer<gw_plugin>, index: Int) -> gw_plugin {
        let raw = UnsafeRawPointer(plugins)
        let version = raw.load(as: UInt32.self)
        let size = version < 2 ? version1Size : MemoryLayout<gw_plugin>.stride
        var plugin = gw_plugin()
        withUnsafeMutableBytes(of: &plugin) { $0.copyMemory(from: UnsafeRawBufferPointer(start: raw + index * size, count: size)) }
        return plugin
    }
}

/// A C plugin's `prepare` returned non-zero.
struct CPluginFailure: Error, CustomStringConvertible {
    let description: String
}
