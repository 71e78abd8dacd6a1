import CGatewireABI
import Gatewire

/// A `gw_plugin` from C as a Swift ``Plugin``: forwards each hook with its `user_data`.
final class CPlugin: Plugin, @unchecked Sendable {
    let name: String
    private let prepareHook: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32)?
    private let didReceiveHook: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void)?
    private let destroyHook: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    private let userData: UnsafeMutableRawPointer?

    init(_ plugin: gw_plugin, index: Int) {
        name = plugin.name.map { String(cString: $0) } ?? "plugin \(index)"
        prepareHook = plugin.prepare
        didReceiveHook = plugin.did_receive
        destroyHook = plugin.destroy
        userData = plugin.user_data
    }

    /// Calls the plugin's `destroy` (once, when its client is freed).
    func destroy() { destroyHook?(userData) }

    func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
        guard let prepareHook else { return }
        let view = RequestView(request)
        let code = withExtendedLifetime(view) {
            prepareHook(OpaquePointer(Unmanaged.passUnretained(view).toOpaque()), userData)
        }
        request = view.request
        if code != 0 { throw CPluginFailure(description: "prepare returned \(code)") }
    }

    func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext) {
        guard let didReceiveHook else { return }
        let view = AttemptView(number: attempt.number, status: attempt.status, errorKind: attempt.errorKind,
                               elapsed: attempt.startOffset + attempt.duration,
                               headers: response?.headers ?? HTTPHeaders())
        view.withHandle { didReceiveHook($0, userData) }
    }
}

struct CPluginFailure: Error, CustomStringConvertible {
    let description: String
}
