extension Request {
    /// The request with ``CallOptions/traceParent`` set to ``TraceContext/current`` when it
    /// has none and the calling task has one (read where the call starts: the loop thread
    /// that runs it is in no task).
    var tracedInCurrentTask: Request {
        guard options.traceParent == nil, let ambient = TraceContext.current else { return self }
        var traced = self
        traced.options.traceParent = ambient
        return traced
    }
}
