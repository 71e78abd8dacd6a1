import CGatewireABI
import Gatewire

extension CallOptionsReader {
    /// `gw_call_options.on_progress` as the call's ``ProgressHandler``: each report as a
    /// borrowed `gw_progress` (an unknown total is -1), on the loop thread.
    static func progressHandler(_ report: gw_progress_fn, userData: UnsafeMutableRawPointer?) -> ProgressHandler {
        let context = UInt(bitPattern: userData)  // raw pointers are not Sendable; ferry the address
        return { progress in
            var view = gw_progress(bytes_sent: progress.bytesSent, bytes_to_send: progress.bytesToSend ?? -1,
                                   bytes_received: progress.bytesReceived,
                                   bytes_to_receive: progress.bytesToReceive ?? -1,
                                   attempt: Int32(clamping: progress.attempt), is_final: progress.isFinal ? 1 : 0)
            report(&view, UnsafeMutableRawPointer(bitPattern: context))
        }
    }
}
