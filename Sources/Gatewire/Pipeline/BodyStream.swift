/// A call's `2xx` body as an `AsyncSequence` of chunks (`[UInt8]`, in order), from
/// ``Client/stream(_:bufferBytes:)``; after the last chunk, ``response()`` gives the call's
/// ``Response`` (its body empty: see ``BodySink``).
///
/// Back-pressure: the event loop never blocks on a slow consumer. Chunks wait here until
/// about `bufferBytes` are queued; then the transfer pauses (libcurl's
/// `CURL_WRITEFUNC_PAUSE`, the server's TCP window closes) and resumes once the consumer
/// has taken the queue down to a quarter of that. So memory stays near `bufferBytes` plus
/// one chunk (at most 100 KiB, the transfer's receive buffer) whatever the body's size.
///
/// A failed call throws its ``GatewireError`` from the iteration (after the chunks that
/// arrived before it); a `4xx` or `5xx` body never appears as chunks. Cancelling the
/// iterating task, or releasing the stream before the end, cancels the call. One iteration
/// per stream.
public final class BodyStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private let queue: ChunkQueue
    private let handle: CallHandle
    /// Kept alive while the stream is: releasing the last reference would close it.
    private let client: Client

    init(queue: ChunkQueue, handle: CallHandle, client: Client) {
        self.queue = queue
        self.handle = handle
        self.client = client
    }

    deinit { handle.cancel() }  // a no-op once the call has completed

    /// The call's outcome, once it has completed (waits for it).
    /// - Throws: the call's ``GatewireError``.
    public func response() async throws(GatewireError) -> Response {
        try await queue.outcome().get()
    }

    public func makeAsyncIterator() -> Iterator { Iterator(stream: self) }

    /// Takes the chunks in order; throws the call's failure at the end.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: BodyStream

        public mutating func next() async throws(GatewireError) -> [UInt8]? {
            let stream = stream
            let result = await withTaskCancellationHandler {
                do throws(GatewireError) {
                    return Result<[UInt8]?, GatewireError>.success(try await stream.queue.next(resume: stream.handle))
                } catch {
                    return .failure(error)
                }
            } onCancel: {
                stream.handle.cancel()
            }
            return try result.get()
        }
    }
}
