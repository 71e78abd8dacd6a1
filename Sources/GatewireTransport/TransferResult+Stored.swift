extension TransferResult {
    /// A response that did not come from the network (the HTTP cache's): nothing sent or
    /// received, no timings.
    package init(stored response: HTTPResponse) {
        self.init(response: response, error: nil, timings: TransferTimings(), bytesSent: 0, bytesReceived: 0,
                  requestSent: false)
    }
}
